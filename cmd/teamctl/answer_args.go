package main

import "github.com/spf13/cobra"

// answerArgs checks answer's arguments, MEMBER and one answer: y|n|N after
// it, or --option TEXT and nothing after it, or --keys and the keys after it.
func answerArgs(keys *bool, option *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usagef(cmd, "which member? teamctl answer MEMBER y|n|N")
		case *keys && *option != "":
			return usagef(cmd, "--keys and --option do not go together")
		case *keys && len(args) < 2:
			return usagef(cmd, "--keys needs the keys to send after MEMBER")
		case *option != "" && len(args) > 1:
			return usagef(cmd, "--option is the answer: give nothing after MEMBER")
		case !*keys && *option == "" && len(args) == 1:
			return usagef(cmd, "what answer? y, n or an option's number (or --option TEXT, or --keys KEY...)")
		case !*keys && len(args) > 2:
			return usagef(cmd, "one answer: y, n or an option's number; to send keys as they are: teamctl answer %s --keys %s", args[0], typedKeys(args[1:]))
		}
		return nil
	}
}

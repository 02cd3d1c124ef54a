package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newAnswerCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var (
		a    team.Answer
		keys bool
	)
	cmd := &cobra.Command{
		Use:   "answer MEMBER y|n|N | --option TEXT | --keys KEY...",
		Short: "Answer a stalled member without attaching: choose an option of its Claude Code dialog, or answer its prompt",
		Long: `Answer a stalled member without attaching.

At a Claude Code dialog the answer chooses one of the options on its screen:
N the option numbered N (an unnumbered menu's Nth), y its plain "Yes", n its
"No" (or its "Esc to cancel" where it has no No). A bare y or n that does not
name one option — a plan approval's two kinds of yes, say — is refused, with
the options. At any other prompt ("Overwrite? (y/n)") the answer is typed,
then Enter. --keys sends tmux keys as they are, whatever the screen shows.

A member that is not stalled is not answered: what is typed into a working or
idle Claude Code is a prompt. --force sends the answer anyway.`,
		Example: `  teamctl answer lead n                  # its dialog's No: "4. No" of a permission dialog
  teamctl answer lead 2                  # the dialog's option 2
  teamctl answer lead --option "Yes, I trust this folder"
  teamctl answer researcher y            # a prompt such as "Overwrite? (y/n)": y, then Enter
  teamctl answer lead --keys Down Enter  # keys as they are`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usagef(cmd, "which member? teamctl answer MEMBER y|n|N")
			case keys && a.Option != "":
				return usagef(cmd, "--keys and --option do not go together")
			case keys && len(args) < 2:
				return usagef(cmd, "--keys needs the keys to send after MEMBER")
			case a.Option != "" && len(args) > 1:
				return usagef(cmd, "--option is the answer: give nothing after MEMBER")
			case !keys && a.Option == "" && len(args) == 1:
				return usagef(cmd, "what answer? y, n or an option's number (or --option TEXT, or --keys KEY...)")
			case !keys && len(args) > 2:
				return usagef(cmd, "one answer: y, n or an option's number; to send keys as they are: teamctl answer %s --keys %s", args[0], typedKeys(args[1:]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case keys:
				a.Keys = args[1:]
			case a.Option == "":
				a.Reply = args[1]
			}
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			got, err := t.Answer(cmd.Context(), args[0], a)
			// Keys that went out are a success whatever the record: exit 1 would
			// invite a retry, which would answer twice.
			var notRecorded *team.NotRecordedError
			if err != nil && !errors.As(err, &notRecorded) {
				return err
			}
			if got.Option != "" {
				fmt.Fprintf(io.Out, "chose %s for %s (sent %s)\n", textsafe.Visible(fmt.Sprintf("%q", got.Option)), textsafe.Visible(args[0]), typedKeys(got.Keys))
			} else {
				fmt.Fprintf(io.Out, "sent %s to %s\n", typedKeys(got.Keys), textsafe.Visible(args[0]))
			}
			if notRecorded != nil {
				fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(notRecorded.Error()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&a.Option, "option", "", "choose the dialog's option that reads `TEXT` (or the only one starting with it)")
	cmd.Flags().BoolVar(&keys, "keys", false, "send the arguments after MEMBER as tmux keys, as they are (y Enter, Down Enter)")
	cmd.Flags().BoolVar(&a.Force, "force", false, "answer even a member that is not stalled (the keys become its input)")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

// typedKeys is keys as a person types them to teamctl answer: `y Enter`, a
// key that a shell would split or change in single quotes (`'hello world'`),
// every character a terminal acts on made visible.
func typedKeys(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if k == "" || strings.IndexFunc(k, shellSpecial) >= 0 {
			k = "'" + strings.ReplaceAll(k, "'", `'\''`) + "'"
		}
		out[i] = textsafe.Visible(k)
	}
	return strings.Join(out, " ")
}

// shellSpecial reports whether a shell would do something with r in an
// unquoted word: anything but letters, digits and a few marks of key names.
func shellSpecial(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_+=.,:/@%^", r)
}

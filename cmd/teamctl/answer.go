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
	return &cobra.Command{
		Use:   "answer MEMBER KEYS...",
		Short: "Answer a stalled member without attaching: send tmux keys (y Enter, Down Enter, …)",
		Example: `  teamctl answer researcher y Enter
  teamctl answer lead Down Enter     # pick the second option of a Claude Code menu`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			err = t.Answer(cmd.Context(), args[0], args[1:])
			// Keys that went out are a success whatever the record: exit 1 would
			// invite a retry, which would answer twice.
			var notRecorded *team.NotRecordedError
			if err != nil && !errors.As(err, &notRecorded) {
				return err
			}
			fmt.Fprintf(io.Out, "sent %s to %s\n", typedKeys(args[1:]), textsafe.Visible(args[0]))
			if notRecorded != nil {
				fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(notRecorded.Error()))
			}
			return nil
		},
	}
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

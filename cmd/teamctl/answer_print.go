package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// printAnswered says what was sent to member, and warns when the answer went
// out but could not be recorded.
func printAnswered(io *iostreams.IO, member string, got *team.Answered, notRecorded *team.NotRecordedError) {
	if got.Option != "" {
		fmt.Fprintf(io.Out, "chose %s for %s (sent %s)\n", textsafe.Visible(fmt.Sprintf("%q", got.Option)), textsafe.Visible(member), typedKeys(got.Keys))
	} else {
		fmt.Fprintf(io.Out, "sent %s to %s\n", typedKeys(got.Keys), textsafe.Visible(member))
	}
	if notRecorded != nil {
		fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(notRecorded.Error()))
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

package layouts

import (
	"fmt"
	"strings"
	"testing"
)

// TestTooLongForLinuxIsAProblem: what Linux would refuse to start — a lead
// prompt, an env value or an argument over MAX_ARG_STRLEN, or a member's
// arguments and environment over teamctl's bound — is a problem at its line
// and column, saying the size and the limit. A teammate's prompt of any size
// is fine: it goes through the mailbox.
func TestTooLongForLinuxIsAProblem(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	src := "team: t\n" +
		"lead:\n" +
		"  prompt: " + big + "\n" +
		"  env:\n" +
		"    KEY: " + big + "\n" +
		"  args: [" + big + "]\n" +
		"members:\n" +
		"  - name: mate\n" +
		"    prompt: " + big + "\n"
	got := problemLines(t, src)
	want := []string{
		fmt.Sprintf("t.yaml:3:11: lead.prompt: the lead's prompt is %d bytes, and Linux takes at most 131071 bytes in one command-line argument (MAX_ARG_STRLEN): the lead gets its prompt as one;", len(big)),
		fmt.Sprintf("t.yaml:5:10: lead.env.KEY: KEY=VALUE is %d bytes, and Linux takes at most 131071 bytes in one environment variable (MAX_ARG_STRLEN): put the value in a file", len(big)+4),
		fmt.Sprintf("t.yaml:6:10: lead.args[0]: this argument is %d bytes, and Linux takes at most 131071 bytes", len(big)),
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %.300s\nwant %s…", i, got[i], want[i])
		}
	}

	// Just under the limit is fine, and so is a teammate's long prompt.
	ok := strings.Repeat("y", MaxArgBytes)
	if _, err := ParseBytes("t.yaml", []byte("team: t\nlead:\n  prompt: "+ok+"\nmembers:\n  - name: mate\n    prompt: "+big+"\n")); err != nil {
		t.Errorf("a %d-byte lead prompt: %.300v", len(ok), err)
	}

	// Each value fits, but together they cannot be exec'd. A layout is at most
	// 1 MiB, so it takes aliases: one value, used nine times.
	val := strings.Repeat("z", 120<<10)
	refs := func(indent string) string {
		var b strings.Builder
		for i := 0; i < 9; i++ {
			fmt.Fprintf(&b, "%sV%d: *s\n", indent, i)
		}
		return b.String()
	}
	got = problemLines(t, "team: t\ndescription: &s "+val+"\nmembers:\n  - name: tool\n    command: [sleep, \"1\"]\n    env:\n"+refs("      "))
	if len(got) != 1 || !strings.HasPrefix(got[0], "t.yaml:4:5: members[0]: arguments and environment from the layout (team env included) come to ") ||
		!strings.Contains(got[0], "at most 1048576 for one member") {
		t.Errorf("got %.400q", got)
	}
	got = problemLines(t, "team: t\ndescription: &s "+val+"\nenv:\n"+refs("  "))
	if len(got) != 1 || !strings.HasPrefix(got[0], "t.yaml:4:3: env: the team's env is ") {
		t.Errorf("got %.400q", got)
	}
}

package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestSendRefusesControlCharacters: `send` of a text holding a control
// character — shift-tab's escape sequence, ^C, ^U, as an argument or on
// stdin, to the lead or a teammate — fails (exit 1) naming the character and
// where it is, and nothing is queued for the lead or left in a mailbox. Text
// with newlines and tabs is sent, and typed into the lead on one line.
func TestSendRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: keys\nwatchdog: {quiet: 300ms}\nmembers:\n  - name: mate\n"))
	for _, c := range []struct {
		member, text, stdin, says string
	}{
		{"lead", "\x1b[Z", "", `\x1b (ESC) at line 1, column 1`},
		{"lead", "stop now\x03", "", `\x03 (^C) at line 1, column 9`},
		{"mate", "clear\x15 this", "", `\x15 (^U) at line 1, column 6`},
		{"lead", "-", "first line\nsecond \x1b[2J line\n", `\x1b (ESC) at line 2, column 8`},
		{"mate", "-", "raw CSI \x9b2J\n", `\x9b (not UTF-8) at line 1, column 9`},
	} {
		r := runWith(t, e, 2*time.Minute, c.stdin, nil, nil, "send", c.member, c.text, "--team", "keys")
		if r.Code != 1 || r.Stdout != "" {
			t.Errorf("send %s %q: exit %d, stdout %q, want exit 1 and nothing sent", c.member, c.text+c.stdin, r.Code, r.Stdout)
		}
		if !strings.Contains(r.Stderr, "not sent: the text holds the control character "+c.says) {
			t.Errorf("send %s %q says:\n%s\nwant it to name %s", c.member, c.text+c.stdin, r.Stderr, c.says)
		}
		if strings.ContainsAny(r.Stderr, "\x1b\x03\x15") || strings.Contains(r.Stderr, "\x9b") {
			t.Errorf("the error prints the control character raw: %q", r.Stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "keys", "lead-queue.jsonl")); err == nil && len(b) > 0 {
		t.Errorf("queued for the lead: %q", b)
	}
	var msgs []struct{ From, Text string }
	if err := json.Unmarshal([]byte(e.MustRun("inbox", "mate", "--json", "--team", "keys").Stdout), &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.From == "team-lead" {
			t.Errorf("left in mate's mailbox: %+v", m)
		}
	}

	// Newlines and tabs are text: typed into the lead as spaces, one prompt.
	waitMember(t, e, "keys", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "idle" })
	e.MustRun("send", "lead", "KEYS-MARKER one\ntwo\tthree", "--team", "keys")
	waitScreen(t, e, "teamctl-keys", member(statusOf(t, e, "keys"), "lead").Pane, "❯ KEYS-MARKER one two three")
}

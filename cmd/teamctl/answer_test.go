package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// answersOf are member's answer events.
func answersOf(evs []event, member string) []event {
	var out []event
	for _, e := range evs {
		if e.Member == member && e.Kind == "answer" {
			out = append(out, e)
		}
	}
	return out
}

// TestAnswerNChoosesTheDialogsNo: the stand-in draws Claude Code's permission
// dialog and takes keys as Claude Code does (a digit chooses, Enter picks the
// selected "1. Yes", y and n do nothing). `answer lead n` chooses "3. No" —
// the command is denied — and the event says which option; `n Enter`, which
// ran the command, is refused as a usage error, and is what --keys sends.
func TestAnswerNChoosesTheDialogsNo(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	goOn := filepath.Join(e.Dir, "go-on")
	e.MustRun("up", standInLayout(e, "team.yaml", `team: dialog
watchdog: {quiet: 300ms}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "permission,wait-for:`+goOn+`,permission"}
`))
	m := waitMember(t, e, "dialog", "lead", 30*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall == nil || m.Stall.Pattern != "claude-permission" {
		t.Fatalf("stall: %+v", m.Stall)
	}

	r := e.Run("answer", "lead", "n", "Enter", "--team", "dialog")
	if r.Code != 2 || !strings.Contains(r.Stderr, "teamctl answer lead --keys n Enter") {
		t.Errorf("answer lead n Enter: exit %d, want 2 pointing at --keys:\n%s", r.Code, r.Stderr)
	}
	r = e.MustRun("answer", "lead", "n", "--team", "dialog")
	if want := "chose \"3. No\" for lead (sent 3)\n"; r.Stdout != want {
		t.Errorf("answer lead n says %q, want %q", r.Stdout, want)
	}
	waitScreen(t, e, "teamctl-dialog", m.Pane, "Denied")
	if s := screen(e, "teamctl-dialog", m.Pane); strings.Contains(s, "Running…") {
		t.Fatalf("n ran the command:\n%s", s)
	}
	ans := answersOf(events(t, e, "dialog"), "lead")
	if len(ans) != 1 || ans[0].Option != "3. No" || !slices.Equal(ans[0].Keys, []string{"3"}) {
		t.Errorf("answer events: %+v, want one choosing 3. No with the key 3", ans)
	}
	if out := e.MustRun("events", "--team", "dialog").Stdout; !strings.Contains(out, `answer         chose "3. No", keys 3 by a person`) {
		t.Errorf("events do not say which option was chosen:\n%s", out)
	}

	// Answered, it is no longer stalled, and a y now would be a prompt.
	waitMember(t, e, "dialog", "lead", 30*time.Second, func(m memberStatus) bool { return m.State != "stalled" })
	r = e.Run("answer", "lead", "y", "--team", "dialog")
	if r.Code != 1 || !strings.Contains(r.Stderr, "lead is working, not stalled: the answer would be typed into it as input (--force sends it anyway)") {
		t.Errorf("answer to a member not stalled: exit %d:\n%s", r.Code, r.Stderr)
	}

	// The next dialog: keys as they are, for whoever wants them, do what
	// they do in Claude Code — Enter picks the selected "1. Yes".
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitMember(t, e, "dialog", "lead", 30*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if r := e.MustRun("answer", "lead", "--keys", "n", "Enter", "--team", "dialog"); r.Stdout != "sent n Enter to lead\n" {
		t.Errorf("answer --keys says %q", r.Stdout)
	}
	waitScreen(t, e, "teamctl-dialog", m.Pane, "Running…")
}

// TestAutomaticAnswerChoosesAnOption: a watchdog.answer naming a dialog's
// option makes the supervisor choose it, by the dialog's own keys: "No" of
// the stand-in's permission dialog denies the command.
func TestAutomaticAnswerChoosesAnOption(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: auto
watchdog:
  quiet: 300ms
  answer:
    - {pattern: claude-permission, option: "No"}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "permission"}
`))
	pane := waitMember(t, e, "auto", "lead", 30*time.Second, func(m memberStatus) bool { return m.Pane != "" }).Pane
	waitScreen(t, e, "teamctl-auto", pane, "Denied")
	testenv.Eventually(t, 30*time.Second, "the automatic answer's event", func() (bool, string) {
		ans := answersOf(events(t, e, "auto"), "lead")
		return len(ans) == 1 && ans[0].Option == "3. No" && slices.Equal(ans[0].Keys, []string{"3"}) && ans[0].Detail == "automatic (watchdog.answer)", fmt.Sprintf("%+v", ans)
	})
	if s := screen(e, "teamctl-auto", pane); strings.Contains(s, "Running…") {
		t.Errorf("the command ran:\n%s", s)
	}
}

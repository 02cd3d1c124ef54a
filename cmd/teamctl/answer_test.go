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

// TestAnswerRefusesAnAmbiguousYes: a plan approval has two kinds of yes and no
// No; bare y and n are refused with the options named and nothing is sent;
// a number or --option chooses.
func TestAnswerRefusesAnAmbiguousYes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: plans
watchdog: {quiet: 300ms}
members:
  - name: planner
    env: {TEAMCTL_STANDIN_SCRIPT: "plan"}
`))
	m := waitMember(t, e, "plans", "planner", 30*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall == nil || m.Stall.Pattern != "claude-plan" {
		t.Fatalf("stall: %+v", m.Stall)
	}
	before := screen(e, "teamctl-plans", m.Pane)
	options := "1. Yes, and use auto mode · 2. Yes, manually approve edits · 3. Tell Claude what to change"
	for _, c := range []struct{ reply, say string }{
		{"y", "planner waits at a Claude Code dialog with no single plain yes: choose an option by its number (`teamctl answer planner N`) or --option TEXT: " + options},
		{"n", "planner waits at a Claude Code dialog with no plain no and no Esc to cancel"},
		{"4", "planner's dialog has no option 4; it offers: " + options},
	} {
		r := e.Run("answer", "planner", c.reply, "--team", "plans")
		if r.Code != 1 || !strings.Contains(r.Stderr, c.say) {
			t.Errorf("answer planner %s: exit %d, want 1 saying %q:\n%s", c.reply, r.Code, c.say, r.Stderr)
		}
	}
	r := e.Run("answer", "planner", "--option", "Yes", "--team", "plans")
	if r.Code != 1 || !strings.Contains(r.Stderr, `"Yes" is the start of several of planner's options: "1. Yes, and use auto mode", "2. Yes, manually approve edits"`) {
		t.Errorf("an ambiguous --option: exit %d:\n%s", r.Code, r.Stderr)
	}
	if n := len(answersOf(events(t, e, "plans"), "planner")); n != 0 {
		t.Errorf("%d answer events for refused answers", n)
	}
	if s := screen(e, "teamctl-plans", m.Pane); s != before {
		t.Fatalf("a refused answer reached the pane:\n%s\nwas:\n%s", s, before)
	}
	r = e.MustRun("answer", "planner", "--option", "yes, MANUALLY", "--team", "plans")
	if want := "chose \"2. Yes, manually approve edits\" for planner (sent 2)\n"; r.Stdout != want {
		t.Errorf("answer --option says %q, want %q", r.Stdout, want)
	}
	waitScreen(t, e, "teamctl-plans", m.Pane, "chose: 2. Yes, manually approve edits")
}

// TestAnswerRefusesAMemberNotStalled: an idle Claude Code and a busy member
// take nothing typed as an answer — it would be a prompt — unless --force.
func TestAnswerRefusesAMemberNotStalled(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: calm
watchdog: {quiet: 300ms}
members:
  - name: busy
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
`))
	lead := waitMember(t, e, "calm", "lead", 30*time.Second, func(m memberStatus) bool { return m.State == "idle" })
	for _, c := range []struct{ member, say string }{
		{"lead", "lead is idle, not stalled: the answer would be typed into it as input (--force sends it anyway)"},
		{"busy", "busy is working, not stalled"},
	} {
		r := e.Run("answer", c.member, "y", "--team", "calm")
		if r.Code != 1 || !strings.Contains(r.Stderr, c.say) {
			t.Errorf("answer %s y: exit %d, want 1 saying %q:\n%s", c.member, r.Code, c.say, r.Stderr)
		}
	}
	if s := screen(e, "teamctl-calm", lead.Pane); strings.Contains(s, "❯ y") {
		t.Fatalf("a refused answer became a prompt:\n%s", s)
	}
	if evs := events(t, e, "calm"); len(answersOf(evs, "lead"))+len(answersOf(evs, "busy")) != 0 {
		t.Errorf("refused answers were recorded: %+v", evs)
	}
	if r := e.MustRun("answer", "lead", "y", "--force", "--team", "calm"); r.Stdout != "sent y Enter to lead\n" {
		t.Errorf("answer --force says %q", r.Stdout)
	}
	waitScreen(t, e, "teamctl-calm", lead.Pane, "❯ y")
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

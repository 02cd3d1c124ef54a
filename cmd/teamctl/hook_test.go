package main_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestHookSpeaksOnlyForItsPane: `teamctl hook` run in one member's pane
// (TMUX_PANE, as tmux sets it for every process there, Claude Code's hooks
// included) with another member's TEAMCTL_MEMBER is recorded with the pane it
// ran in, reported by the supervisor, and leaves that member as it was; run
// with the pane's own member it makes that member idle. A hook whose
// TEAMCTL_MEMBER is not a member's name, or that runs outside a pane, records
// nothing.
func TestHookSpeaksOnlyForItsPane(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: panes
members:
  - name: mate
    env: {TEAMCTL_STANDIN_SCRIPT: busy}
  - name: shell
    command: [sh]
`))
	testenv.Eventually(t, 10*time.Second, "the supervisor's start", func() (bool, string) {
		return countEvents(events(t, e, "panes"), "", "supervisor") == 1, ""
	})
	st := statusOf(t, e, "panes")
	shellPane, matePane := member(st, "shell").Pane, member(st, "mate").Pane
	// Typed into the shell's pane: the hook runs there, as Claude Code's would.
	inShell := func(cmd string, n int) {
		t.Helper()
		line := fmt.Sprintf(`printf '{"hook_event_name":"Stop"}' | %s %s hook; echo HOOK-DONE-$((%d+1))`, cmd, shellQuote(e.Bin), n)
		if _, err := e.Tmux("teamctl-panes", "send-keys", "-t", shellPane, "-l", line); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Tmux("teamctl-panes", "send-keys", "-t", shellPane, "Enter"); err != nil {
			t.Fatal(err)
		}
		waitScreen(t, e, "teamctl-panes", shellPane, fmt.Sprintf("HOOK-DONE-%d", n+1))
	}

	inShell("TEAMCTL_MEMBER=mate", 0)
	testenv.Eventually(t, 20*time.Second, "the hook, recorded with the shell's pane, and the supervisor's report", func() (bool, string) {
		evs := events(t, e, "panes")
		hooked, reported := false, false
		for _, ev := range evs {
			hooked = hooked || ev.Kind == "hook" && ev.Member == "mate" && ev.Pane == shellPane
			reported = reported || ev.Kind == "supervisor" && ev.Member == "mate" &&
				strings.Contains(ev.Detail, "ignored a Stop hook for mate from pane "+shellPane+": mate runs in pane "+matePane)
		}
		return hooked && reported, fmt.Sprint(evs)
	})
	if m := member(statusOf(t, e, "panes"), "mate"); m.State != "working" {
		t.Errorf("mate is %s after a Stop hook from the shell's pane, want working", m.State)
	}

	inShell("", 1) // the shell's own TEAMCTL_MEMBER
	testenv.Eventually(t, 20*time.Second, "the shell idle by its own hook", func() (bool, string) {
		evs := events(t, e, "panes")
		for _, ev := range evs {
			if ev.Kind == "idle" && ev.Member == "shell" && ev.Detail == "hook Stop" {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})

	before := countEvents(events(t, e, "panes"), "mate", "hook")
	for _, env := range [][]string{
		{"TEAMCTL_MEMBER=mate"}, // outside any pane
		{"TEAMCTL_MEMBER=mate\x1b[2J", "TMUX_PANE=" + matePane},
		{"TEAMCTL_MEMBER=../mate", "TMUX_PANE=" + matePane},
		{"TEAMCTL_MEMBER=mate", "TMUX_PANE=" + matePane + ";x"},
	} {
		r := runWith(t, e, 2*time.Minute, `{"hook_event_name":"Stop"}`, append([]string{"TEAMCTL_TEAM=panes"}, env...), nil, "hook")
		if r.Code != 0 {
			t.Errorf("hook with %q: exit %d %s", env, r.Code, r.Stderr)
		}
	}
	evs := events(t, e, "panes")
	if n := countEvents(evs, "mate", "hook"); n != before {
		t.Errorf("%d hook events for mate recorded from outside a pane or with a bad name or pane: %v", n-before, evs)
	}
	for _, ev := range evs {
		if ev.Kind == "hook" && ev.Member != "mate" && ev.Member != "shell" {
			t.Errorf("a hook recorded for %q", ev.Member)
		}
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// quiet is the watchdog's quiet period in the stall tests: shorter than the
// default 2s, still far longer than Claude Code takes to draw a dialog.
const quiet = "500ms"

// stallsOf returns the events of kind for member, in order.
func stallsOf(evs []event, kind, member string) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == kind && e.Member == member {
			out = append(out, e)
		}
	}
	return out
}

func eventLines(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintln(&b, e)
	}
	return b.String()
}

// waitStalled waits until status reports every member in names stalled on
// pattern, and returns their stalls' lines.
func (w *world) waitStalled(pattern string, names ...string) map[string]string {
	w.t.Helper()
	lines := map[string]string{}
	poll(w.t, wait, fmt.Sprintf("status to show %v stalled on %s", names, pattern), func() (bool, string) {
		st := w.status()
		var seen []string
		ok := true
		for _, name := range names {
			found := false
			for _, m := range st.Members {
				if m.Name != name {
					continue
				}
				found = true
				stall := "none"
				if m.Stall != nil {
					stall = fmt.Sprintf("%s %q since %s", m.Stall.Pattern, m.Stall.Line, m.Stall.Since.Format("15:04:05.000"))
				}
				seen = append(seen, fmt.Sprintf("%s: state %s, stall %s", name, m.State, stall))
				if m.State != "stalled" || m.Stall == nil || m.Stall.Pattern != pattern || m.Stall.Line == "" || m.Stall.Since.IsZero() {
					ok = false
					continue
				}
				lines[name] = m.Stall.Line
			}
			if !found {
				ok = false
				seen = append(seen, name+": not in status")
			}
		}
		return ok, strings.Join(seen, "\n") + "\nevents:\n" + eventLines(w.events())
	})
	return lines
}

// waitCleared waits until member's stall has cleared: a stall-cleared event
// for pattern, and status no longer stalled.
func (w *world) waitCleared(member, pattern string) {
	w.t.Helper()
	poll(w.t, wait, fmt.Sprintf("%s's %s stall to clear (event and status)", member, pattern), func() (bool, string) {
		evs := w.events()
		cleared := false
		for _, e := range stallsOf(evs, "stall-cleared", member) {
			if e.Pattern == pattern {
				cleared = true
			}
		}
		state := "missing"
		for _, m := range w.status().Members {
			if m.Name == member {
				state = m.State
			}
		}
		return cleared && state != "stalled" && state != "missing", fmt.Sprintf("stall-cleared event seen: %v; %s's state: %s\nevents:\n%s", cleared, member, state, eventLines(evs))
	})
}

// answer answers member's dialog with `teamctl answer member args...` (y, n,
// a number, --option TEXT) and waits until the screen no longer shows
// question; it returns how many times it answered. Claude Code drops keys that
// come before it reads its input, so the answer is repeated, at most twice,
// but only when the screen has stayed exactly as it was before the keys were
// sent: they had no effect at all.
func (w *world) answer(member, pane, question string, args ...string) int {
	w.t.Helper()
	send := func() string {
		before := w.screen(pane)
		r := w.e.MustRun(append([]string{"answer", "--team", w.team, member}, args...)...)
		w.t.Logf("teamctl answer %s %s: %s", member, strings.Join(args, " "), strings.TrimSpace(r.Stdout))
		return before
	}
	before, sent, n := send(), time.Now(), 1
	poll(w.t, wait, fmt.Sprintf("%q gone from %s's screen after `teamctl answer %s %s`", question, member, member, strings.Join(args, " ")), func() (bool, string) {
		s := w.screen(pane)
		if !strings.Contains(s, question) {
			return true, s
		}
		if s == before && time.Since(sent) > 5*time.Second && n < 3 {
			w.t.Logf("the answer to %s had no effect after %s (screen unchanged): Claude Code dropped the keys; answering again", member, time.Since(sent).Round(time.Millisecond))
			before, sent = send(), time.Now()
			n++
		}
		return false, fmt.Sprintf("answered %d time(s); the screen:\n%s", n, s)
	})
	return n
}

// TestTrustDialogIsAStall: in a folder not yet trusted, the trust dialog every
// member shows is reported as a stall (status and one event per member, pattern
// claude-trust), and `teamctl answer MEMBER --option "Yes, I trust this
// folder"` chooses it (Down, Enter): the stall clears, the member reaches its
// input box, and a teammate's prompt then reaches the model.
func TestTrustDialogIsAStall(t *testing.T) {
	t.Parallel()
	const prompt = "Look around; token STALL-TRUST-4c1e."
	const reply = "Trusted via teamctl answer."
	w := newWorld(t, "e2e-trust-stall", false, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(prompt), Reply: fakeapi.Always(fakeapi.Text(reply))},
	))
	w.e.MustRun("up", w.teamLayout(lead{}, quiet, member{"alice", prompt}))
	panes := w.panes()

	lines := w.waitStalled("claude-trust", "lead", "alice")
	screens := w.waitScreens("the trust dialog on every pane, \"No, exit\" selected", panes, func(_, s string) bool {
		return strings.Contains(s, "Yes, I trust this folder") && selectedLine(s, "No, exit")
	})
	for name, ln := range lines {
		if !strings.Contains(screens[name], ln) {
			t.Errorf("%s's stall line %q is not on its screen:\n%s", name, ln, screens[name])
		}
	}
	for _, r := range w.api.Requests() {
		if r.IsTurn() {
			t.Errorf("a turn reached the model before the folder was trusted: %s", r)
		}
	}

	// The menu is "❯ No, exit" / "Yes, I trust this folder", unnumbered:
	// teamctl sends Down, then Enter. The stall is reported only once the
	// dialog has been still for the quiet period, by when Claude Code reads
	// keys.
	answers := map[string]int{}
	for _, name := range []string{"alice", "lead"} {
		answers[name] = w.answer(name, panes[name], "Yes, I trust this folder", "--option", "Yes, I trust this folder")
	}
	w.waitRequest("alice's prompt after she was answered", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(prompt) })
	w.waitScreens("every member at its input box, alice with her answer", panes, func(name, s string) bool {
		rule, ok := inputBox(s)
		if name == "lead" {
			return ok && !strings.Contains(s, "Yes, I trust this folder")
		}
		return ok && strings.Contains(rule, "@alice") && strings.Contains(s, reply)
	})
	for _, name := range []string{"alice", "lead"} {
		w.waitCleared(name, "claude-trust")
	}

	evs := w.events()
	for _, name := range []string{"lead", "alice"} {
		stalls := stallsOf(evs, "stall", name)
		if len(stalls) != 1 || stalls[0].Pattern != "claude-trust" {
			t.Errorf("%s: want exactly one stall event, claude-trust; got %d:\n%s", name, len(stalls), eventLines(stalls))
		}
		if n := len(stallsOf(evs, "stall-cleared", name)); n != 1 {
			t.Errorf("%s: %d stall-cleared events, want 1", name, n)
		}
		ans := stallsOf(evs, "answer", name)
		if len(ans) != answers[name] {
			t.Errorf("%s: %d answer events, want %d", name, len(ans), answers[name])
		}
		for _, a := range ans {
			if a.Option != "Yes, I trust this folder" || strings.Join(a.Keys, " ") != "Down Enter" {
				t.Errorf("%s: answer event %s, want Yes, I trust this folder by Down Enter", name, a)
			}
		}
	}
	if t.Failed() {
		t.Logf("events:\n%s", eventLines(evs))
	}
}

// TestPermissionDialogIsAStall: a lead in permissionMode manual asked by the
// model to run a shell command shows "Do you want to proceed?"; that is reported
// as a stall (pattern claude-permission, the question as its line), and
// `teamctl answer lead y` ("1. Yes", its digit) runs the command and clears it.
func TestPermissionDialogIsAStall(t *testing.T) {
	t.Parallel()
	const prompt = "Leave a marker; token STALL-PERM-8d2f."
	const done = "The marker is written."
	w := newWorld(t, "e2e-perm-stall", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text(done))},
		fakeapi.Rule{When: fakeapi.LastUserContains(prompt), Reply: fakeapi.Always(fakeapi.Bash("echo hi > marker.txt", "Write the marker file"))},
	))
	marker := filepath.Join(w.e.Work, "marker.txt")
	w.e.MustRun("up", w.teamLayout(lead{prompt: prompt, permissionMode: "manual"}, quiet))
	panes := w.panes()

	lines := w.waitStalled("claude-permission", "lead")
	if want := "Do you want to proceed?"; lines["lead"] != want {
		t.Errorf("the lead's stall line is %q, want %q", lines["lead"], want)
	}
	w.waitScreens("the permission dialog, \"1. Yes\" selected", map[string]string{"lead": panes["lead"]}, func(_, s string) bool {
		return strings.Contains(s, "Do you want to proceed?") && selectedLine(s, "1. Yes")
	})
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the marker exists before the command was allowed (%v)", err)
	}
	evs := w.events()
	if stalls := stallsOf(evs, "stall", "lead"); len(stalls) != 1 || stalls[0].Pattern != "claude-permission" || stalls[0].Line != "Do you want to proceed?" {
		t.Errorf("want one stall event for the lead, claude-permission \"Do you want to proceed?\"; got:\n%s", eventLines(stalls))
	}

	answers := w.answer("lead", panes["lead"], "Do you want to proceed?", "y")
	tr := w.waitRequest("the command's tool_result", fakeapi.Request.IsToolResult)
	if res := tr.LastUser().ToolResults()[0]; res.IsError {
		t.Errorf("the command's tool_result is an error: %q", res.Text)
	}
	poll(t, wait, "the marker file", func() (bool, string) {
		b, err := os.ReadFile(marker)
		return err == nil && strings.TrimSpace(string(b)) == "hi", fmt.Sprintf("%q %v", b, err)
	})
	w.waitScreens("the lead back at its input box with the answer", map[string]string{"lead": panes["lead"]}, func(_, s string) bool {
		_, ok := inputBox(s)
		return ok && strings.Contains(s, done)
	})
	w.waitCleared("lead", "claude-permission")

	evs = w.events()
	if stalls := stallsOf(evs, "stall", "lead"); len(stalls) != 1 {
		t.Errorf("want exactly one stall event for the lead; got %d:\n%s", len(stalls), eventLines(stalls))
	}
	if n := len(stallsOf(evs, "stall-cleared", "lead")); n != 1 {
		t.Errorf("%d stall-cleared events for the lead, want 1", n)
	}
	if n := len(stallsOf(evs, "answer", "lead")); n != answers {
		t.Errorf("%d answer events for the lead, want %d", n, answers)
	}
	if t.Failed() {
		t.Logf("events:\n%s", eventLines(evs))
	}
}

// selectedLine reports whether a menu on screen has option selected ("❯ option").
func selectedLine(screen, option string) bool {
	for _, ln := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(ln), "❯") && strings.Contains(ln, option) {
			return true
		}
	}
	return false
}

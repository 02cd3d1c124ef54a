package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// top is `teamctl top` in a terminal of the test's own: a pane of its own
// tmux server, whose screen the test reads and whose keys it types.
type top struct {
	w    *world
	pane string
}

const topSocket = "top-viewer"

// startTop runs `teamctl top --team T` in a 160x45 pane.
func (w *world) startTop() *top {
	w.t.Helper()
	out, err := w.e.Tmux(topSocket, "new-session", "-d", "-s", "v", "-x", "160", "-y", "45", "-c", w.e.Dir, "-P", "-F", "#{pane_id}", w.e.Bin, "top", "--team", w.team)
	if err != nil {
		w.t.Fatalf("start top: %v %s", err, out)
	}
	return &top{w: w, pane: strings.TrimSpace(out)}
}

func (v *top) screen() string {
	out, _ := v.w.e.Tmux(topSocket, "capture-pane", "-p", "-t", v.pane)
	return out
}

func (v *top) waitFor(what string, cond func(screen string) bool) string {
	v.w.t.Helper()
	var s string
	poll(v.w.t, wait, "top to show "+what, func() (bool, string) {
		s = v.screen()
		return cond(s), s
	})
	return s
}

func (v *top) keys(keys ...string) {
	v.w.t.Helper()
	if out, err := v.w.e.Tmux(topSocket, append([]string{"send-keys", "-t", v.pane}, keys...)...); err != nil {
		v.w.t.Fatalf("send-keys %v to top: %v %s", keys, err, out)
	}
}

// topKeys is top's line of keys for a stalled member's dialog: "(1-4 choose ·
// y 1. Yes · n 4. No · enter 1. Yes · t attach)".
var topKeys = regexp.MustCompile(`\(1-\d choose · y (\d\. Yes) · n (\d\. No) · enter 1\. Yes`)

// TestPermissionDialogAnsweredNoAndYes: the real Claude Code asks (manual
// permission mode) to run a command that writes a file, three times. `teamctl
// answer lead n` and top's n each choose the dialog's own "No" — the command
// does not run, though "1. Yes" is selected, which is what `n Enter` used to
// choose — and top's y chooses "1. Yes", which runs it. Each answer event
// names the option; top shows the options it will choose.
func TestPermissionDialogAnsweredNoAndYes(t *testing.T) {
	t.Parallel()
	asks := map[string]string{
		"a": "Write marker A; token ANSWER-A-31f0.",
		"b": "Write marker B; token ANSWER-B-8c2e.",
		"c": "Write marker C; token ANSWER-C-5d17.",
		"d": "Write marker D; token ANSWER-D-a94b.",
	}
	var rules []fakeapi.Rule
	for _, k := range []string{"a", "b", "c", "d"} {
		rules = append(rules, fakeapi.Rule{When: fakeapi.LastUserContains(asks[k]), Reply: fakeapi.Always(fakeapi.Bash("echo "+k+" > marker-"+k+".txt", "Write marker "+k))})
	}
	// A turn after a refused command carries its tool_result too: the asks
	// are matched first.
	rules = append(rules, fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("Marker written."))})
	w := newWorld(t, "e2e-answer", true, fakeapi.Rules(rules...))
	w.e.MustRun("up", w.teamLayout(lead{prompt: asks["a"], permissionMode: "manual"}, quiet))
	pane := w.panes()["lead"]
	marker := func(k string) string { return filepath.Join(w.e.Work, "marker-"+k+".txt") }
	absent := func(k string) {
		t.Helper()
		if _, err := os.Stat(marker(k)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("marker-%s.txt exists (%v): the command ran", k, err)
		}
	}
	// back waits for the lead at its input box after a refused command,
	// the stall cleared.
	back := func(what string) {
		t.Helper()
		w.waitScreens("the lead back at its input box after "+what, map[string]string{"lead": pane}, func(_, s string) bool {
			_, ok := inputBox(s)
			return ok && !strings.Contains(s, "Do you want to proceed?")
		})
		w.waitCleared("lead", "claude-permission")
	}
	dialog := func(k string) {
		t.Helper()
		w.waitStalled("claude-permission", "lead")
		w.waitScreens("marker "+k+"'s dialog, \"1. Yes\" selected", map[string]string{"lead": pane}, func(_, s string) bool {
			return strings.Contains(s, "marker-"+k+".txt") && strings.Contains(s, "Do you want to proceed?") && selectedLine(s, "1. Yes")
		})
	}

	// A: `teamctl answer lead n`.
	dialog("a")
	w.answer("lead", pane, "Do you want to proceed?", "n")
	back("teamctl answer lead n")
	absent("a")

	// B: top's n. It shows the dialog's options and what y and n choose.
	w.e.MustRun("send", "lead", asks["b"], "--team", w.team)
	dialog("b")
	v := w.startTop()
	s := v.waitFor("the lead's options, with y and n", func(s string) bool { return topKeys.MatchString(s) && strings.Contains(s, "  1. Yes · 2.") })
	no := topKeys.FindStringSubmatch(s)[2]
	v.keys("n")
	v.waitFor(fmt.Sprintf("what n chose (%s)", no), func(s string) bool { return strings.Contains(s, fmt.Sprintf("chose %q for lead", no)) })
	back("top's n")
	absent("b")

	// C: top's y runs the command.
	w.e.MustRun("send", "lead", asks["c"], "--team", w.team)
	dialog("c")
	v.waitFor("the lead's options again", func(s string) bool { return topKeys.MatchString(s) && strings.Contains(s, "marker-c.txt") })
	v.keys("y")
	poll(t, wait, "marker C, written by the command y allowed", func() (bool, string) {
		b, err := os.ReadFile(marker("c"))
		return err == nil && strings.TrimSpace(string(b)) == "c", fmt.Sprintf("%q %v", b, err)
	})
	absent("a")
	absent("b")

	// D: top's digit of No (not n, not Enter) chooses it.
	w.e.MustRun("send", "lead", asks["d"], "--team", w.team)
	dialog("d")
	v.waitFor("the lead's options for marker D", func(s string) bool { return topKeys.MatchString(s) && strings.Contains(s, "marker-d.txt") })
	v.keys(no[:1])
	v.waitFor(fmt.Sprintf("what %s chose (%s)", no[:1], no), func(s string) bool {
		return strings.Contains(s, fmt.Sprintf("chose %q for lead (sent %s)", no, no[:1]))
	})
	back("top's " + no[:1])
	absent("d")

	// The answers, as events: the two Noes by their digit, then 1. Yes, then
	// No again (a repeated answer, when Claude Code dropped the first keys,
	// repeats its choice).
	var chosen []string
	for _, e := range stallsOf(w.events(), "answer", "lead") {
		if c := e.Option + " by " + strings.Join(e.Keys, " "); len(chosen) == 0 || chosen[len(chosen)-1] != c || c == no+" by "+no[:1] {
			chosen = append(chosen, c)
		}
	}
	if want := []string{no + " by " + no[:1], no + " by " + no[:1], "1. Yes by 1", no + " by " + no[:1]}; strings.Join(chosen, "; ") != strings.Join(want, "; ") {
		t.Errorf("answers chose %q, want %q", chosen, want)
	}
	if t.Failed() {
		t.Logf("top's screen:\n%s", v.screen())
	}
}

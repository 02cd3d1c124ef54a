package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// viewer is a terminal for `teamctl top`: a pane of a tmux server of the
// test's own (socket "viewer"), 80x24, whose screen the test reads and whose
// keys it types.
type viewer struct {
	t    *testing.T
	e    *testenv.Env
	pane string
}

const viewerSocket = "viewer"

func (v *viewer) screen() string {
	out, _ := v.e.Tmux(viewerSocket, "capture-pane", "-p", "-t", v.pane)
	return out
}

func (v *viewer) wait(what string, cond func(screen string) bool) {
	v.t.Helper()
	testenv.Eventually(v.t, 30*time.Second, what, func() (bool, string) {
		s := v.screen()
		return cond(s), s
	})
}

func (v *viewer) keys(keys ...string) {
	v.t.Helper()
	if out, err := v.e.Tmux(viewerSocket, append([]string{"send-keys", "-t", v.pane}, keys...)...); err != nil {
		v.t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

// selectRow moves top's cursor, a key at a time (j, or g from the last row),
// to the row match picks; each move is seen on the screen before the next,
// and rows re-sorting meanwhile only make it go round again.
func (v *viewer) selectRow(what string, match func(row string) bool) {
	v.t.Helper()
	selected := func(s string) string {
		for _, r := range tableRows(s) {
			if strings.HasPrefix(r, "> ") {
				return r
			}
		}
		return ""
	}
	who := func(row string) string { // its member (with its team, in the all view)
		f := strings.Fields(row)
		if len(f) < 3 {
			return row
		}
		return f[1] + " " + f[2]
	}
	for range 30 {
		s := v.screen()
		cur := selected(s)
		if cur != "" && match(cur) {
			return
		}
		rows := tableRows(s)
		key := "j"
		if len(rows) > 0 && strings.HasPrefix(rows[len(rows)-1], "> ") {
			key = "g"
		}
		v.keys(key)
		v.wait("the cursor off "+who(cur), func(s string) bool { c := selected(s); return c != "" && who(c) != who(cur) })
	}
	v.t.Fatalf("no row of %s selected in top:\n%s", what, v.screen())
}

// flags are the terminal modes tmux keeps for the pane (the alternate screen,
// the cursor, the keypad, the mouse, …) and its title.
func (v *viewer) flags() string {
	out, _ := v.e.Tmux(viewerSocket, "display-message", "-p", "-t", v.pane,
		"alt=#{alternate_on} cursor=#{cursor_flag} keypad=#{keypad_flag}/#{keypad_cursor_flag} mouse=#{mouse_any_flag}/#{mouse_button_flag}/#{mouse_sgr_flag} insert=#{insert_flag} origin=#{origin_flag} wrap=#{wrap_flag} title=#{pane_title}")
	return strings.TrimSpace(out)
}

// tableRows are the member rows of top's screen.
func tableRows(screen string) []string {
	lines := strings.Split(screen, "\n")
	var rows []string
	for i, l := range lines {
		if !strings.Contains(l, "MEMBER") || !strings.Contains(l, "STATE") {
			continue
		}
		for _, r := range lines[i+1:] {
			if strings.HasPrefix(r, "──") || strings.TrimSpace(r) == "" {
				break
			}
			rows = append(rows, r)
		}
		break
	}
	return rows
}

// TestTopCockpit runs `teamctl top` in a real terminal (a tmux pane of its own
// server, 80x24) on a team of stand-ins: it shows every member; a member
// asking `Overwrite? (y/n)` rises to the top as stalled and y answers it; a
// teammate's permission request shows its tool and command and a approves
// it (Claude Code's permission_response in its mailbox, the command run); t
// attaches to the member's pane and detaching comes back to the table; q
// leaves the terminal as it was.
func TestTopCockpit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: cockpit
watchdog: {quiet: 300ms}
members:
  - name: worker
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "work:1s,ask"}
  - name: granted
    env: {TEAMCTL_STANDIN_SCRIPT: "work:5s,bash:touch granted.txt"}
`))
	st, _ := readState(t, e, "cockpit")

	// The terminal: a shell that says hello, records the tty's modes, waits
	// for the go, runs top, and records the modes again.
	fifo := filepath.Join(e.Dir, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`printf 'BEFORE-TOP\n'; stty -g > before.stty; read go < %q; %q top --team cockpit; echo "TOP-EXIT=$?"; stty -g > after.stty; exec cat`, fifo, e.Bin)
	out, err := e.Tmux(viewerSocket, "new-session", "-d", "-s", "v", "-x", "80", "-y", "24", "-c", e.Dir, "-P", "-F", "#{pane_id}", "sh", "-c", script)
	if err != nil {
		t.Fatalf("start the viewer: %v %s", err, out)
	}
	v := &viewer{t: t, e: e, pane: strings.TrimSpace(out)}
	v.wait("the shell's hello", func(s string) bool { return strings.Contains(s, "BEFORE-TOP") })
	before := v.flags()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()

	// Every member is shown.
	v.wait("every member in the table", func(s string) bool {
		rows := strings.Join(tableRows(s), "\n")
		for _, name := range []string{"lead", "worker", "asker", "granted"} {
			if !strings.Contains(rows, " "+name+" ") {
				return false
			}
		}
		return true
	})

	// asker rises to the top, stalled at its question; y answers it.
	v.wait("asker first, stalled at its question", func(s string) bool {
		rows := tableRows(s)
		return len(rows) > 0 && strings.Contains(rows[0], " asker ") && strings.Contains(rows[0], "stalled") &&
			strings.Contains(rows[0], `"Overwrite? (y/n)"`)
	})
	v.keys("k", "k", "k", "k", "k") // to the first row
	v.wait("asker selected", func(s string) bool { return strings.HasPrefix(tableRows(s)[0], "> asker ") })
	v.keys("y")
	asker := memberPane(t, e, "cockpit", "asker")
	waitScreen(t, e, "teamctl-cockpit", asker, "answered: y")
	// Answered, asker sorts lower; the cursor stays on the first row (the
	// next to wait), as k9s and lazygit keep theirs, not going with asker.
	// (granted, starting to wait, may rise above it after: then the cursor
	// goes with whoever it is on, as ever.)
	v.wait("the cursor left on another row, asker answered and moved down", func(s string) bool {
		rows := tableRows(s)
		return len(rows) == 4 && !strings.Contains(rows[0], " asker ") &&
			slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, "> ") }) &&
			!slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, "> asker ") })
	})
	v.selectRow("asker", func(r string) bool { return strings.Contains(r, " asker ") })
	v.wait("asker's screen with its answer in the detail", func(s string) bool { return strings.Contains(s, "│ answered: y") })
	testenv.Eventually(t, 20*time.Second, "the answer in the team's events", func() (bool, string) {
		evs := events(t, e, "cockpit")
		return countEvents(evs, "asker", "answer") == 1, fmt.Sprintf("%+v", evs)
	})

	// granted's permission request: tool and command shown; a approves it.
	v.wait("granted first, waiting for approval of Bash: touch granted.txt", func(s string) bool {
		rows := tableRows(s)
		return len(rows) > 0 && strings.Contains(rows[0], " granted ") && strings.Contains(rows[0], "waiting-approval") &&
			strings.Contains(rows[0], "Bash: touch granted.txt")
	})
	v.keys("k", "k", "k", "k", "k")
	v.wait("granted selected, its request in the detail", func(s string) bool {
		return strings.HasPrefix(tableRows(s)[0], "> granted ") && strings.Contains(s, "asks to run Bash: touch granted.txt")
	})
	v.keys("a")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "granted.json")
	testenv.Eventually(t, 20*time.Second, "a permission_response in granted's mailbox", func() (bool, string) {
		b, _ := os.ReadFile(inbox)
		var msgs []struct{ From, Text string }
		json.Unmarshal(b, &msgs)
		for _, m := range msgs {
			var p struct{ Type, Subtype string }
			if json.Unmarshal([]byte(m.Text), &p) == nil && p.Type == "permission_response" && p.Subtype == "success" && m.From == "team-lead" {
				return true, ""
			}
		}
		return false, string(b)
	})
	testenv.Eventually(t, 20*time.Second, "the approved command to run", func() (bool, string) {
		_, err := os.Stat(filepath.Join(e.Work, "granted.txt"))
		return err == nil, fmt.Sprint(err)
	})
	if evs := events(t, e, "cockpit"); countEvents(evs, "granted", "permission-answer") != 1 {
		t.Errorf("no permission-answer event for granted: %+v", evs)
	}

	// t attaches to granted's pane (approved, it moved down: selected again,
	// once the table shows it no longer waiting, since the cursor stays on the
	// first row when the member on it stops waiting and sorts lower);
	// detaching comes back to the table.
	v.wait("granted no longer waiting", func(s string) bool {
		return slices.ContainsFunc(tableRows(s), func(r string) bool {
			return strings.Contains(r, " granted ") && !strings.Contains(r, "waiting-approval")
		})
	})
	v.selectRow("granted", func(r string) bool { return strings.Contains(r, " granted ") })
	v.keys("t")
	v.wait("the team's panes in the terminal", func(s string) bool {
		return strings.Contains(s, "Claude Code (stand-in) · granted") && !strings.Contains(s, "MEMBER")
	})
	active, _ := e.Tmux("teamctl-cockpit", "display-message", "-p", "#{pane_id}")
	if want := memberPane(t, e, "cockpit", "granted"); strings.TrimSpace(active) != want {
		t.Errorf("attached to pane %s, want granted's %s", strings.TrimSpace(active), want)
	}
	v.keys("C-b", "d")
	v.wait("the table again after detaching", func(s string) bool {
		return strings.Contains(s, "MEMBER") && strings.Contains(s, "> granted ") && strings.Contains(s, "back from granted")
	})

	// q leaves the terminal as it was.
	v.keys("q")
	v.wait("top's exit", func(s string) bool { return strings.Contains(s, "TOP-EXIT=0") })
	s := v.screen()
	if !strings.Contains(s, "BEFORE-TOP") || strings.Contains(s, "MEMBER") {
		t.Errorf("the screen after q is not the one before top:\n%s", s)
	}
	t.Logf("terminal modes before top: %s", before)
	if after := v.flags(); after != before {
		t.Errorf("terminal modes after q: %s, before: %s", after, before)
	}
	b1, _ := os.ReadFile(filepath.Join(e.Dir, "before.stty"))
	b2, _ := os.ReadFile(filepath.Join(e.Dir, "after.stty"))
	if len(b1) == 0 || string(b1) != string(b2) {
		t.Errorf("tty settings after top (%q) differ from before (%q)", b2, b1)
	}
}

// TestTopRefusesWithoutATerminal: piped, top says to use status -w.
func TestTopRefusesWithoutATerminal(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r := e.Run("top", "--team", "nothere")
	if r.Code == 0 || !strings.Contains(r.Stderr, "needs a terminal") || !strings.Contains(r.Stderr, "teamctl status -w") {
		t.Errorf("top without a terminal: exit %d\n%s", r.Code, r.Stderr)
	}
}

func memberPane(t *testing.T, e *testenv.Env, team, name string) string {
	t.Helper()
	for _, m := range getStatus(t, e, team).Members {
		if m.Name == name {
			return m.Pane
		}
	}
	t.Fatalf("no member %s", name)
	return ""
}

// TestTopShowsAllTeams: with two teams up and none named, top shows every
// member of both in one list, with its team, and the second team's member
// stalled at its question first; y answers it in its own team; a team that
// comes up while top runs appears, one brought down goes; v shows the
// selected member's team alone.
func TestTopShowsAllTeams(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "alpha.yaml", `team: topalpha
members:
  - name: worker
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
`))
	e.MustRun("up", standInLayout(e, "beta.yaml", `team: topbeta
watchdog: {quiet: 300ms}
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "ask"}
`))
	script := fmt.Sprintf(`%q top; echo "TOP-EXIT=$?"; exec cat`, e.Bin)
	out, err := e.Tmux(viewerSocket, "new-session", "-d", "-s", "v", "-x", "80", "-y", "24", "-c", e.Dir, "-P", "-F", "#{pane_id}", "sh", "-c", script)
	if err != nil {
		t.Fatalf("start the viewer: %v %s", err, out)
	}
	v := &viewer{t: t, e: e, pane: strings.TrimSpace(out)}
	hasRow := func(rows []string, team, member string) bool {
		for _, r := range rows {
			if strings.Contains(r, " "+team+" ") && strings.Contains(r, " "+member+" ") {
				return true
			}
		}
		return false
	}

	v.wait("both teams' members in one list, topbeta's asker first, stalled at its question", func(s string) bool {
		rows := tableRows(s)
		return strings.Contains(s, "all teams (2 up)") && len(rows) == 4 &&
			hasRow(rows, "topalpha", "lead") && hasRow(rows, "topalpha", "worker") && hasRow(rows, "topbeta", "lead") &&
			strings.Contains(rows[0], " topbeta ") && strings.Contains(rows[0], " asker ") &&
			strings.Contains(rows[0], "stalled") && strings.Contains(rows[0], `"Overwrite? (y/n)"`)
	})
	v.keys("g") // the first row
	v.wait("asker selected, its pane in the detail", func(s string) bool {
		return strings.HasPrefix(tableRows(s)[0], "> topbeta ") && strings.Contains(s, "topbeta/asker · pane") &&
			strings.Contains(s, "│ Overwrite? (y/n)")
	})
	v.keys("y")
	waitScreen(t, e, "teamctl-topbeta", memberPane(t, e, "topbeta", "asker"), "answered: y")
	testenv.Eventually(t, 20*time.Second, "the answer in topbeta's events", func() (bool, string) {
		evs := events(t, e, "topbeta")
		return countEvents(evs, "asker", "answer") == 1, fmt.Sprintf("%+v", evs)
	})
	if evs := events(t, e, "topalpha"); countEvents(evs, "asker", "answer") != 0 {
		t.Errorf("the answer landed in topalpha's events: %+v", evs)
	}

	// A team up while top runs appears; one brought down goes.
	e.MustRun("up", standInLayout(e, "gamma.yaml", "team: topgamma\n"))
	v.wait("topgamma's lead in the list", func(s string) bool {
		return strings.Contains(s, "all teams (3 up)") && hasRow(tableRows(s), "topgamma", "lead")
	})
	e.MustRun("down", "--team", "topalpha", "--now")
	v.wait("topalpha gone from the list", func(s string) bool {
		return strings.Contains(s, "all teams (2 up)") && !strings.Contains(strings.Join(tableRows(s), "\n"), "topalpha")
	})

	// v: the selected member's team alone (asker's, selected again: answered,
	// it moved down while the cursor stayed on the first row), and back.
	v.selectRow("topbeta's asker", func(r string) bool { return strings.Contains(r, " topbeta ") && strings.Contains(r, " asker ") })
	v.keys("v")
	v.wait("topbeta alone", func(s string) bool {
		rows := tableRows(s)
		return strings.Contains(s, "team topbeta (") && len(rows) == 2 && !strings.Contains(s, "topgamma") && strings.Contains(s, "> asker ")
	})
	v.keys("v")
	v.wait("all teams again", func(s string) bool {
		return strings.Contains(s, "all teams (2 up)") && hasRow(tableRows(s), "topgamma", "lead")
	})
	v.keys("q")
	v.wait("top's exit", func(s string) bool { return strings.Contains(s, "TOP-EXIT=0") })
}

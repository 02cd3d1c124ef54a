package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// statusRow is member's row of `teamctl status`.
func statusRow(t *testing.T, e *testenv.Env, team, member string) string {
	t.Helper()
	for _, l := range strings.Split(e.MustRun("status", "--team", team).Stdout, "\n") {
		if strings.HasPrefix(l, member+" ") {
			return l
		}
	}
	return ""
}

// endFifo makes the fifo a member reads before it exits, so that it ends
// only once its last words are on its screen: a program that exits the
// instant it has printed may leave them unread in its terminal.
func endFifo(t *testing.T, e *testenv.Env) string {
	t.Helper()
	p := filepath.Join(e.Work, "end")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// endOnceSaid lets member end (through fifo) once LAST-WORDS-XYZ is on its
// pane's screen, and returns its status from before.
func endOnceSaid(t *testing.T, e *testenv.Env, team, name, fifo string) memberStatus {
	t.Helper()
	m := waitMember(t, e, team, name, time.Minute, func(m memberStatus) bool { return live(m.State) })
	waitScreen(t, e, "teamctl-"+team, m.Pane, "LAST-WORDS-XYZ")
	if err := os.WriteFile(fifo, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWhyItEndedIsShown: a process member that says its last words and
// exits (restart: never) is exited, and status says what it said last in
// DETAIL, status --json has its last lines (its own, not tmux's "Pane is
// dead"), and `logs -n 5` prints them; once the team is down, logs prints
// the words the supervisor kept, and status still has them.
func TestWhyItEndedIsShown(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	end := endFifo(t, e)
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: words
lead: {}
members:
  - name: m
    command: [sh, -c, "echo first words; echo LAST-WORDS-XYZ; read x < %s; exit 3"]
    restart: never
`, end)))
	endOnceSaid(t, e, "words", "m", end)
	m := waitMember(t, e, "words", "m", time.Minute, func(m memberStatus) bool { return m.State == "exited" })
	if !slices.Equal(m.LastLines, []string{"first words", "LAST-WORDS-XYZ"}) {
		t.Errorf("status --json last_lines %q, want the member's two lines", m.LastLines)
	}
	// tmux may call the pane dead a moment before it has reaped the program
	// and knows its exit status: the row says "exited (3)" once it does.
	testenv.Eventually(t, time.Minute, "status to show m exited (3) with its last line in DETAIL", func() (bool, string) {
		row := statusRow(t, e, "words", "m")
		return regexp.MustCompile(`exited \(3\) .*last: "LAST-WORDS-XYZ"`).MatchString(row), row
	})
	out := e.MustRun("logs", "m", "-n", "5", "--team", "words").Stdout
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 5 || !strings.Contains(out, "first words\nLAST-WORDS-XYZ\n") {
		t.Errorf("logs m -n 5:\n%s", out)
	}
	testenv.Eventually(t, time.Minute, "the supervisor to keep m's last words", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "words", "logs", "m.last.json"))
		return err == nil && strings.Contains(string(b), "LAST-WORDS-XYZ"), string(b)
	})
	// The team down, its panes gone: the kept words are what there is.
	e.MustRun("down", "--team", "words")
	out = e.MustRun("logs", "m", "--team", "words").Stdout
	if !regexp.MustCompile(`^--- last run \(exit 3, ended [^)]+\) ---\nfirst words\nLAST-WORDS-XYZ\n$`).MatchString(out) {
		t.Errorf("logs m of the team down:\n%s", out)
	}
	if m := member(statusOf(t, e, "words"), "m"); !slices.Equal(m.LastLines, []string{"first words", "LAST-WORDS-XYZ"}) {
		t.Errorf("status --json of the team down: last_lines %q", m.LastLines)
	}
}

// TestLastWordsOutliveARestart: a member that ends and is restarted by the
// supervisor in a new pane has its dead run's last words in `logs` all the
// same, first, under "--- previous run (exit 3, …) ---", then its new run's
// lines; a running member has no last_lines in status.
func TestLastWordsOutliveARestart(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "TEAMCTL_RESTART_BACKOFF=10ms")
	ok := filepath.Join(e.Work, "ran-once")
	end := endFifo(t, e)
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: again
lead: {}
members:
  - name: m
    command: [sh, -c, "if [ -f %[1]s ]; then echo second run; exec sleep 1000; fi; echo first words; echo LAST-WORDS-XYZ; touch %[1]s; read x < %[2]s; exit 3"]
`, ok, end)))
	first := endOnceSaid(t, e, "again", "m", end)
	m := waitMember(t, e, "again", "m", time.Minute, func(m memberStatus) bool {
		return m.State == "running" && m.Restarts == 1 && m.Pane != first.Pane
	})
	if len(m.LastLines) != 0 {
		t.Errorf("a running member has last_lines %q", m.LastLines)
	}
	var out string
	testenv.Eventually(t, time.Minute, "the new run's line in logs", func() (bool, string) {
		out = e.MustRun("logs", "m", "--team", "again").Stdout
		return strings.Contains(out, "second run"), out
	})
	want := regexp.MustCompile(`(?s)^--- previous run \(exit 3, ended [^)]+\) ---\nfirst words\nLAST-WORDS-XYZ\n--- this run \(started [^)]+\) ---\n.*second run\n$`)
	if !want.MatchString(out) {
		t.Errorf("logs m after its restart:\n%s", out)
	}
}

// TestLogsFollowPrintsNewLines: `logs -f` of a running member prints its
// last lines, then a line it prints later (once, after them), until Ctrl-C.
func TestLogsFollowPrintsNewLines(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	fifo := filepath.Join(e.Work, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: tail
lead: {}
members:
  - name: m
    command: [sh, -c, "echo started; read x < %s; echo NEW-LINE-AFTER; exec sleep 1000"]
`, fifo)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "logs", "m", "-f", "--team", "tail")
	cmd.Env = e.Environ()
	var out, errOut safeBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	testenv.Eventually(t, time.Minute, "the member's first line", func() (bool, string) {
		return out.String() == "started\n", out.String() + errOut.String()
	})
	// The member reads the fifo once logs -f runs: its next line is new.
	if err := os.WriteFile(fifo, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the line printed after logs -f started", func() (bool, string) {
		return out.String() == "started\nNEW-LINE-AFTER\n", out.String() + errOut.String()
	})
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("logs -f after Ctrl-C: %v\n%s", err, errOut.String())
	}
}

// TestARelaunchByAPersonKeepsTheLastWords: `teamctl restart` of a running
// member ends it and replaces its pane; what the old pane showed is its
// previous run in `logs`.
func TestARelaunchByAPersonKeepsTheLastWords(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: byhand
lead: {}
members:
  - name: m
    command: [sh, -c, "echo run at $$; exec sleep 1000"]
`))
	before := waitMember(t, e, "byhand", "m", time.Minute, func(m memberStatus) bool { return m.State == "running" })
	line := fmt.Sprintf("run at %d", before.PID)
	testenv.Eventually(t, time.Minute, "m's line", func() (bool, string) {
		out := e.MustRun("logs", "m", "--team", "byhand").Stdout
		return out == line+"\n", out
	})
	e.MustRun("restart", "m", "--team", "byhand")
	after := waitMember(t, e, "byhand", "m", time.Minute, func(m memberStatus) bool { return m.State == "running" && m.PID != before.PID })
	var out string
	testenv.Eventually(t, time.Minute, "the new run's line in logs", func() (bool, string) {
		out = e.MustRun("logs", "m", "--team", "byhand").Stdout
		return strings.Contains(out, fmt.Sprintf("run at %d", after.PID)), out
	})
	// How it ended is the supervisor's to say, if it saw the pane die in time.
	want := regexp.MustCompile(`(?s)^--- previous run \((signal 15, )?ended [^)]+\) ---\n` + line + `\n--- this run \(started [^)]+\) ---\nrun at [0-9]+\n$`)
	if !want.MatchString(out) {
		t.Errorf("logs m after teamctl restart:\n%s", out)
	}
}

// TestLogsEveryMember (issue 31: logs without a member was a usage error):
// every member's lines, each after its name and " | " (padded to the
// longest name), member after member in the layout's order; with -f, then
// the lines each pane prints, interleaved as they come, until Ctrl-C.
// Piped, no colour.
func TestLogsEveryMember(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	fifo := func(name string) string {
		p := filepath.Join(e.Work, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	web, db := fifo("web-go"), fifo("db-go")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: every
lead: {}
members:
  - name: web
    command: [sh, -c, "echo web-started; read x < %s; echo WEB-NEW; exec sleep 1000"]
  - name: db
    command: [sh, -c, "echo db-started; read x < %s; echo DB-NEW; exec sleep 1000"]
`, web, db)))
	testenv.Eventually(t, time.Minute, "both members' first lines in logs", func() (bool, string) {
		out := e.MustRun("logs").Stdout
		w, d := strings.Index(out, "\nweb  | web-started\n"), strings.Index(out, "\ndb   | db-started\n")
		return w > 0 && d > w && strings.HasPrefix(out, "lead | ") && !strings.Contains(out, "\x1b"), out
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "logs", "-f")
	cmd.Env, cmd.Dir = e.Environ(), e.Work
	var out, errOut safeBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	testenv.Eventually(t, time.Minute, "both histories", func() (bool, string) {
		s := out.String()
		return strings.Contains(s, "\ndb   | db-started\n"), s + errOut.String()
	})
	// Read once logs -f runs: the lines after are new, db's first.
	for _, f := range []string{db, web} {
		if err := os.WriteFile(f, []byte("\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, time.Minute, "both new lines, each after its member's name", func() (bool, string) {
		s := out.String()
		return strings.Contains(s, "\ndb   | DB-NEW\n") && strings.Contains(s, "\nweb  | WEB-NEW\n") &&
			strings.Index(s, "DB-NEW") > strings.Index(s, "db   | db-started"), s + errOut.String()
	})
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("logs -f after Ctrl-C: %v\n%s", err, errOut.String())
	}
	if n := strings.Count(out.String(), "web-started"); n != 1 {
		t.Errorf("web's history printed %d times:\n%s", n, out.String())
	}
}

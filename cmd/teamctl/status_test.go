package main_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// runInPTY runs teamctl with args on a terminal cols wide, waits for it to exit
// 0 and for until to have reached the terminal, and returns what the terminal
// showed, with "\n" line ends.
func runInPTY(t *testing.T, e *testenv.Env, cols uint16, until string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = append(e.Environ(), "TERM=xterm-256color")
	cmd.Dir = e.Work
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &ptyOutput{}
	go bytesCopy(out, f)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("teamctl %s on a terminal: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	// What it wrote may still be on its way through the terminal.
	testenv.Eventually(t, time.Minute, until+" on the terminal", func() (bool, string) {
		return strings.Contains(out.String(), until), out.String()
	})
	return strings.ReplaceAll(out.String(), "\r\n", "\n")
}

// checkStatusTable checks the members' table in what a terminal showed:
// coloured, each column's values starting where its heading starts, no line
// wider than cols.
func checkStatusTable(t *testing.T, what, out string, cols int) {
	t.Helper()
	if !strings.Contains(out, "\x1b[32mrunning\x1b[0m") {
		t.Errorf("%s: no coloured state:\n%q", what, out)
	}
	plain := ansi.Strip(out)
	lines := strings.Split(plain, "\n")
	head := -1
	for i, ln := range lines {
		if strings.HasPrefix(ln, "MEMBER ") {
			head = i
		}
		if w := ansi.StringWidth(ln); w > cols {
			t.Errorf("%s: a line of %d columns on a terminal of %d: %q", what, w, cols, ln)
		}
	}
	if head < 0 {
		t.Fatalf("%s: no table:\n%s", what, plain)
	}
	var starts []int
	for _, h := range []string{"MEMBER", "ROLE", "PANE", "PID", "STATE", "UPTIME", "CWD"} {
		starts = append(starts, ansi.StringWidth(lines[head][:strings.Index(lines[head], h)]))
	}
	rows := 0
	for _, ln := range lines[head+1:] {
		if ln == "" {
			break
		}
		rows++
		for i, at := range starts {
			if (i > 0 && ansi.Cut(ln, at-2, at) != "  ") || strings.HasPrefix(ansi.Cut(ln, at, at+1), " ") {
				t.Errorf("%s: a value of column %d does not start at %d: %q\n%s", what, i, at, ln, plain)
			}
		}
	}
	if rows != 2 {
		t.Errorf("%s: %d rows, want 2:\n%s", what, rows, plain)
	}
}

// TestStatusTableFitsTheTerminal: on an 80-column terminal, up's table and
// status's line their columns up under the headings although STATE is
// coloured, show a long cwd under the home folder as ~/…/last, and wrap no
// line; piped, the cwd is whole and nothing is coloured.
func TestStatusTableFitsTheTerminal(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	dir := filepath.Join(e.Home, "src", "a-rather-long-folder-name", "and-another-long-one", "services", "auth-api")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	layout := standInLayout(e, "team.yaml", "team: fit\nroot: "+dir+"\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"600\"]\n")
	// Trusted, so that up has no note on the trust dialog: this test is
	// about the table (a note is prose, and wraps as prose does).
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true}}})
	if err := os.MkdirAll(e.ClaudeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ClaudeDir, ".claude.json"), trust, 0o600); err != nil {
		t.Fatal(err)
	}

	up := runInPTY(t, e, 80, "teamctl attach lead", "up", layout)
	checkStatusTable(t, "up", up, 80)
	st := runInPTY(t, e, 80, "web ", "status", "--team", "fit")
	checkStatusTable(t, "status", st, 80)
	for what, out := range map[string]string{"up": up, "status": st} {
		if !strings.Contains(out, "~/…/auth-api") || strings.Contains(out, "a-rather-long-folder-name") {
			t.Errorf("%s: the cwd is not shown as ~/…/auth-api:\n%s", what, ansi.Strip(out))
		}
	}

	piped := e.MustRun("status", "--team", "fit").Stdout
	if !strings.Contains(piped, dir) || strings.Contains(piped, "\x1b[") {
		t.Errorf("piped status is cut or coloured:\n%q", piped)
	}
}

package main_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestRunPassesEndOfInputOn: input piped into `teamctl run` reaches the command,
// and so does its end, as with script(1): a command that reads to the end of
// its input ends, and run exits with its code. On a line left open too.
func TestRunPassesEndOfInputOn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, c := range []struct {
		name, input string
		argv        []string
		want        []string
	}{
		{"read loop", "a\nb\n", []string{"sh", "-c", `while read l; do echo "line $l"; done; echo done`},
			[]string{"line a\r\n", "line b\r\n", "done\r\n"}},
		{"cat", "hi\n", []string{"cat"}, []string{"hi\r\nhi\r\n"}},                       // the terminal's echo, then cat's
		{"last line open", "a\nb", []string{"tr", "a-z", "A-Z"}, []string{"A\r\n", "B"}}, // tr's (the echo is lower-case, and may come between)
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Generous: the command ends at once when end of input reaches it.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, e.Bin, append([]string{"run", "--"}, c.argv...)...)
			cmd.Env = e.Environ()
			cmd.Stdin = strings.NewReader(c.input)
			var stdout, stderr safeBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("run %q with %q piped in did not end; it printed %q", c.argv, c.input, stdout.String())
			}
			if err != nil {
				t.Fatalf("run %q: %v\nstdout %q\nstderr %q", c.argv, err, stdout.String(), stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("run %q with %q piped in: no %q in %q", c.argv, c.input, w, stdout.String())
				}
			}
		})
	}
}

// TestRunPassesATerminalsEndOfInputOn: in a terminal, ^D at the start of a line
// ends the command's read as if typed to it directly, and the terminal is read
// on after it.
func TestRunPassesATerminalsEndOfInputOn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "run", "--", "sh", "-c", `cat; echo "first read ended"; cat; echo "second read ended"`)
	cmd.Env = e.Environ()
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &ptyOutput{}
	done := make(chan struct{})
	go func() { bytesCopy(out, f); close(done) }()
	io.WriteString(f, "one\n")
	testenv.Eventually(t, time.Minute, "the first line back from cat", func() (bool, string) {
		return strings.Count(out.String(), "one") == 3, out.String() // two echoes and cat's
	})
	f.Write([]byte{0x04})
	testenv.Eventually(t, time.Minute, "the first cat to end", func() (bool, string) {
		return strings.Contains(out.String(), "first read ended"), out.String()
	})
	io.WriteString(f, "two\n\x04")
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		<-done
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatalf("run did not end; terminal:\n%s", out.String())
	}
	if s := out.String(); strings.Count(s, "two") != 3 || !strings.Contains(s, "second read ended") {
		t.Errorf("terminal:\n%s", s)
	}
}

// TestRunNotifyCommandGetsTheLayoutsTeam: with --layout, the notify command runs
// with the layout's team in TEAMCTL_TEAM, and as TEAMCTL_MEMBER the member run
// runs in (a member of that team) or else "run".
func TestRunNotifyCommandGetsTheLayoutsTeam(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	notified := filepath.Join(e.Work, "notified.txt")
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: nightly
watchdog:
  quiet: 300ms
  notify:
    command: [sh, -c, 'echo "$TEAMCTL_TEAM|$TEAMCTL_MEMBER|$TEAMCTL_PATTERN|$TEAMCTL_LINE" >> %s']
`, notified))
	script := e.WriteFile("ask.sh", "printf 'Continue? [y/n] '\nread answer\necho \"got $answer\"\n")
	for i, c := range []struct {
		env  []string
		want string
	}{
		{nil, "nightly|run|yes-no-brackets|Continue? [y/n]"},
		{[]string{"TEAMCTL_TEAM=nightly", "TEAMCTL_MEMBER=builder"}, "nightly|builder|yes-no-brackets|Continue? [y/n]"},
		{[]string{"TEAMCTL_TEAM=other", "TEAMCTL_MEMBER=builder"}, "nightly|run|yes-no-brackets|Continue? [y/n]"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, e.Bin, "run", "--layout", layout, "--", "sh", script)
		cmd.Env = append(e.Environ(), c.env...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr safeBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "the notify command", func() (bool, string) {
			b, _ := os.ReadFile(notified)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			return len(lines) == i+1 && lines[i] == c.want, fmt.Sprintf("%q\nstderr %q", b, stderr.String())
		})
		io.WriteString(stdin, "y\n")
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run: %v\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
		}
		if !strings.Contains(stdout.String(), "got y") {
			t.Errorf("the answer did not reach the command: %q", stdout.String())
		}
	}
}

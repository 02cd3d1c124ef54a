package tmux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestNewLines: what a capture holds that the one before did not, for a
// pane that prints (its window filling, then scrolling; the same line again
// and again) and for one that redraws its screen.
func TestNewLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name            string
		prev, cur, want []string
	}{
		{"nothing before", nil, []string{"a", "b"}, []string{"a", "b"}},
		{"nothing new", []string{"a", "b"}, []string{"a", "b"}, nil},
		{"the window fills", []string{"a", "b"}, []string{"a", "b", "c", "d"}, []string{"c", "d"}},
		{"the window scrolls", []string{"a", "b", "c"}, []string{"c", "d", "e"}, []string{"d", "e"}},
		{"the same line again", []string{"x", "tick", "tick"}, []string{"x", "tick", "tick", "tick"}, []string{"tick"}},
		{"the same line again, scrolled", []string{"tick", "tick", "tick"}, []string{"tick", "tick", "tick"}, nil},
		{"blank lines in between", []string{"a"}, []string{"a", "", "", "b"}, []string{"", "", "b"}},
		{"a line that grew", []string{"a", "building…"}, []string{"a", "building… done", "ok"}, []string{"building… done", "ok"}},
		{"a redrawn screen: its changed lines", []string{"╭─", "│ spinner 1s", "│ > ", "╰─"}, []string{"╭─", "hello there", "│ spinner 2s", "│ > ", "╰─"},
			[]string{"hello there", "│ spinner 2s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := NewLines(c.prev, c.cur); !slices.Equal(got, c.want) {
				t.Errorf("NewLines(%q, %q) = %q, want %q", c.prev, c.cur, got, c.want)
			}
		})
	}
}

// TestTrimCapture: the screen's trailing spaces and blank rows go, those
// above tmux's dead notice too; WithoutDeadNotice leaves the program's lines.
func TestTrimCapture(t *testing.T) {
	t.Parallel()
	got := TrimCapture([]string{"a  ", "", "b ", "", "", "Pane is dead (status 3, now)", "", ""})
	if want := []string{"a", "", "b", "Pane is dead (status 3, now)"}; !slices.Equal(got, want) {
		t.Errorf("TrimCapture = %q, want %q", got, want)
	}
	if got := WithoutDeadNotice(got); !slices.Equal(got, []string{"a", "", "b"}) {
		t.Errorf("WithoutDeadNotice = %q", got)
	}
	if got := WithoutDeadNotice([]string{"still running"}); !slices.Equal(got, []string{"still running"}) {
		t.Errorf("WithoutDeadNotice of a live pane = %q", got)
	}
}

// histServer starts a private server whose session "t" runs argv in %0
// (remain-on-exit on), on the test's own socket.
func histServer(t *testing.T, socket string, argv ...string) (*Server, context.Context) {
	t.Helper()
	s := testServer(t, socket)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	var b Batch
	b.Add("set-option", "-g", "remain-on-exit", "on")
	b.Add(append([]string{"new-session", "-d", "-s", "t", "-x", "80", "-y", "10"}, argv...)...)
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}

// TestCaptureHistoryOfADeadPane: a dead pane's history reads back as its
// program printed it, beyond its screen, without the blank rows, and ends
// with its last words once WithoutDeadNotice takes tmux's "Pane is dead"
// line off (when tmux wrote one yet).
func TestCaptureHistoryOfADeadPane(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "end")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// It ends when told, once its lines are on screen: a program that exits
	// the instant it has printed may leave them unread in its terminal.
	s, ctx := histServer(t, "hist", "sh", "-c", `i=1; while [ $i -le 300 ]; do echo "line $i   "; i=$((i+1)); done; echo LAST-WORDS; read x < "$0"; exit 3`, fifo)
	testenv.Eventually(t, time.Minute, "the pane's last line", func() (bool, string) {
		out, _ := s.CapturePane(ctx, "%0")
		return strings.Contains(out, "LAST-WORDS"), out
	})
	if err := os.WriteFile(fifo, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the pane to die", func() (bool, string) {
		out, _ := s.Run(ctx, "display-message", "-p", "-t", "%0", "#{pane_dead}")
		return strings.TrimSpace(out) == "1", out
	})
	lines, err := s.CaptureHistory(ctx, "%0", HistoryLines)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lines); n < HistoryLines || n > HistoryLines+10 {
		t.Errorf("%d lines, want the %d of history and the screen's", n, HistoryLines)
	}
	// tmux writes its notice once it has reaped the program: then, or later
	// (tmux 3.3a may not reap it until another child of its exits).
	if last := lines[len(lines)-1]; last != "LAST-WORDS" && !strings.HasPrefix(last, "Pane is dead (status 3") {
		t.Errorf("last line %q, want the program's or tmux's notice", last)
	}
	words := WithoutDeadNotice(lines)
	if got := words[len(words)-3:]; !slices.Equal(got, []string{"line 299", "line 300", "LAST-WORDS"}) {
		t.Errorf("the last words %q", got)
	}
}

// TestFollowPanePrintsWhatComesThenEnds: a followed pane's last lines, then
// each line it prints later, once (woken by its output, not by a clock), and
// its end: FollowPane returns once the program ended.
func TestFollowPanePrintsWhatComesThenEnds(t *testing.T) {
	t.Parallel()
	// One fifo a step: a writer still closing one the shell opens again
	// would end its next read at once.
	dir := t.TempDir()
	var fifos []string
	for i := range 3 {
		fifos = append(fifos, filepath.Join(dir, fmt.Sprint("go", i)))
		if err := syscall.Mkfifo(fifos[i], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	next := func() {
		t.Helper()
		if err := os.WriteFile(fifos[0], []byte("\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		fifos = fifos[1:]
	}
	s, ctx := histServer(t, "follow", append([]string{"sh", "-c",
		`echo zero; echo one; echo two; read x < "$0"; echo three; echo three; read x < "$1"; echo four; read x < "$2"; exit 0`}, fifos...)...)
	testenv.Eventually(t, time.Minute, "the pane's first lines", func() (bool, string) {
		out, _ := s.CapturePane(ctx, "%0")
		return strings.Contains(out, "two"), out
	})
	var mu sync.Mutex
	var got []string
	printed := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
	done := make(chan error, 1)
	go func() {
		done <- s.FollowPane(ctx, "=t", "%0", 2, func(lines []string) {
			mu.Lock()
			got = append(got, lines...)
			mu.Unlock()
		})
	}()
	want := func(what string, lines ...string) {
		t.Helper()
		testenv.Eventually(t, time.Minute, what, func() (bool, string) {
			return slices.Equal(printed(), lines), fmt.Sprintf("%q", printed())
		})
	}
	want("the last 2 lines", "one", "two")
	next()
	want("the lines printed since", "one", "two", "three", "three")
	next()
	want("the next line", "one", "two", "three", "three", "four")
	next() // it ends
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("FollowPane did not return once the pane's program ended")
	}
	if lines := printed(); !slices.Equal(lines, []string{"one", "two", "three", "three", "four"}) {
		t.Errorf("printed %q once the pane's program ended, want no more lines (tmux's notice is not its)", lines)
	}
}

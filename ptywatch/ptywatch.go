// Package ptywatch runs one command in a pseudo-terminal, passes its output
// through, and reports when it sits at a prompt: the stall watchdog for a
// background shell command, without tmux.
package ptywatch

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/stallwatch"
)

// Options tune Run.
type Options struct {
	Quiet    time.Duration // output quiet this long makes the command a candidate (default 2s)
	Detector *stallwatch.Detector
	Stdin    io.Reader // passed to the command's terminal; nil for none
	Stdout   io.Writer // the command's output goes here
	Cols     uint16    // terminal size (default 120x40)
	Rows     uint16
	// OnStall is called once per stall (a new matched line) from Run's goroutine.
	OnStall func(stallwatch.Verdict)
}

// Run runs argv and returns its exit code (128+signal when a signal ended it).
func Run(ctx context.Context, argv []string, o Options) (int, error) {
	if o.Quiet <= 0 {
		o.Quiet = 2 * time.Second
	}
	if o.Detector == nil {
		o.Detector = stallwatch.New(stallwatch.DefaultPatterns())
	}
	if o.Cols == 0 || o.Rows == 0 {
		o.Cols, o.Rows = 120, 40
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: o.Cols, Rows: o.Rows})
	if err != nil {
		return -1, err
	}
	defer f.Close()

	var mu sync.Mutex
	stream := o.Detector.NewStream()
	output := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				o.Stdout.Write(buf[:n])
				mu.Lock()
				stream.Write(buf[:n])
				mu.Unlock()
				select {
				case output <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return // EIO once the command and its children have closed the terminal
			}
		}
	}()
	if o.Stdin != nil {
		go io.Copy(f, o.Stdin)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	timer := time.NewTimer(o.Quiet)
	defer timer.Stop()
	reported := ""
	for {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-output:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(o.Quiet)
		case <-timer.C:
			mu.Lock()
			v := stream.Check()
			mu.Unlock()
			if v.Kind == stallwatch.Stalled && v.Line != reported {
				reported = v.Line
				if o.OnStall != nil {
					o.OnStall(v)
				}
			} else if v.Kind != stallwatch.Stalled {
				reported = ""
			}
		case err := <-waited:
			select {
			case <-readDone:
			case <-time.After(time.Second): // a child kept the terminal open
			}
			return exitCode(err)
		}
	}
}

func exitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return -1, err
}

// TerminalSize is the size of the terminal on f, if it is one.
func TerminalSize(f *os.File) (cols, rows uint16) {
	ws, err := pty.GetsizeFull(f)
	if err != nil {
		return 0, 0
	}
	return ws.Cols, ws.Rows
}

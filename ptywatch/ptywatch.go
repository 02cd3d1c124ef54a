// Package ptywatch runs one command in a pseudo-terminal, passes its output
// through, and reports when it sits at a prompt: the stall watchdog for a
// background shell command, without tmux; Watch adds a layout's watchdog
// and its notify command (`teamctl run`).
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
	Stdin    io.Reader // typed into the command's terminal, then its end of file (see feed); nil for none
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
	f, tty, err := pty.Open()
	if err != nil {
		return -1, err
	}
	defer f.Close()
	// The slave stays open here only to see whether the command has read its
	// input before the end of input is sent (feed); it is closed once that is
	// done or the command has exited, so that reading f then ends.
	slave := &slave{f: tty}
	defer slave.close()
	if err := pty.Setsize(f, &pty.Winsize{Cols: o.Cols, Rows: o.Rows}); err != nil {
		return -1, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		return -1, err
	}

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
		go feed(f, slave, o.Stdin)
	} else {
		slave.close()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	timer := time.NewTimer(o.Quiet)
	defer timer.Stop()
	reported := ""
	cancelled := ctx.Done()
	for {
		select {
		case <-cancelled:
			cmd.Process.Signal(syscall.SIGTERM)
			cancelled = nil // once; the command's exit ends the loop
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
			slave.close()
			// The rest of the output, until the terminal closes; a child that
			// keeps it open is given up on after a second without output.
			drained := time.NewTimer(time.Second)
			defer drained.Stop()
			for {
				select {
				case <-readDone:
					return exitCode(err)
				case <-output:
					drained.Reset(time.Second)
				case <-drained.C:
					return exitCode(err)
				}
			}
		}
	}
}

// ctrlD is the usual end-of-file character.
const ctrlD = 0x04

// slave is the terminal's slave side as Run holds it, closed once.
type slave struct {
	mu sync.Mutex
	f  *os.File // nil once closed
}

func (s *slave) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// waitRead waits until the command has read the input typed so far, or has not
// read any of it for two seconds (a command may never read its input).
func (s *slave) waitRead() {
	const patience = 2 * time.Second
	last, since := -1, time.Now()
	for {
		s.mu.Lock()
		n, ok := 0, false
		if s.f != nil {
			n, ok = inputPending(s.f)
		}
		s.mu.Unlock()
		if !ok || n == 0 {
			return
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > patience {
			return
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: the kernel has no wait for this
	}
}

// feed types in into the terminal on master. When in ends, the terminal's
// end-of-file character follows, once the command has read what came before it
// (script(1) does the same: a program that turns canonical mode off, as a
// full-screen one does, would otherwise get it as a NUL byte), and twice when
// the input did not end its line, since the first only hands over that line.
// A terminal is read on after its end of input: teamctl does not put it in raw
// mode, so a ^D typed at the start of a line reaches it as one, and goes on.
func feed(master *os.File, s *slave, in io.Reader) {
	term := false
	if f, ok := in.(*os.File); ok {
		_, err := pty.GetsizeFull(f)
		term = err == nil
	}
	buf := make([]byte, 32<<10)
	lineOpen := false
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if _, err := master.Write(buf[:n]); err != nil {
				return // the command's terminal is gone
			}
			lineOpen = buf[n-1] != '\n'
		}
		if err == nil {
			continue
		}
		if err != io.EOF {
			return
		}
		times := 1
		if lineOpen {
			times = 2
		}
		for range times {
			s.waitRead()
			if _, err := master.Write([]byte{eofChar(master)}); err != nil {
				return
			}
		}
		lineOpen = false
		if !term {
			s.close()
			return
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

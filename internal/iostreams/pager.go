package iostreams

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// StartPager sends what is written to Out through a pager until StopPager,
// as git does: only when Out is a terminal; the pager is $PAGER, run by the
// shell as git runs it (it is the user's own command line), else `less -R`;
// none when PAGER is "" or "cat". less gets LESS=FRX unless LESS is set
// (it quits at once on a text that fits the screen, and leaves it there),
// and lv LV=-c, as git gives them.
func (s *IO) StartPager() error {
	out, ok := s.Out.(*os.File)
	if !s.tty || !ok || s.pager != nil {
		return nil
	}
	cmdline, set := os.LookupEnv("PAGER")
	if !set {
		cmdline = "less -R"
	}
	if strings.TrimSpace(cmdline) == "" || strings.TrimSpace(cmdline) == "cat" {
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", cmdline)
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	cmd.Stdout, cmd.Stderr = out, s.ErrOut
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("pager %q: %w", cmdline, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pager %q: %w", cmdline, err)
	}
	s.pager = &pager{cmd: cmd, in: in, out: s.Out}
	s.Out = pagerWriter{in}
	return nil
}

// StopPager ends the pager StartPager started, once it has shown everything
// and the person has quit it; Out is the terminal again.
func (s *IO) StopPager() {
	if s.pager == nil {
		return
	}
	s.pager.in.Close()
	s.pager.cmd.Wait() // how the pager ended is the person's business
	s.Out, s.pager = s.pager.out, nil
}

// pager is a running pager and the Out it stands in for.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Writer
}

// pagerWriter writes to the pager; once the person has quit it, what is
// left is dropped without an error, as git drops it.
type pagerWriter struct{ w io.Writer }

func (p pagerWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return len(b), nil
	}
	return n, err
}

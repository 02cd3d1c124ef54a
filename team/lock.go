package team

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/state"
)

// startSupervisor starts `exe supervise --team T --log-to-file` detached, in
// its own session, and returns its pid. The supervisor writes its log itself
// (supervisor.log, rotated: state.OpenLog); its raw stdout and stderr (a panic, an
// error before its log is open) go to supervisor.out, emptied at each start
// so it stays small. It waits until the new process holds the team's
// supervisor lock.
func startSupervisor(exe, team string) (int, error) {
	dir, err := state.EnsureDir(team)
	if err != nil {
		return 0, err
	}
	outPath := filepath.Join(dir, "supervisor.out")
	outf, err := safefile.Open(outPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("supervisor output: %w", err)
	}
	defer outf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, "supervise", "--team", team, "--log-to-file")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, outf, outf
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start supervisor: %w", err)
	}
	pid := cmd.Process.Pid
	// Return once it holds the lock, so a `status` right after `up` sees it.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(10 * time.Second)
	for {
		if p, _ := state.SupervisorPID(team); p == pid {
			return pid, nil
		}
		select {
		case err := <-exited:
			return 0, fmt.Errorf("the supervisor exited at once (%v)%s", err, tailOf(outPath, filepath.Join(dir, "supervisor.log")))
		case <-deadline:
			return pid, fmt.Errorf("the supervisor (pid %d) has not started within 10s; see %s", pid, filepath.Join(dir, "supervisor.log"))
		case <-time.After(5 * time.Millisecond): // poll interval while it starts
		}
	}
}

// tailOf is the end of a supervisor's output, to show why it exited, or where
// to look when it said nothing.
func tailOf(outPath, logPath string) string {
	f, err := safefile.Open(outPath, os.O_RDONLY, 0)
	if err != nil {
		return "; see " + logPath
	}
	defer f.Close()
	const most = 2048
	if fi, err := f.Stat(); err == nil && fi.Size() > most {
		f.Seek(fi.Size()-most, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, most))
	if s := strings.TrimSpace(string(b)); s != "" {
		return ": " + s
	}
	return "; see " + logPath
}

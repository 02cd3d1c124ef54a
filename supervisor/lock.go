package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/state"
)

// ErrSupervised means another supervisor already holds the team.
var ErrSupervised = errors.New("the team already has a supervisor")

// supervisorLock is held (flock) by the team's one supervisor for its whole
// life; it holds the supervisor's pid as text. The kernel drops the lock when
// the process dies, even by kill -9, so there is never a stale one.
type supervisorLock struct{ f *os.File }

func lockPath(team string) (string, error) {
	dir, err := state.Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "supervisor.lock"), nil
}

func takeSupervisorLock(team string) (*supervisorLock, error) {
	if _, err := state.EnsureDir(team); err != nil {
		return nil, err
	}
	p, err := lockPath(team)
	if err != nil {
		return nil, err
	}
	f, err := safefile.Open(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := SupervisorPID(team)
			return nil, fmt.Errorf("%w (pid %d)", ErrSupervised, pid)
		}
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &supervisorLock{f: f}, nil
}

func (l *supervisorLock) release() { l.f.Close() }

// SupervisorPID returns the pid of the team's running supervisor, or 0 when
// none runs (the lock is free).
func SupervisorPID(team string) (int, error) {
	p, err := lockPath(team)
	if err != nil {
		return 0, err
	}
	// Never through a link: the pid read here is what StopSupervisor signals.
	f, err := safefile.Open(p, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, nil // nobody holds it
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if pid == 0 {
		pid = -1 // held, pid not written yet
	}
	return pid, nil
}

// StopSupervisor ends the team's supervisor (SIGTERM, then SIGKILL after
// timeout) and waits until its lock is free, so nothing restarts a member while
// the team is taken down.
func StopSupervisor(ctx context.Context, team string, timeout time.Duration) error {
	pid, err := SupervisorPID(team)
	if err != nil || pid == 0 {
		return err
	}
	if pid > 0 {
		proc.End(ctx, []proc.Target{proc.Process(pid)}, timeout)
	}
	// The kernel drops the flock with the process: wait for that (a holder
	// that has not written its pid yet gets the same time to finish starting).
	if !proc.Until(ctx, 5*time.Second, func() bool { p, _ := SupervisorPID(team); return p == 0 }) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the team's supervisor (pid %d) does not stop", pid)
	}
	return nil
}

// StartSupervisor starts `exe supervise --team T --log-to-file` detached, in
// its own session, and returns its pid. The supervisor writes its log itself
// (supervisor.log, rotated: OpenLog); its raw stdout and stderr (a panic, an
// error before its log is open) go to supervisor.out, emptied at each start
// so it stays small. It waits until the new process holds the team's
// supervisor lock.
func StartSupervisor(exe, team string) (int, error) {
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
		if p, _ := SupervisorPID(team); p == pid {
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

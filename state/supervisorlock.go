package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/safefile"
)

// ErrSupervised means another supervisor already holds the team.
var ErrSupervised = errors.New("the team already has a supervisor")

// SupervisorLock is held (flock) by the team's one supervisor for its whole
// life; it holds the supervisor's pid as text. The kernel drops the lock when
// the process dies, even by kill -9, so there is never a stale one.
type SupervisorLock struct{ f *os.File }

func lockPath(team string) (string, error) {
	dir, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "supervisor.lock"), nil
}

// TakeSupervisorLock takes the team's supervisor lock and writes this
// process's pid in it, or says who holds it (ErrSupervised).
func TakeSupervisorLock(team string) (*SupervisorLock, error) {
	l, err := TakeSupervisorLockFor(team)
	if err != nil {
		return nil, err
	}
	l.SetPID(os.Getpid())
	return l, nil
}

// TakeSupervisorLockFor takes the team's supervisor lock for a supervisor
// this process is about to start (up): its File is handed to it
// (AdoptSupervisorLock), its pid written with SetPID once known. The lock
// is one open file's: it stays held while the supervisor keeps its copy,
// however this process ends, so `status` right after `up` sees the
// supervisor without up waiting for it to take the lock itself.
func TakeSupervisorLockFor(team string) (*SupervisorLock, error) {
	if _, err := EnsureDir(team); err != nil {
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
	if err := flockExclusive(f); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := SupervisorPID(team)
			return nil, fmt.Errorf("%w (pid %d)", ErrSupervised, pid)
		}
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	return &SupervisorLock{f: f}, nil
}

// SetPID writes pid in the lock, as the supervisor's that holds it.
func (l *SupervisorLock) SetPID(pid int) {
	l.f.Truncate(0)
	l.f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
}

// File is the lock's open file, for the supervisor started to inherit.
func (l *SupervisorLock) File() *os.File { return l.f }

// AdoptSupervisorLock takes over the team's supervisor lock from f, an
// open file inherited from the process that took it for this one
// (TakeSupervisorLockFor): f must be the team's lock file, not another
// (checked by identity), and the lock must be f's or nobody's; this
// process's pid is written in it.
func AdoptSupervisorLock(team string, f *os.File) (*SupervisorLock, error) {
	p, err := lockPath(team)
	if err != nil {
		return nil, err
	}
	want, err := os.Lstat(p)
	if err != nil {
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	got, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	if !want.Mode().IsRegular() || !os.SameFile(want, got) {
		return nil, fmt.Errorf("supervisor lock: the file handed over is not %s", p)
	}
	// Held by f's open file already, flock succeeds at once; held by
	// another, it is someone else's supervisor.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := SupervisorPID(team)
			return nil, fmt.Errorf("%w (pid %d)", ErrSupervised, pid)
		}
		return nil, fmt.Errorf("supervisor lock: %w", err)
	}
	l := &SupervisorLock{f: f}
	l.SetPID(os.Getpid())
	return l, nil
}

// probeGrace is how long TakeSupervisorLock keeps trying a lock it finds
// held: SupervisorPID probes with a shared lock held for microseconds (`up`
// polls it every 5 ms while the supervisor starts, `status` reads it), and a
// probe must not make a starting supervisor think another one runs (seen: "the
// team already has a supervisor (pid 0)"). A supervisor holds it for its life.
const probeGrace = 250 * time.Millisecond

// flockExclusive takes f's flock exclusively without blocking on a holder,
// trying again over probeGrace while a probe may be what holds it.
func flockExclusive(f *os.File) error {
	deadline := time.Now().Add(probeGrace)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Millisecond) // a probe's lock lasts microseconds
	}
}

// Release lets the lock go (as the process's end would).
func (l *SupervisorLock) Release() { l.f.Close() }

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

// Ender is the stop loop that StopSupervisor ends a supervisor with:
// proc.End, or a test's fake.
type Ender func(ctx context.Context, targets []proc.Target, grace time.Duration) proc.EndResult

// StopSupervisor ends the team's supervisor with end (SIGTERM, then SIGKILL
// after timeout) and waits until its lock is free, so nothing restarts a
// member while the team is taken down. It is here, with the lock that says
// which process the supervisor is; state itself signals nothing but through
// end.
func StopSupervisor(ctx context.Context, team string, timeout time.Duration, end Ender) error {
	pid, err := SupervisorPID(team)
	if err != nil || pid == 0 {
		return err
	}
	if pid > 0 {
		end(ctx, []proc.Target{proc.Process(pid)}, timeout)
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

package team

import (
	"errors"
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
	cmd, outPath, err := runSupervisor(exe, team, nil)
	if err != nil {
		return 0, err
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
			return 0, fmt.Errorf("the supervisor exited at once (%v)%s", err, tailOf(outPath, logPath(outPath)))
		case <-deadline:
			return pid, fmt.Errorf("the supervisor (pid %d) has not started within 10s; see %s", pid, logPath(outPath))
		case <-time.After(5 * time.Millisecond): // poll interval while it starts
		}
	}
}

// runSupervisor starts `exe supervise --team T --log-to-file` detached, in
// its own session, its output to supervisor.out; with handover, with up's
// Handover as its files 3, 4, 5 (and its flag).
func runSupervisor(exe, team string, handover []*os.File) (*exec.Cmd, string, error) {
	dir, err := state.EnsureDir(team)
	if err != nil {
		return nil, "", err
	}
	outPath := filepath.Join(dir, "supervisor.out")
	outf, err := safefile.Open(outPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("supervisor output: %w", err)
	}
	defer outf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, "", err
	}
	defer devnull.Close()
	args := []string{"supervise", "--team", team, "--log-to-file"}
	if handover != nil {
		args = append(args, state.HandoverFlag)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, outf, outf
	cmd.ExtraFiles = handover
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start supervisor: %w", err)
	}
	return cmd, outPath, nil
}

func logPath(outPath string) string { return filepath.Join(filepath.Dir(outPath), "supervisor.log") }

// pendingSupervisor is a supervisor up started before making the team
// (state.Handover): it holds the team's supervisor lock and waits for go.
type pendingSupervisor struct {
	pid     int
	outPath string
	hand    *state.Handing
	exited  chan error
}

// spawnSupervisor starts the team's supervisor with the team's lock, taken
// here and handed to it, to wait for go (pendingSupervisor.begin) or be
// let go (abandon). Nil when a supervisor holds the lock already.
func spawnSupervisor(exe, team string) (*pendingSupervisor, error) {
	lock, err := state.TakeSupervisorLockFor(team)
	if errors.Is(err, state.ErrSupervised) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer lock.Release() // the supervisor's copy holds it from here on
	hand, err := state.HandOver(lock)
	if err != nil {
		return nil, err
	}
	cmd, outPath, err := runSupervisor(exe, team, hand.Files())
	if err != nil {
		hand.Abandon()
		return nil, err
	}
	hand.Started()
	lock.SetPID(cmd.Process.Pid)
	p := &pendingSupervisor{pid: cmd.Process.Pid, outPath: outPath, hand: hand, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	return p, nil
}

// begin waits for the supervisor to say it is ready (it holds the lock, its
// log is open) and tells it to go: the team is made. An error says why it
// did not start, with what it printed.
func (p *pendingSupervisor) begin() (int, error) {
	ready := make(chan bool, 1)
	go func() { ready <- p.hand.Ready() }()
	select {
	case ok := <-ready:
		if !ok {
			// It closed its end unsaid: it is ending.
			var err error
			select {
			case err = <-p.exited:
			case <-time.After(10 * time.Second):
			}
			return 0, fmt.Errorf("the supervisor exited at once (%v)%s", err, tailOf(p.outPath, logPath(p.outPath)))
		}
	case <-time.After(10 * time.Second):
		p.abandon()
		return p.pid, fmt.Errorf("the supervisor (pid %d) has not started within 10s; see %s", p.pid, logPath(p.outPath))
	}
	if err := p.hand.Go(); err != nil {
		return 0, fmt.Errorf("the supervisor: %w", err)
	}
	return p.pid, nil
}

// abandon lets the supervisor go unstarted, unless it was told to go: up
// made nothing to supervise. Its pipe closed, it ends by itself, with the
// lock.
func (p *pendingSupervisor) abandon() {
	if p != nil {
		p.hand.Abandon()
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

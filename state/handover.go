package state

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Handover is what `up` hands the supervisor it starts, as its files 3, 4
// and 5 (HandoverFlag): the team's supervisor lock, taken by up
// (TakeSupervisorLockFor); the read end of a pipe on which up says "go"
// once the team is made, or which it closes unsaid when it made nothing to
// supervise; and the write end of one on which the supervisor says "ready"
// once it holds the lock, or which closes unsaid when it failed to start.
// So up starts its supervisor before it makes the panes, the supervisor's
// own start (a process, its runtime, its checks) running beside tmux's work,
// and waits at the end only for what is not done yet. Up's end is a
// Handing.
type Handover struct {
	Lock, Go, Ready *os.File
}

// HandoverFlag is the flag of `teamctl supervise` that says its files 3, 4
// and 5 are a Handover.
const HandoverFlag = "--handover"

// The words said on the Handover's pipes.
const (
	wordReady = "ready"
	wordGo    = "go"
)

// InheritedHandover is the Handover this process was started with. Its
// files are closed on exec from here on: a program the supervisor runs (its
// tmux client, git, ssh's master) that kept the lock's file would hold the
// lock after the supervisor is gone.
func InheritedHandover() *Handover {
	for fd := 3; fd <= 5; fd++ {
		syscall.CloseOnExec(fd)
	}
	return &Handover{Lock: os.NewFile(3, "supervisor.lock"), Go: os.NewFile(4, "go"), Ready: os.NewFile(5, "ready")}
}

// Begin is the supervisor's side: it says ready (its lock held) and waits
// for up's go; false when up made nothing to supervise (or is gone).
func (h *Handover) Begin() (bool, error) {
	_, err := h.Ready.WriteString(wordReady + "\n")
	h.Ready.Close()
	if err != nil {
		return false, fmt.Errorf("tell up the supervisor is ready: %w", err)
	}
	return readWord(h.Go) == wordGo, nil
}

// Handing is up's end of a Handover: the files the supervisor is started
// with (Files), its ready awaited (Ready), its go said (Go) or not
// (Abandon).
type Handing struct {
	theirs        Handover // the supervisor's ends, closed here once it started
	goW, readyR   *os.File
	said, started bool
}

// HandOver makes the pipes of a Handover of lock, taken for the supervisor
// about to start.
func HandOver(lock *SupervisorLock) (*Handing, error) {
	goR, goW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the supervisor's handover: %w", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		goR.Close()
		goW.Close()
		return nil, fmt.Errorf("the supervisor's handover: %w", err)
	}
	return &Handing{theirs: Handover{Lock: lock.File(), Go: goR, Ready: readyW}, goW: goW, readyR: readyR}, nil
}

// Files are the supervisor's files 3, 4 and 5, in order (exec.Cmd's
// ExtraFiles).
func (h *Handing) Files() []*os.File { return []*os.File{h.theirs.Lock, h.theirs.Go, h.theirs.Ready} }

// Started closes this process's copies of the supervisor's pipe ends (the
// lock is its SupervisorLock's to release): from then on its exit closes
// them, and Ready sees it.
func (h *Handing) Started() {
	h.started = true
	h.theirs.Go.Close()
	h.theirs.Ready.Close()
}

// Ready waits for the supervisor's ready: false when it closed its end
// unsaid (it is ending). Call it once, after Started.
func (h *Handing) Ready() bool { return readWord(h.readyR) == wordReady }

// Go tells the supervisor the team is made.
func (h *Handing) Go() error {
	if h.said {
		return nil
	}
	h.said = true
	_, err := h.goW.WriteString(wordGo + "\n")
	if cerr := h.goW.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abandon lets the supervisor go unstarted (it ends, and the lock with it),
// unless it was told to go; the pipes are closed.
func (h *Handing) Abandon() {
	if !h.started {
		h.Started()
	}
	h.readyR.Close() // closed already once read: no matter
	if !h.said {
		h.said = true
		h.goW.Close()
	}
}

// readWord is the first line said on r ("" when it closed unsaid).
func readWord(r *os.File) string {
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	return strings.TrimSpace(line)
}

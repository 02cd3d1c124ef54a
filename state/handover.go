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
// and waits at the end only for what is not done yet.
type Handover struct {
	Lock, Go, Ready *os.File
}

// HandoverFlag is the flag of `teamctl supervise` that says its files 3, 4
// and 5 are a Handover.
const HandoverFlag = "--handover"

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
	_, err := h.Ready.WriteString("ready\n")
	h.Ready.Close()
	if err != nil {
		return false, fmt.Errorf("tell up the supervisor is ready: %w", err)
	}
	line, _ := bufio.NewReader(h.Go).ReadString('\n')
	h.Go.Close()
	return strings.TrimSpace(line) == "go", nil
}

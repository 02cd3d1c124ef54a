package proc

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStatNameWithParens(t *testing.T) {
	st, err := parseStat(42, "42 (a) b (c)) S 1 77 77 0 -1")
	if err != nil || st.State != 'S' || st.PPID != 1 || st.PGID != 77 {
		t.Fatalf("got %+v, %v", st, err)
	}
}

func TestGroupAliveFollowsARealGroup(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if !GroupAlive(pgid) {
		t.Fatal("group of a running sleep reported dead")
	}
	cmd.Process.Kill()
	// Not reaped yet: a zombie, which must not count as alive.
	deadline := time.Now().Add(time.Minute) // generous: a loaded machine is slow
	for st, _ := ReadStat(pgid); st.State != 'Z'; st, _ = ReadStat(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("killed sleep never became a zombie: %+v", st)
		}
		runtime.Gosched()
	}
	if GroupAlive(pgid) {
		t.Fatal("group whose only process is a zombie reported alive")
	}
	cmd.Wait()
	if GroupAlive(pgid) {
		t.Fatal("reaped group reported alive")
	}
}

func TestCmdlineAndEnviron(t *testing.T) {
	args, err := Cmdline(os.Getpid())
	if err != nil || len(args) == 0 {
		t.Fatalf("cmdline %v %v", args, err)
	}
	env, err := Environ(os.Getpid())
	if err != nil || env["PATH"] == "" {
		t.Fatalf("environ: %v", err)
	}
}

func TestTreeAndStartTime(t *testing.T) {
	// sh starts a sleep as its child: the tree of sh holds both.
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so the clean-up ends the sleep too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(time.Minute) // a process start: generous, a loaded machine is slow
	for len(Tree(cmd.Process.Pid)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("tree of sh: %v", Tree(cmd.Process.Pid))
		}
		time.Sleep(5 * time.Millisecond) // polling for the child to appear
	}
	if tr := Tree(cmd.Process.Pid); tr[0] != cmd.Process.Pid {
		t.Errorf("tree %v does not start at its root", tr)
	}
	if a, err := StartTime(cmd.Process.Pid); err != nil || strings.Trim(a, "0123456789") != "" || a == "" {
		t.Errorf("StartTime = %q, %v", a, err)
	}
	if len(Tree(1<<22+7)) != 0 {
		t.Error("tree of a missing pid is not empty")
	}
}

package proc

import (
	"context"
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

// TestZombieStatus: the exit status and the killing signal of an unreaped
// child are read from /proc while it is a zombie; anything else is not ok.
func TestZombieStatus(t *testing.T) {
	zombie := func(argv ...string) int {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		t.Cleanup(func() { cmd.Wait() })
		deadline := time.Now().Add(time.Minute)
		for {
			if st, err := ReadStat(pid); err == nil && st.State == 'Z' {
				return pid
			}
			if time.Now().After(deadline) {
				t.Fatalf("pid %d never became a zombie", pid)
			}
			time.Sleep(5 * time.Millisecond) // poll interval of a condition wait
		}
	}
	me := os.Getpid()
	code, sig, ok := ZombieStatus(zombie("sh", "-c", "exit 7"), me)
	if !ok || code == nil || *code != 7 || sig != 0 {
		t.Errorf("exit 7: code %v sig %d ok %v", code, sig, ok)
	}
	code, sig, ok = ZombieStatus(zombie("sh", "-c", "exit 0"), me)
	if !ok || code == nil || *code != 0 || sig != 0 {
		t.Errorf("exit 0: code %v sig %d ok %v", code, sig, ok)
	}
	code, sig, ok = ZombieStatus(zombie("sh", "-c", "kill -9 $$"), me)
	if !ok || code != nil || sig != 9 {
		t.Errorf("killed: code %v sig %d ok %v", code, sig, ok)
	}
	if _, _, ok := ZombieStatus(zombie("sh", "-c", "exit 3"), me+1); ok {
		t.Error("a zombie of another parent was read")
	}
	if _, _, ok := ZombieStatus(me, os.Getppid()); ok {
		t.Error("a living process was read as a zombie")
	}
}

// TestEndStopsProcessesAndGroups: End gives SIGTERM and the grace, then
// SIGKILL to what ignores it, for single processes and whole groups, and says
// which needed the SIGKILL.
func TestEndStopsProcessesAndGroups(t *testing.T) {
	start := func(script string, group bool) int {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go cmd.Wait() // reaped as soon as it goes
		return cmd.Process.Pid
	}
	polite := start("sleep 60", false)
	stubborn := start(`trap "" TERM; while :; do sleep 0.05; done`, false)
	group := start(`sleep 60 & sleep 60 & wait`, true)
	stubbornGroup := start(`trap "" TERM; (trap "" TERM; while :; do sleep 0.05; done) & wait`, true)
	if !Until(context.Background(), time.Minute, func() bool { return GroupAlive(group) && GroupAlive(stubbornGroup) }) {
		t.Fatal("the groups never started")
	}
	r := End(context.Background(), []Target{Process(polite), Process(stubborn), Group(group), Group(stubbornGroup)}, 300*time.Millisecond)
	if len(r.Terminated) != 2 || len(r.Killed) != 2 {
		t.Fatalf("terminated %v, killed %v", r.Terminated, r.Killed)
	}
	for _, k := range r.Killed {
		if k != Process(stubborn) && k != Group(stubbornGroup) {
			t.Errorf("%v needed SIGKILL", k)
		}
	}
	if Alive(polite) || Alive(stubborn) || GroupAlive(group) || GroupAlive(stubbornGroup) {
		t.Error("something outlived End")
	}
}

// TestGroupPastItsLeader: a group whose leader has exited (a zombie nobody
// reaped yet) is alive while a member lives on, and gone once that member is,
// though kill(-pgid, 0) still finds the zombie.
func TestGroupPastItsLeader(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pgid := cmd.Process.Pid
	if !Until(context.Background(), time.Minute, func() bool { st, _ := ReadStat(pgid); return st.State == 'Z' }) {
		t.Fatal("the leader never exited")
	}
	if gone := Wait(context.Background(), []Target{Group(pgid)}, 100*time.Millisecond); gone[Group(pgid)] {
		t.Fatal("a group with its sleep still running reported gone")
	}
	r := End(context.Background(), []Target{Group(pgid)}, time.Minute)
	if len(r.Terminated) != 1 || len(r.Killed) != 0 {
		t.Fatalf("terminated %v, killed %v", r.Terminated, r.Killed)
	}
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Fatalf("the zombie leader should still be there (unreaped): %v", err)
	}
	if GroupAlive(pgid) {
		t.Error("group of a zombie alone reported alive")
	}
}

// Every field a caller uses is read from its place in a whole line (Linux
// 6.x, 52 fields), counted after the command's last ')'.
func TestParseStatFields(t *testing.T) {
	line := "4242 (sh (x) y) Z 1 77 77 0 0 0 0 0 0 0 11 12 13 14 0 0 0 0 98765 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1792\n"
	st, err := parseStat(4242, line)
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{PID: 4242, State: 'Z', PPID: 1, PGID: 77, UTime: 11, STime: 12, CUTime: 13, CSTime: 14, StartTime: "98765", ExitCode: 1792, HasExit: true}
	if st != want {
		t.Errorf("got %+v\nwant %+v", st, want)
	}
	if st.Living() {
		t.Error("a zombie counted as living")
	}
	short, err := parseStat(42, "42 (a) S 1 77 77")
	if err != nil || short.StartTime != "" || short.HasExit || !short.Living() {
		t.Errorf("a short line: %+v, %v", short, err)
	}
}

package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// The supervisor StartSupervisor starts is this test binary playing one
// (fakeSupervisorEnv says how): it runs as `exe supervise --team T
// --log-to-file` would, so what is tested is what StartSupervisor runs, where
// and how, not the supervisor itself (package supervisor).

// fakeSupervisorEnv set makes this test binary a fake supervisor: "hold"
// writes its arguments to args.txt in its folder, takes the team's
// supervisor lock and runs until it is signalled (two minutes at most);
// "fail" says why on stderr and exits 3 at once.
const fakeSupervisorEnv = "TEAMCTL_TEST_FAKE_SUPERVISOR"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeSupervisorEnv); mode != "" {
		os.Exit(fakeSupervisor(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeSupervisor(mode string, args []string) int {
	if mode == "fail" {
		fmt.Fprintln(os.Stderr, "supervise: the layout file is gone")
		return 3
	}
	if err := os.WriteFile("args.txt", []byte(strings.Join(args, " ")), 0o600); err != nil {
		return 1
	}
	i := slices.Index(args, "--team")
	if i < 0 || i+1 >= len(args) {
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	if slices.Contains(args, state.HandoverFlag) {
		// As the real one: the lock up handed over adopted, then ready,
		// then up's go awaited.
		h := state.InheritedHandover()
		if _, err := state.AdoptSupervisorLock(args[i+1], h.Lock); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if ok, _ := h.Begin(); !ok {
			return 0
		}
		if err := os.WriteFile("went.txt", nil, 0o600); err != nil {
			return 1
		}
	} else if _, err := state.TakeSupervisorLock(args[i+1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// A hang guard: should the test die before it ends this process (its own
	// session, so nothing else would), it goes by itself.
	select {
	case <-sig:
	case <-time.After(2 * time.Minute):
	}
	return 0
}

// sessionOf is the session id of process pid (/proc/PID/stat's sixth field).
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command (second field) is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	sid, err := strconv.Atoi(fields[3]) // state, ppid, pgrp, session
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

// TestStartSupervisor: with none running, StartSupervisor runs `exe
// supervise --team T --log-to-file` in the team's state folder, in a session
// of its own (a closed terminal does not end it), and returns once it holds
// the team's supervisor lock, with its pid; with one running, it starts
// nothing and returns that one's pid; one that exits at once is an error
// with what it said.
func TestStartSupervisor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("none runs: one is started, detached, and holds the lock", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		t.Setenv(fakeSupervisorEnv, "hold")
		pid, started, err := f.open("alpha").StartSupervisor(exe)
		if pid > 0 {
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // the process this test started, by its pid
		}
		if err != nil || !started || pid <= 0 {
			t.Fatalf("start: pid %d, started %v, %v", pid, started, err)
		}
		if held, _ := state.SupervisorPID("alpha"); held != pid {
			t.Errorf("the lock is held by %d, want the started %d", held, pid)
		}
		dir, _ := state.Dir("alpha")
		if b, err := os.ReadFile(filepath.Join(dir, "args.txt")); err != nil || string(b) != "supervise --team alpha --log-to-file" {
			t.Errorf("run with %q (%v), want supervise --team alpha --log-to-file in %s", b, err, dir)
		}
		if sid := sessionOf(t, pid); sid != pid {
			t.Errorf("the supervisor is in session %d, want one of its own (%d)", sid, pid)
		}
		f.wantLog() // nothing asked of tmux, nothing ended
	})
	t.Run("one runs: nothing started, its pid returned", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		f.takeSupervisor("alpha")
		t.Setenv(fakeSupervisorEnv, "hold")
		pid, started, err := f.open("alpha").StartSupervisor(exe)
		if err != nil || started || pid != os.Getpid() {
			t.Errorf("start: pid %d, started %v, %v; want the running %d, not started", pid, started, err, os.Getpid())
		}
		dir, _ := state.Dir("alpha")
		if _, err := os.Stat(filepath.Join(dir, "args.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a second supervisor was run (%v)", err)
		}
	})
	t.Run("one that exits at once: an error with what it said", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		t.Setenv(fakeSupervisorEnv, "fail")
		pid, started, err := f.open("alpha").StartSupervisor(exe)
		want := "the supervisor exited at once (exit status 3): supervise: the layout file is gone"
		if err == nil || err.Error() != want || started || pid != 0 {
			t.Errorf("start: pid %d, started %v, %v; want %q", pid, started, err, want)
		}
	})
}

// TestStopSupervisor: StopSupervisor ends the team's supervisor (the one
// holding its lock, by its pid, with the grace given) and returns once the
// lock is free; with none running it ends nothing; one that does not end is
// never reported stopped.
func TestStopSupervisor(t *testing.T) {
	t.Run("one runs: ended, and gone once it returns", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		f.takeSupervisor("alpha")
		if err := f.open("alpha").StopSupervisor(f.ctx, 3*time.Second); err != nil {
			t.Fatal(err)
		}
		f.wantLog("end process supervisor (grace 3s)")
		if pid, _ := state.SupervisorPID("alpha"); pid != 0 {
			t.Errorf("supervisor %d still holds the lock", pid)
		}
	})
	t.Run("none runs: nothing ended", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		if err := f.open("alpha").StopSupervisor(f.ctx, 3*time.Second); err != nil {
			t.Fatal(err)
		}
		f.wantLog()
	})
	t.Run("one that does not end: not reported stopped", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		// This test holds the lock, but not as the fakes' supervisor: their
		// End does not let it go.
		l, err := state.TakeSupervisorLock("alpha")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		ctx, cancel := context.WithTimeout(f.ctx, 100*time.Millisecond)
		defer cancel()
		err = f.open("alpha").StopSupervisor(ctx, 3*time.Second)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stop: %v, want it still waiting when its time ran out", err)
		}
		f.wantLog("end process supervisor (grace 3s)")
		if testing.Short() {
			return
		}
		// Left its own time (5 s), it says so.
		err = f.open("alpha").StopSupervisor(f.ctx, 3*time.Second)
		if want := fmt.Sprintf("the team's supervisor (pid %d) does not stop", os.Getpid()); err == nil || err.Error() != want {
			t.Errorf("stop: %v, want %q", err, want)
		}
	})
}

// TestStartThenStopSupervisor: a supervisor StartSupervisor started is the
// one StopSupervisor ends, for real (SIGTERM to its pid), lock and all.
func TestStartThenStopSupervisor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	t.Setenv(fakeSupervisorEnv, "hold")
	tm, err := Open(f.ctx, "alpha", "") // the real world: real signals
	if err != nil {
		t.Fatal(err)
	}
	pid, started, err := tm.StartSupervisor(exe)
	if pid > 0 {
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // the process this test started, by its pid
	}
	if err != nil || !started {
		t.Fatalf("start: %d %v %v", pid, started, err)
	}
	ctx, cancel := context.WithTimeout(f.ctx, time.Minute) // a hang guard
	defer cancel()
	if err := tm.StopSupervisor(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if p, _ := tm.SupervisorPID(); p != 0 {
		t.Errorf("after stop, supervisor %d", p)
	}
	if !ended(pid) {
		t.Errorf("the supervisor %d is still there", pid)
	}
}

// ended says whether process pid has ended: it is gone, or a zombie its
// parent (here startSupervisor's wait) has not reaped yet.
func ended(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// TestSpawnSupervisor: up's supervisor is started before the team is made
// and holds the team's supervisor lock at once (up took it and handed it
// over), with its pid; it supervises only once told to go, and ends by
// itself, the lock with it, when up lets it go; one that fails to start is
// an error with what it said; with one running, none is started.
func TestSpawnSupervisor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spawn := func(t *testing.T) *pendingSupervisor {
		t.Helper()
		p, err := spawnSupervisor(exe, "alpha")
		if err != nil || p == nil {
			t.Fatalf("spawn: %v %v", p, err)
		}
		// The process this test started, by its pid.
		t.Cleanup(func() { syscall.Kill(p.pid, syscall.SIGKILL); <-p.exited })
		return p
	}
	went := func() bool {
		dir, _ := state.Dir("alpha")
		_, err := os.Stat(filepath.Join(dir, "went.txt"))
		return err == nil
	}
	t.Run("told to go", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		t.Setenv(fakeSupervisorEnv, "hold")
		p := spawn(t)
		if held, _ := state.SupervisorPID("alpha"); held != p.pid {
			t.Errorf("before go, the lock is held by %d, want the spawned %d", held, p.pid)
		}
		pid, err := p.begin()
		if err != nil || pid != p.pid {
			t.Fatalf("begin: %d %v, want %d", pid, err, p.pid)
		}
		dir, _ := state.Dir("alpha")
		if b, err := os.ReadFile(filepath.Join(dir, "args.txt")); err != nil || string(b) != "supervise --team alpha --log-to-file --handover" {
			t.Errorf("run with %q (%v)", b, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !went() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // polling the fake's file, with a deadline
		}
		if !went() {
			t.Error("the supervisor was not told to go")
		}
		if held, _ := state.SupervisorPID("alpha"); held != p.pid {
			t.Errorf("after go, the lock is held by %d, want %d", held, p.pid)
		}
	})
	t.Run("let go: it ends, the lock with it", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		t.Setenv(fakeSupervisorEnv, "hold")
		p := spawn(t)
		p.abandon()
		select {
		case err := <-p.exited:
			if err != nil {
				t.Errorf("it ended with %v", err)
			}
			p.exited <- err // for the cleanup
		case <-time.After(30 * time.Second):
			t.Fatal("it did not end")
		}
		if held, _ := state.SupervisorPID("alpha"); held != 0 || went() {
			t.Errorf("the lock is held by %d, went %v", held, went())
		}
	})
	t.Run("fails to start: an error with what it said", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		t.Setenv(fakeSupervisorEnv, "fail")
		p := spawn(t)
		_, err := p.begin()
		want := "the supervisor exited at once (exit status 3): supervise: the layout file is gone"
		if err == nil || err.Error() != want {
			t.Errorf("begin: %v, want %q", err, want)
		}
		p.exited <- nil // for the cleanup
	})
	t.Run("one runs: none started", func(t *testing.T) {
		f := newFakeWorld(t)
		f.up(f.layout("team.yaml", alpha))
		f.takeSupervisor("alpha")
		if p, err := spawnSupervisor(exe, "alpha"); p != nil || err != nil {
			t.Errorf("spawned %v %v", p, err)
		}
	})
}

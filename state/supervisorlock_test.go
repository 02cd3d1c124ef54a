package state

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
)

// TestSupervisorLockIsNotFooledByProbes: `status` and a starting `up` probe
// the lock (SupervisorPID) all the time; a supervisor taking it meanwhile gets
// it, and one taking it while another holds it is refused with the holder's
// pid.
func TestSupervisorLockIsNotFooledByProbes(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	const team = "probed"
	if _, err := EnsureDir(team); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					SupervisorPID(team)
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()

	for i := range 300 {
		l, err := TakeSupervisorLock(team)
		if err != nil {
			t.Fatalf("take %d, with nobody holding it, only probes: %v", i, err)
		}
		if pid, err := SupervisorPID(team); pid != os.Getpid() || err != nil {
			t.Fatalf("held: SupervisorPID says %d, %v", pid, err)
		}
		if i == 0 {
			if _, err := TakeSupervisorLock(team); !errors.Is(err, ErrSupervised) {
				t.Errorf("a second supervisor: %v", err)
			}
		}
		l.Release()
	}
}

// TestStopSupervisor: the holder of the lock is what the stop loop is given to
// end, with the timeout as its grace, and StopSupervisor returns once the
// lock is free; with no supervisor the loop is not called at all.
func TestStopSupervisor(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	const team = "stopped"
	called := 0
	none := func(context.Context, []proc.Target, time.Duration) proc.EndResult { called++; return proc.EndResult{} }
	if err := StopSupervisor(context.Background(), team, time.Second, none); err != nil || called != 0 {
		t.Fatalf("no supervisor: %v, the loop called %d times", err, called)
	}
	l, err := TakeSupervisorLock(team)
	if err != nil {
		t.Fatal(err)
	}
	var got []proc.Target
	var grace time.Duration
	end := func(_ context.Context, targets []proc.Target, g time.Duration) proc.EndResult {
		got, grace = targets, g
		l.Release() // as the supervisor's end would
		return proc.EndResult{Terminated: targets}
	}
	if err := StopSupervisor(context.Background(), team, 3*time.Second, end); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != proc.Process(os.Getpid()) || grace != 3*time.Second {
		t.Errorf("ended %v with grace %v, want the lock's holder %d with 3s", got, grace, os.Getpid())
	}
	if pid, _ := SupervisorPID(team); pid != 0 {
		t.Errorf("the lock is still held by %d", pid)
	}
}

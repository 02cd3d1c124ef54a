package state

import (
	"errors"
	"os"
	"sync"
	"testing"
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

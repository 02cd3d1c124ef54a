package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestEach: every index is done once, never more than jobs at a time (jobs
// under one is one), and Each returns only once all are done.
func TestEach(t *testing.T) {
	for _, jobs := range []int{-1, 0, 1, 3} {
		const n = 50
		var running, most atomic.Int32
		var mu sync.Mutex
		done := make([]int, n)
		// The first calls wait until as many as may run at once run, so
		// a pool that ran more would be seen doing so.
		limit := int32(max(jobs, 1))
		gate := make(chan struct{})
		var gateOnce sync.Once
		Each(n, jobs, func(i int) {
			r := running.Add(1)
			mu.Lock()
			if r > most.Load() {
				most.Store(r)
			}
			mu.Unlock()
			if r == limit {
				gateOnce.Do(func() { close(gate) })
			}
			<-gate
			done[i]++
			running.Add(-1)
		})
		for i, d := range done {
			if d != 1 {
				t.Fatalf("jobs %d: index %d done %d times", jobs, i, d)
			}
		}
		if m := most.Load(); m != limit {
			t.Errorf("jobs %d: %d at once, want %d", jobs, m, limit)
		}
	}
}

// Package parallel is teamctl's one bounded worker pool: a number of jobs
// run at most so many at a time (errgroup's SetLimit), for reading many
// members' transcripts or worktrees at once without a goroutine each.
package parallel

import "golang.org/x/sync/errgroup"

// Each calls do(i) for every i from 0 to n-1, at most jobs (at least one) at
// a time, and returns once every call has returned. Each do writes its own
// result (its index of a slice): the calls share nothing else.
func Each(n, jobs int, do func(i int)) {
	var g errgroup.Group
	g.SetLimit(max(jobs, 1))
	for i := range n {
		g.Go(func() error {
			do(i)
			return nil
		})
	}
	g.Wait()
}

package worktrees

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// reads is what one pass over teams reads of their repositories, kept for
// that pass: `git rev-parse` of a folder, `git worktree list` of a
// repository, and every branch's teamctl records of a repository in one `git
// config --get-regexp`. clean reads each for every worktree and branch it
// weighs; once a repository, not once a worktree (a 16-member team's clean
// ran 160 git processes, the loop it is measured against 16).
type reads struct {
	mu      sync.Mutex
	repos   map[string]repoRead
	lists   map[string]listRead
	records map[string]recordsRead
}

type repoRead struct {
	r   Repo
	err error
}

type listRead struct {
	l   []Entry
	err error
}

type recordsRead struct {
	m   map[string]BranchRecord
	err error
}

type readsKey struct{}

// WithReads returns ctx under which FindRepo, List and RecordOf read each
// repository once and answer again from what they read: for one pass that
// changes nothing (a plan), never across a change.
func WithReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, readsKey{}, &reads{repos: map[string]repoRead{}, lists: map[string]listRead{}, records: map[string]recordsRead{}})
}

func readsOf(ctx context.Context) *reads {
	r, _ := ctx.Value(readsKey{}).(*reads)
	return r
}

// allRecords are the teamctl records (branch.<name>.teamctl-created and
// teamctl-base) of every branch of main's repository, by branch.
func allRecords(ctx context.Context, main string) (map[string]BranchRecord, error) {
	out, err := git(ctx, main, "config", "--get-regexp", `^branch\..*\.teamctl-(created|base)$`)
	var ge *GitError
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
		return map[string]BranchRecord{}, nil // exit 1, nothing said: no such keys
	}
	if err != nil {
		return nil, err
	}
	m := map[string]BranchRecord{}
	for _, line := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(line, " ")
		rest, ok := strings.CutPrefix(key, "branch.")
		if !ok {
			continue
		}
		switch {
		case strings.HasSuffix(rest, "."+createdKey):
			b := strings.TrimSuffix(rest, "."+createdKey)
			r := m[b]
			r.Owner = val
			m[b] = r
		case strings.HasSuffix(rest, "."+baseKey):
			b := strings.TrimSuffix(rest, "."+baseKey)
			r := m[b]
			r.Base = val
			m[b] = r
		}
	}
	return m, nil
}

package cockpit

import (
	"testing"

	"github.com/teamctl/teamctl/team/model"
	"github.com/teamctl/teamctl/worktrees"
)

// TestMergeOutcomeCommits (issue 31: top printed "(1 commits)"): one commit
// is said as one.
func TestMergeOutcomeCommits(t *testing.T) {
	for n, want := range map[int]string{
		1: "merged alice's teamctl/t/alice into main (1 commit)",
		2: "merged alice's teamctl/t/alice into main (2 commits)",
	} {
		res := &model.MergeResult{Landed: []model.Landed{{Member: "alice", Landed: worktrees.Landed{Branch: "teamctl/t/alice", Into: "main", Commits: n}}}}
		if got, err := mergeOutcome("alice", res); err != nil || got != want {
			t.Errorf("%d commits: %q, %v; want %q", n, got, err, want)
		}
	}
}

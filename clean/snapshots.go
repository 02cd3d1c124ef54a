package clean

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// snapshots is the record of the repositories snapshots were taken in, in
// teamctl's state root: where `teamctl snapshots` and clean --snapshots look.
var snapshots = worktrees.SnapshotRecord{Dir: state.SnapshotRecordDir}

// snapshotRefs plans (clean --snapshots) the removal of the snapshots of
// o.Team, or of every team, older than o.OlderThan when it is set: one
// transaction per repository, each ref deleted only while it still points
// where it was seen.
func (p *planner) snapshotRefs(ctx context.Context) error {
	if p.o.Team != "" && !state.ValidTeamName(p.o.Team) {
		return fmt.Errorf("invalid team name %q", p.o.Team)
	}
	list, notes := snapshots.List(ctx, p.o.Team)
	p.r.Notes = append(p.r.Notes, notes...)
	batches := map[string]*batch{}
	unknown := 0
	for _, s := range list {
		age := p.now.Sub(s.Time)
		if p.o.OlderThan > 0 && (s.Time.IsZero() || age < p.o.OlderThan) {
			if s.Time.IsZero() {
				unknown++
			}
			continue
		}
		b := batches[s.Repo]
		if b == nil {
			b = deleteBatch(s.Repo)
			batches[s.Repo] = b
		}
		team := s.Team
		if team == "" {
			team = "-"
		}
		why := "in " + s.Repo + ", of no time teamctl can read"
		if !s.Time.IsZero() {
			why = fmt.Sprintf("in %s, taken %s (%s ago)", s.Repo, s.Time.Format("2006-01-02 15:04 UTC"), roughAge(age))
		}
		snap := s.Snapshot()
		p.add(&Action{Step: StepSnapshotRef, Team: team, Target: s.Ref, Why: why, Repo: s.Repo, Snapshot: &snap, batch: b})
	}
	if unknown > 0 {
		p.note("%d snapshot ref(s) whose name holds no time left alone (--older-than cannot tell their age)", unknown)
	}
	return nil
}

// deleteBatch deletes a repository's snapshots in one git call.
func deleteBatch(main string) *batch {
	return &batch{run: func(ctx context.Context, ready []*Action) {
		refs := map[string]string{}
		for _, a := range ready {
			refs[a.Target] = a.Snapshot.Commit
		}
		err := worktrees.DeleteSnapshots(ctx, main, refs)
		for _, a := range ready {
			if err != nil {
				a.Result, a.Detail = Failed, err.Error()
			} else {
				a.Result = Done
			}
		}
	}}
}

// roughAge says a duration in days, or hours under two days.
func roughAge(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

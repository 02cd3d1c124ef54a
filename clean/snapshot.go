package clean

import (
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/worktrees"
)

// snapshotPlan is the snapshot clean --force takes of one worktree (and its
// branch) before removing either: what loses work waits for it.
type snapshotPlan struct {
	a                       *Action
	main, path, branch, ref string // path "" (the folder is gone): a ref to the branch's head
	member                  string
}

// snapshotOf plans (once per worktree) the snapshot of the worktree at path
// ("" when its folder is gone) of team's member, in the repository of main.
func (p *planner) snapshotOf(team, member, main, path string, before []*Action) *snapshotPlan {
	for _, sp := range p.snaps {
		if sp.main == main && sp.path == path && sp.member == member && sp.a.Team == team {
			return sp
		}
	}
	sp := &snapshotPlan{main: main, path: path, member: member}
	a := &Action{Step: StepSnapshot, Team: team, Repo: main, needs: before}
	sp.a = a
	p.snaps = append(p.snaps, sp)
	ref, err := worktrees.SnapshotRef(team, member, p.now)
	if err != nil {
		a.Target, a.Result, a.Detail = member, Failed, err.Error()
		p.add(a)
		return sp
	}
	sp.ref, a.Target = ref, ref
	a.do = func(ctx context.Context) error { return sp.take(ctx) }
	p.add(a)
	return sp
}

// because adds why the snapshot is taken.
func (sp *snapshotPlan) because(why string) {
	if sp.a.Why != "" {
		sp.a.Why += "; "
	}
	sp.a.Why += why
}

// take takes the snapshot, records its repository for `teamctl snapshots`,
// and says where it is and how to bring it back.
func (sp *snapshotPlan) take(ctx context.Context) error {
	s, err := worktrees.TakeSnapshot(ctx, sp.main, sp.path, sp.branch, sp.ref)
	if err != nil {
		return err
	}
	a := sp.a
	a.Snapshot = &s
	a.Detail = fmt.Sprintf("in %s; `teamctl restore %s` brings it back", sp.main, s.Name())
	if len(s.LeftOut) > 0 {
		a.Detail += "; left out of it, and lost with the worktree: " + leftOutList(s.LeftOut)
	}
	if err := snapshots.Add(sp.main); err != nil {
		a.Detail += fmt.Sprintf("; `teamctl snapshots` lists it only from inside %s (%v)", sp.main, err)
	}
	return nil
}

// leftOutList names what a snapshot leaves out, and why.
func leftOutList(out []worktrees.LeftOut) string {
	var names []string
	for _, l := range out {
		names = append(names, fmt.Sprintf("%q (%s)", l.Path, l.Why))
	}
	return strings.Join(names, ", ")
}

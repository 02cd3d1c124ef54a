package clean

import (
	"context"
	"fmt"
	"slices"
)

// Run is `teamctl clean` from plan to report: it plans, hands the plan to
// shown (when not nil) and, unless DryRun, carries it out: under the locks
// of the teams (which up and down hold for their whole run), planned again
// there, so that it never acts on a team an up is making.
//
// Without a Team, clean acts on every team, so confirm is asked first, with
// the teams whose leftovers the plan would remove, in plan order (what is
// refused or kept already is not asked about; a plan that removes nothing
// asks nothing). Its error (a no, or no one to ask) stops Run with nothing
// done, and is Run's. A nil confirm does not ask.
func Run(ctx context.Context, o Options, shown func(*Report), confirm func(ctx context.Context, teams []string) error) (*Report, error) {
	if !o.DryRun && !o.Snapshots && (o.Team != "" || confirm == nil) {
		// Nothing to ask: when no up or down holds a lock, clean takes them
		// at once and plans once, under them (a plan of 16 worktrees reads
		// git a dozen times: a second one was a tenth of clean's time).
		if r, ok, err := runLocked(ctx, o, shown); ok {
			return r, err
		}
	}
	r, err := Plan(ctx, o)
	if err != nil {
		return nil, err
	}
	if shown != nil {
		shown(r)
	}
	if o.DryRun {
		return r, nil
	}
	asked := o.Team == "" && confirm != nil
	if teams := planTeams(r); asked && len(teams) > 0 {
		if err := confirm(ctx, teams); err != nil {
			return nil, err
		}
	}
	if o.Snapshots {
		Execute(ctx, r)
		return r, nil
	}
	// An up or down of a team may have begun since the plan: each team's
	// lock is taken (waiting for them to finish) and held for the whole
	// run, and the plan made again under it, so clean acts on what is
	// there now and nothing else acts on the team meanwhile.
	teams := []string{o.Team}
	if o.Team == "" {
		if teams, err = knownTeams(); err != nil {
			return nil, err
		}
	}
	lctx, release, err := lockTeams(ctx, teams)
	if err != nil {
		return nil, err
	}
	defer release()
	again, err := Plan(lctx, o)
	if err != nil {
		return nil, err
	}
	if asked {
		for _, t := range planTeams(again) {
			if !slices.Contains(planTeams(r), t) {
				return nil, fmt.Errorf("team %s changed while clean waited for its lock, and it was not asked about: nothing done; run clean again", t)
			}
		}
	}
	Execute(lctx, again)
	return again, nil
}

// runLocked plans and carries out the plan under the teams' locks, if it
// can take them all without waiting: ok is false, with nothing done, when
// one is held.
func runLocked(ctx context.Context, o Options, shown func(*Report)) (r *Report, ok bool, err error) {
	teams := []string{o.Team}
	if o.Team == "" {
		if teams, err = knownTeams(); err != nil {
			return nil, true, err
		}
	}
	lctx, release, err := tryLockTeams(ctx, teams)
	if err != nil {
		return nil, false, nil
	}
	defer release()
	if r, err = Plan(lctx, o); err != nil {
		return nil, true, err
	}
	if shown != nil {
		shown(r)
	}
	Execute(lctx, r)
	return r, true, nil
}

// planTeams lists, in plan order, the teams whose leftovers the plan would
// remove.
func planTeams(r *Report) []string {
	var teams []string
	for _, a := range r.Actions {
		if a.Result == Planned && !slices.Contains(teams, a.Team) {
			teams = append(teams, a.Team)
		}
	}
	return teams
}

// Summary is the report in a line: how many actions were done, refused,
// kept and failed (in a dry run: how many would be done), and how many
// branches were kept for the work on them.
func (r *Report) Summary() string {
	c := r.Counts()
	s := fmt.Sprintf("%d done, %d refused, %d kept, %d failed", c[Done], c[Refused], c[Kept], c[Failed])
	if r.DryRun {
		s = fmt.Sprintf("dry run, nothing changed: %d to do, %d refused, %d kept", c[Planned], c[Refused], c[Kept])
	}
	if n := c[KeptBranch]; n > 0 {
		s += fmt.Sprintf("; %d branch(es) with work kept", n)
	}
	return s
}

// Incomplete reports whether something was refused or failed: clean's exit
// code is 1 then.
func (r *Report) Incomplete() bool {
	c := r.Counts()
	return c[Refused] > 0 || c[Failed] > 0
}

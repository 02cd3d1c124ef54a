// Package clean finds what teams left behind (panes, tmux servers, worktrees,
// Claude Code's team folders, teamctl's state) and removes it in an order that
// cannot strand anything: panes, servers, worktrees, then the team's folders,
// so that whatever records a thing outlives it. Nothing holding a person's work
// is removed without Force, and with Force only once a snapshot holds it; a
// branch with commits not merged is kept, as the place its work is. Nothing
// teamctl does not own is removed at all. It also lists, restores and removes
// the snapshots it took (the git work is package worktrees'), and gives
// `teamctl finish` its rules for one member (CheckPlace, Snapshot).
package clean

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/internal/parallel"
	"github.com/teamctl/teamctl/worktrees"
)

// Options say what to clean.
type Options struct {
	Team    string        // "" for every team; a team named here is cleaned even while running
	All     bool          // also Claude Code's own leftovers (swarm servers, teams of dead leads)
	DryRun  bool          // plan only
	Force   bool          // remove worktrees and branches that hold work (once a snapshot holds it), and Claude Code's own team folders
	TmuxBin string        // "" = tmux from PATH
	Grace   time.Duration // SIGTERM to SIGKILL for the processes of a pane (default 2s)

	// Snapshots: remove snapshot refs (of Team, or of every team) instead of
	// teams' leftovers; only those older than OlderThan when it is not 0.
	// Without it clean never removes a snapshot.
	Snapshots bool
	OlderThan time.Duration

	// Found: Team was not named but found (the team of the current folder):
	// only it is looked at, and, running, it loses only its orphaned panes,
	// as when every team is cleaned.
	Found bool
}

// Steps, in the order they run.
const (
	StepSupervisor = "supervisor"   // stop a team's supervisor, so nothing restarts what goes
	StepPane       = "pane"         // an orphaned pane: its process tree, then kill-pane
	StepServer     = "server"       // an orphaned tmux server, or the socket file of a dead one
	StepSnapshot   = "snapshot"     // with Force: keep the work a worktree or branch holds before either goes
	StepWorktree   = "worktree"     // git worktree remove, then git worktree prune
	StepBranch     = "branch"       // a branch teamctl made for a worktree
	StepTeamFolder = "team-folder"  // Claude Code's teams/<team>
	StepTasks      = "tasks-folder" // Claude Code's tasks/<team>
	StepState      = "state"        // teamctl's state folder of the team

	StepSnapshotRef = "snapshot-ref" // with Snapshots: a snapshot removed
)

// Results of an action.
const (
	Planned = "planned" // would run (dry run)
	Done    = "done"
	Refused = "refused" // would lose work; Force removes it
	Kept    = "kept"    // left on purpose: something it depends on stays, or it needs Force
	Failed  = "failed"

	// KeptBranch is a branch with commits not merged, left for its owner to
	// merge or delete. The branch is where the work is, so nothing is lost and
	// nothing waits for it: the rest of the team goes.
	KeptBranch = "kept-branch"
)

// Action is one thing clean removes (or refuses to).
type Action struct {
	Step   string          `json:"step"`
	Team   string          `json:"team"`
	Target string          `json:"target"`           // pane id, socket, path or branch
	Why    string          `json:"why"`              // why it is left over
	Result string          `json:"result"`           // planned, done, refused, kept, failed
	Detail string          `json:"detail,omitempty"` // why refused, kept or failed
	Loss   *worktrees.Loss `json:"loss,omitempty"`   // what removing it would lose

	// Of a snapshot taken or removed: the repository it is in, and itself.
	Repo     string              `json:"repo,omitempty"`
	Snapshot *worktrees.Snapshot `json:"snapshot,omitempty"`

	do    func(ctx context.Context) error
	batch *batch    // instead of do: runs this and its peers at once
	needs []*Action // run only when these are done
	// notOurs: left because it is not the team's (kept). Nothing waits for
	// it: the records that name it do not make it the team's.
	notOurs bool
}

// NotOurs is the detail of a worktree that clean leaves because nothing says
// teamctl or Claude Code made it for the team.
const NotOurs = "not removed: not a worktree teamctl or Claude Code made for this team"

// Report is what clean planned and did, in order.
type Report struct {
	DryRun  bool      `json:"dry_run"`
	Actions []*Action `json:"actions"`
	Notes   []string  `json:"notes,omitempty"`
}

// Counts tells how many actions ended in each result.
func (r *Report) Counts() map[string]int {
	c := map[string]int{}
	for _, a := range r.Actions {
		c[a.Result]++
	}
	return c
}

// Execute carries out a plan's actions in order. An action whose dependencies
// did not all succeed is kept, saying which one stayed.
func Execute(ctx context.Context, r *Report) {
	for i, a := range r.Actions {
		if a.Result != Planned {
			continue
		}
		if dep := firstNotDone(a.needs); dep != nil {
			keep(a, dep)
			continue
		}
		if a.batch != nil {
			// This and the batch's later actions that may run go in one call.
			var ready []*Action
			for _, b := range r.Actions[i:] {
				if b.batch != a.batch || b.Result != Planned {
					continue
				}
				if dep := firstNotDone(b.needs); dep != nil {
					if dep.Result != Planned { // one yet to run: b waits for it, and its turn
						keep(b, dep)
					}
					continue
				}
				ready = append(ready, b)
			}
			a.batch.run(ctx, ready)
			continue
		}
		finish(a, a.do(ctx))
	}
}

// finish sets a's result from what its do returned.
func finish(a *Action, err error) {
	var ref *refusal
	switch {
	case errors.As(err, &ref):
		a.Result, a.Detail, a.Loss = Refused, ref.Error(), &ref.loss
	case err != nil:
		a.Result, a.Detail = Failed, err.Error()
	default:
		a.Result = Done
	}
}

// atOnce is a batch whose actions' do run at the same time, a few at a
// time (worktrees.Jobs): each stands alone, and each sets its own result.
// A team's worktrees are removed so: a `git worktree remove` waits on its
// start and the disk about as long as it computes, so 16 of them one after
// another took twice as long as two cores need.
//
// One that failed is run again alone, once the others are done: a `git
// worktree remove` (git 2.39) reads every worktree's record before it does
// anything, and dies when another removal deletes one under it ("fatal:
// failed to read .git/worktrees/m09/commondir", seen once in 80 cleans of 16
// worktrees). Run alone, git's answer is its own. A refusal is an answer:
// never run again.
func atOnce() *batch {
	return &batch{run: func(ctx context.Context, acts []*Action) {
		errs := make([]error, len(acts))
		parallel.Each(len(acts), worktrees.Jobs(), func(i int) {
			errs[i] = acts[i].do(ctx)
		})
		for i, a := range acts {
			var ref *refusal
			if errs[i] != nil && !errors.As(errs[i], &ref) {
				errs[i] = a.do(ctx)
			}
			finish(a, errs[i])
		}
	}}
}

func keep(a, dep *Action) {
	a.Result, a.Detail = Kept, fmt.Sprintf("because %s %s is %s", dep.Step, dep.Target, dep.Result)
}

// batch runs several actions in one go (one git call for many branches),
// setting each one's result.
type batch struct {
	run func(ctx context.Context, acts []*Action)
}

// refusal is an action's do finding, only when it acts, that it would lose work.
type refusal struct {
	loss  worktrees.Loss
	force string // what --force does
}

func (r *refusal) Error() string { return "would lose " + r.loss.String() + " (" + r.force + ")" }

func firstNotDone(deps []*Action) *Action {
	for _, d := range deps {
		if d.Result != Done && d.Result != KeptBranch {
			return d
		}
	}
	return nil
}

// settle marks, before anything runs, the actions that cannot run because
// something they depend on is refused or kept: a dry run shows them as kept.
func settle(r *Report) {
	for _, a := range r.Actions {
		if a.Result != Planned {
			continue
		}
		for _, d := range a.needs {
			if d.Result == Refused || d.Result == Kept || d.Result == Failed {
				keep(a, d)
				break
			}
		}
	}
}

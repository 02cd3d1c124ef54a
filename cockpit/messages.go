package cockpit

import (
	"context"
	"os/exec"
	"time"

	"github.com/teamctl/teamctl/team/model"
)

// Backend is what the cockpit does to a team: the functions behind `teamctl
// teams`, `status`, `answer`, `approve`, `deny`, `send`, `restart`, `attach`,
// `diff` and `merge`.
type Backend interface {
	UpTeams(ctx context.Context) ([]string, error)
	Answer(ctx context.Context, team, member string, a model.Answer) (model.Answered, error)
	Approve(ctx context.Context, team, member string) (requestID string, err error)
	Deny(ctx context.Context, team, member, reason string) (requestID string, err error)
	Send(ctx context.Context, team, member, text string) (how string, err error)
	Restart(ctx context.Context, team, member string) (pid int, err error)
	// Release lets a member its budget held go (resume-member); reason is
	// why it was held.
	Release(ctx context.Context, team, member string) (reason string, err error)
	// Attach selects the member's pane and returns the command that attaches
	// the terminal to it (running until the person detaches) and the team
	// server's prefix key.
	Attach(ctx context.Context, team, member string) (cmd *exec.Cmd, prefix string, err error)
	// Changes reads what every member of the team changed (diff --stat).
	Changes(ctx context.Context, team string) (*model.Changes, error)
	// DiffCmd returns the command that shows the member's diff on the
	// terminal, through the pager, until the person quits it.
	DiffCmd(ctx context.Context, team, member string) (*exec.Cmd, error)
	// Merge lands the member's branch in its base.
	Merge(ctx context.Context, team, member string) (*model.MergeResult, error)
}

// Feed follows teams for the program and sends it StatusMsg, EventsMsg,
// ScreenMsg and TeamsChangedMsg as things change. The model calls it from
// Update, in order, so neither method may block.
type Feed interface {
	// Follow follows these teams' status and events, and no longer any
	// other's; with others, it also says (TeamsChangedMsg) when a team it
	// does not follow may have come up or gone.
	Follow(teams []string, others bool)
	// Focus makes pane, in team's tmux server, the one whose screen the
	// detail shows (pane "" for none): the feed's one control client goes to
	// that team's server (team "" for none).
	Focus(team, pane string)
}

// Snapshot is one look at a team: its status and the members' worktrees.
type Snapshot struct {
	*model.Status
	Taken     time.Time
	Worktrees map[string]Worktree // by member, those teamctl made
}

// Worktree is a member's git worktree.
type Worktree struct{ Path, Branch string }

// ActionTimeout bounds one action: tmux, a mailbox lock, the state lock.
const ActionTimeout = 30 * time.Second

// Messages the Feed sends.
type (
	// StatusMsg is a new look at a team (Err: why it could not be looked at).
	StatusMsg struct {
		Team string
		Snap *Snapshot
		Err  error
	}
	// EventsMsg are events of a team appended since the last.
	EventsMsg struct {
		Team   string
		Events []Event
	}
	// ScreenMsg is the bottom of a pane's screen.
	ScreenMsg struct {
		Team, Pane string
		Lines      []string
	}
	// TeamsChangedMsg: a team not followed may have come up, or one gone.
	TeamsChangedMsg struct{}
)

// Messages the model sends itself.
type (
	tickMsg  time.Time
	teamsMsg struct {
		teams []string
		err   error
	}
	switchMsg struct{ teams []string } // the teams up, listed to switch to the next
	doneMsg   struct{ text string }    // an action's outcome, for the status line
	failMsg   struct{ err error }
	attachMsg struct {
		member, prefix string
		cmd            *exec.Cmd
	}
	detachedMsg struct {
		member string
		err    error
	}
	changesMsg struct { // a team's changes read (diff --stat)
		team string
		ch   *model.Changes
		err  error
	}
	diffMsg struct { // the member's diff, ready to show in the pager
		member string
		cmd    *exec.Cmd
	}
	diffShownMsg struct {
		member string
		err    error
	}
)

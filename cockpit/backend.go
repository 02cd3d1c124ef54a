package cockpit

// This file is the only one of the cockpit that knows where teamctl's verbs,
// its team-folder contract, its reading of Claude Code's dialogs and of the
// members' worktrees live (packages team, state, stallwatch and worktrees):
// moving them changes this file alone.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/worktrees"
)

// The team's status and events, as `teamctl status --json` and `events --json`
// have them.
type (
	Status           = team.Status
	SupervisorStatus = team.SupervisorStatus
	Member           = team.MemberStatus
	Stall            = team.Stall
	Limit            = team.Limit
	MemberConflict   = team.MemberConflict
	Request          = state.Request
	Event            = state.Event
)

// What the members changed, as `teamctl diff --stat` reads it, and what a
// merge landed or why it refused, as `teamctl merge` has them.
type (
	TeamChanges = team.Changes
	WorkChanges = team.WorkChanges
	FileChange  = worktrees.FileChange
	MergeResult = team.MergeResult
	Landed      = team.Landed
	Refusal     = team.Refusal
)

// The events after which a member's changes are read again: its turn ended
// (or it exited), or the radar found its work colliding or no longer.
var rereadOn = []state.EventKind{state.EventIdle, state.EventExit, state.EventConflict, state.EventConflictResolved}

// A watch of teams' state folders and what it delivers, as state.Watch has
// them.
type (
	Watcher      = state.Watcher
	WatchOptions = state.WatchOptions
	Changes      = state.Changes
)

// The changes of a team's folder the feed acts on.
const (
	changedStatus = state.ChangedState | state.ChangedLive   // a new look at the team's status
	changedEvents = state.ChangedEvents                      // its events appended are read
	changedUpDown = state.ChangedFolder | state.ChangedState // a team not followed may have come up or gone
)

// An answer to a stalled member and what it sent, as `teamctl answer` has
// them; a Claude Code dialog and its options, as `teamctl answer` reads them.
type (
	Answer   = team.Answer
	Answered = team.Answered
	Dialog   = stallwatch.Dialog
	Option   = stallwatch.Option
)

// What a follow of a team's panes says of them (team.Follow).
type (
	PaneNote     = team.PaneNote
	PaneNoteKind = team.PaneNoteKind
)

// The kinds of PaneNote.
const (
	PaneOutput   = team.PaneOutput
	PaneExit     = team.PaneExit
	PanesChanged = team.PanesChanged
)

// NotRecordedError is an answer whose keys were sent but could not be
// recorded in the team's events, as `teamctl answer` has it: it happened, and
// must not be sent again.
type NotRecordedError = team.NotRecordedError

// readDialog reads the Claude Code dialog on a pane's screen (its lines),
// with the very function `teamctl answer` chooses its options by.
func readDialog(lines []string) (Dialog, bool) {
	return stallwatch.ReadDialog(strings.Join(lines, "\n"))
}

// isDialog reports whether a stall's pattern is one of Claude Code's dialogs,
// answered by an option, never by a letter typed.
func isDialog(pattern string) bool { return stallwatch.IsDialog(pattern) }

// Teamctl is the Backend and the Source of a real teamctl: the functions its
// commands call, so that every action of the cockpit is the command's own code
// path and lands in events.jsonl as the command's does. Its verbs are team's
// Actions (the adapter the page acts through too), as a person at the terminal.
type Teamctl struct {
	team.Actions
}

var (
	_ Backend = Teamctl{}
	_ Source  = Teamctl{}
)

// UpTeams are the teams that are up, by name.
func (t Teamctl) UpTeams(ctx context.Context) ([]string, error) {
	ts, err := team.List(ctx, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	var up []string
	for _, s := range ts {
		if s.Up {
			up = append(up, s.Team)
		}
	}
	return up, nil
}

// Status is `teamctl status` (team's Status: the one place a member's state
// is decided), with the worktrees teamctl made for the members.
func (t Teamctl) Status(ctx context.Context, name string) (*Snapshot, error) {
	tm, err := t.open(ctx, name)
	if err != nil {
		return nil, err
	}
	s, err := tm.Status(ctx)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Status: s, Taken: time.Now(), Worktrees: map[string]Worktree{}}
	if st, err := state.Load(name); err == nil {
		for _, w := range st.Worktrees {
			snap.Worktrees[w.Member] = Worktree{Path: w.Path, Branch: w.Branch}
		}
	}
	return snap, nil
}

// Follow follows the team's panes live through one control client
// (team's Follow), the focused pane's output gathered for outputGather.
func (t Teamctl) Follow(ctx context.Context, name string, panes []string) (PaneFollow, error) {
	tm, err := t.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return tm.Follow(ctx, panes, team.FollowOptions{Gather: outputGather})
}

// TailEvents follows the team's events from about the last back bytes on.
func (t Teamctl) TailEvents(team string, back int64) (EventReader, error) {
	return state.TailEvents(team, back)
}

// Watch watches one team's state folder, or every team's (state.Watch).
func (t Teamctl) Watch(ctx context.Context, o WatchOptions) (*Watcher, error) {
	return state.Watch(ctx, o)
}

// Attach is `teamctl attach MEMBER`: the member's pane is selected now (within
// a deadline), and the command returned attaches until the person detaches,
// so it runs under ctx alone.
func (t Teamctl) Attach(ctx context.Context, name, member string) (*exec.Cmd, string, error) {
	pctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	tm, err := t.open(pctx, name)
	if err != nil {
		return nil, "", err
	}
	a, err := tm.Attach(pctx, member)
	if err != nil {
		return nil, "", err
	}
	return a.Cmd(ctx, ""), a.Prefix, nil
}

// DiffCmd is `teamctl diff MEMBER --team T`, run by this very binary on the
// terminal, so it pages as the command does. less keeps the screen until q
// (LESS=R where LESS is unset, not the command's FRX): a diff that fits the
// screen would otherwise be gone the moment the cockpit draws again.
func (t Teamctl) DiffCmd(ctx context.Context, name, member string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find teamctl's own binary to show %s's diff: %w", member, err)
	}
	cmd := exec.CommandContext(ctx, exe, "diff", member, "--team", name)
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=R")
	}
	return cmd, nil
}

// open opens the team called name (each action opens it anew: state changes).
func (t Teamctl) open(ctx context.Context, name string) (*team.Team, error) {
	return team.Open(ctx, name, t.TmuxBin)
}

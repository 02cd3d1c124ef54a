package cockpit

// This file is the only one of the cockpit that knows where what teamctl's
// verbs report, its team-folder contract, its reading of Claude Code's
// dialogs and of the members' worktrees live (packages team/model, state,
// stallwatch and worktrees): moving them changes this file alone. The verbs
// themselves come from the command (RunOptions.Backend: team's, in
// cmd/teamctl), so the cockpit depends on neither tmux nor git.

import (
	"strings"

	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// A member's permission request and the team's events, as `teamctl status
// --json` and `events --json` have them; a changed file, as `teamctl diff
// --stat` reads it. (What team's verbs report is team/model's, used as it is.)
type (
	Request    = state.Request
	Event      = state.Event
	FileChange = worktrees.FileChange
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

// A Claude Code dialog and its options, as `teamctl answer` reads them.
type (
	Dialog = stallwatch.Dialog
	Option = stallwatch.Option
)

// readDialog reads the Claude Code dialog on a pane's screen (its lines),
// with the very function `teamctl answer` chooses its options by.
func readDialog(lines []string) (Dialog, bool) {
	return stallwatch.ReadDialog(strings.Join(lines, "\n"))
}

// isDialog reports whether a stall's pattern is one of Claude Code's dialogs,
// answered by an option, never by a letter typed.
func isDialog(pattern string) bool { return stallwatch.IsDialog(pattern) }

// Package model holds what team's verbs report and take — a team's status,
// an answer, what a merge landed, what finish did or would do, what a follow
// of its panes says — as plain values, apart from the verbs (package team)
// that run tmux and git: the cockpits (top, serve) and their shared view
// draw and send these without depending on how a team is run.
package model

import (
	"fmt"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// Status is what `teamctl status --json` prints. Later versions add fields; they
// never rename these.
type Status struct {
	Team      string     `json:"team"`
	Socket    string     `json:"socket"`
	Session   string     `json:"session"`
	Layout    string     `json:"layout,omitempty"` // the layout file the team was brought up from
	StoppedAt *time.Time `json:"stopped_at,omitempty"`
	// Lost: the team was not brought down, but its tmux server is gone (a
	// reboot, a killed server); LastSeen is when its supervisor last wrote.
	// `teamctl up` resumes it.
	Lost     bool       `json:"lost,omitempty"`
	LastSeen *time.Time `json:"last_seen,omitempty"`
	// LayoutProblem says, for a lost team, why its layout file is not taken
	// again without the person naming it (changed since up, open to others):
	// `up --all` passes it by, and `teamctl up FILE` is for the person who
	// has looked at it. "" when the file is the one it was brought up from.
	LayoutProblem string           `json:"layout_problem,omitempty"`
	Supervisor    SupervisorStatus `json:"supervisor"`
	// Unreachable are the hosts where members run that were not reached
	// (by status, or by the supervisor): their members are unknown.
	Unreachable []string       `json:"unreachable_hosts,omitempty"`
	Members     []MemberStatus `json:"members"`
	// Usage is what the whole team spent (its members', and teammates' gone
	// from it), as the running supervisor last read their transcripts.
	Usage *state.MemberUsage `json:"usage,omitempty"`
}

// SupervisorStatus says whether the team's supervisor runs.
type SupervisorStatus struct {
	Running bool `json:"running"`
	PID     int  `json:"pid,omitempty"`
}

// Stall is what a stalled member waits on.
type Stall struct {
	Pattern string    `json:"pattern"`
	Line    string    `json:"line"`
	Since   time.Time `json:"since"`
	Excerpt string    `json:"excerpt,omitempty"`
}

// Limit is the usage or rate limit a limited member waits out.
type Limit struct {
	Line       string    `json:"line"`                  // what said so (its screen's line, or the transcript)
	Since      time.Time `json:"since"`                 // when it was first seen
	Reset      time.Time `json:"reset,omitzero"`        // when it resets, to the minute its screen showed; zero when unknown
	ResetShown string    `json:"reset_shown,omitempty"` // that time as Claude Code showed it ("5:01am")
}

// ResetText is the reset time in words for a person at now: "resets 9:05am
// (in 4m)", "reset 9:05am (2m ago)", or that it is not known.
func (l Limit) ResetText(now time.Time) string {
	if l.Reset.IsZero() {
		return "reset time not shown"
	}
	shown := l.ResetShown
	if shown == "" {
		shown = l.Reset.Local().Format("Jan 2 15:04")
	}
	// The reset falls within the minute shown: it is past once that minute is.
	end := l.Reset.Add(time.Minute)
	if now.Before(end) {
		return fmt.Sprintf("resets %s (in %s)", shown, end.Sub(now).Round(time.Second))
	}
	return fmt.Sprintf("reset %s (%s ago)", shown, now.Sub(end).Round(time.Second))
}

// MemberStatus is one member in Status.
type MemberStatus struct {
	Name      string            `json:"name"`
	Role      state.Role        `json:"role"`
	Pane      string            `json:"pane"`
	PID       int               `json:"pid"`
	State     state.MemberState `json:"state"`
	ExitCode  *int              `json:"exit_code"`
	Cwd       string            `json:"cwd"`
	SessionID string            `json:"session_id"`
	Restarts  int               `json:"restarts"`
	StartedAt time.Time         `json:"started_at"`
	Origin    state.Origin      `json:"origin"`            // layout, or lead for a teammate the lead spawned
	Agent     string            `json:"agent,omitempty"`   // the agent CLI a process member runs: codex, gemini
	Host      string            `json:"host,omitempty"`    // the host it runs on; "" for this machine
	Since     time.Time         `json:"since,omitzero"`    // when the member entered its state, as the supervisor saw it
	Stall     *Stall            `json:"stall,omitempty"`   // when stalled
	Limit     *Limit            `json:"limit,omitempty"`   // when limited
	Reason    string            `json:"reason,omitempty"`  // when failed
	Request   *state.Request    `json:"request,omitempty"` // when waiting-approval
	Result    string            `json:"result,omitempty"`  // the last thing a teammate said (its idle notification)
	// Conflicts are the members whose work this one's would conflict with
	// if merged, as the supervisor's radar last found them.
	Conflicts []MemberConflict `json:"conflicts,omitempty"`
	// LastLines are, for an exited or failed member, the last lines its pane
	// showed (LastLinesShown at most): why it ended, as far as it said.
	LastLines []string `json:"last_lines,omitempty"`
	// Usage is what the member spent (tokens, turns, cost), as the running
	// supervisor last read its transcripts; nil for a plain process, or
	// with no supervisor.
	Usage *state.MemberUsage `json:"usage,omitempty"`
}

// MemberConflict is another member whose work would conflict with a
// member's, and in which files; with Base, the member's base branch With,
// as it moved on since the member started.
type MemberConflict struct {
	With  string   `json:"with"`
	Files []string `json:"files"`
	Base  bool     `json:"base,omitempty"`
}

// By is who acts through a verb of an opened team, as the verb's event
// records it: the zero By is a person at the command line (or in `top`);
// Via names another way in ("web": `teamctl serve`), From the address the
// request came from.
type By struct {
	Via  string
	From string
}

// NotRecordedError is an answer whose keys were sent but which could not be
// recorded in the team's events (a read-only or full state folder). The
// answer happened: a caller reports it as sent and warns, and must not send
// it again.
type NotRecordedError struct{ Err error }

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("the keys were sent, but could not be recorded in the team's events: %v", e.Err)
}

func (e *NotRecordedError) Unwrap() error { return e.Err }

// Answer is a person's answer to a stalled member: exactly one of Reply,
// Option and Keys.
type Answer struct {
	// Reply is y or n (yes, no), or an option's number. On a Claude Code
	// dialog it chooses an option: y the dialog's plain Yes, n its No (or
	// its Esc cancel), only where that is unambiguous; a number the option
	// so numbered (an unnumbered menu's by its place). At a prompt it is
	// typed, then Enter.
	Reply string
	// Option chooses a dialog's option by its text: the one that reads so
	// (case aside), else the only one starting with it.
	Option string
	// Keys are tmux keys (y, Enter, Down, text) sent as they are, whatever
	// the screen shows.
	Keys []string
	// Expect, when set, is the option the person saw (as Option.String
	// writes it): a dialog that now shows another there is not answered.
	Expect string
	// Force answers a member that is not stalled: the keys are then typed
	// into whatever it is doing (a working or idle Claude Code takes them
	// as a prompt).
	Force bool
}

// Answered is what an answer sent.
type Answered struct {
	Keys   []string // the tmux keys
	Option string   // the dialog's option chosen ("4. No"); "" for keys typed at a prompt or sent as they are
}

// MergeResult is what Merge landed, in order, and the refusal it stopped at.
type MergeResult struct {
	Team    string   `json:"team"`
	Landed  []Landed `json:"landed"`
	Refused *Refusal `json:"refused,omitempty"`
}

// Landed is one member's work landed.
type Landed struct {
	Member string `json:"member"`
	worktrees.Landed
	// WIP is the commit --wip made of its uncommitted work, on its branch.
	WIP string `json:"wip,omitempty"`
	// LeftOut are uncommitted files --wip did not commit (too large, a
	// repository of their own): still in its worktree.
	LeftOut []worktrees.LeftOut `json:"left_out,omitempty"`
}

// Refusal is the member whose work was not landed, why, and the members
// after it that were not tried.
type Refusal struct {
	Member    string               `json:"member"`
	Why       string               `json:"why"`
	Conflicts []worktrees.Conflict `json:"conflicts,omitempty"`
	NotTried  []string             `json:"not_tried,omitempty"`
}

// Changes is what the team's members changed: per worktree, its commits and
// uncommitted files since its base; the checkout that members without a
// worktree share, once, with its uncommitted files.
type Changes struct {
	Team    string        `json:"team"`
	Work    []WorkChanges `json:"work"`
	Files   int           `json:"files"` // over all of Work
	Added   int           `json:"added"`
	Deleted int           `json:"deleted"`
}

// WorkChanges is the work of one member's worktree, or of a checkout several
// members share (their root, with no worktree of their own).
type WorkChanges struct {
	Member   string   `json:"member,omitempty"` // the worktree's member; "" for a shared checkout
	Members  []string `json:"members"`          // who works in it
	Worktree bool     `json:"worktree"`         // a worktree teamctl made for Member
	Path     string   `json:"path,omitempty"`
	Branch   string   `json:"branch,omitempty"` // the branch it is on ("" when detached)
	// Base is what the worktree's changes are counted from (where its branch
	// left it); a shared checkout's are from its HEAD: uncommitted only.
	Base        *worktrees.Base        `json:"base,omitempty"`
	Commits     int                    `json:"commits"`
	Uncommitted int                    `json:"uncommitted"`
	Files       []worktrees.FileChange `json:"files"`
	Added       int                    `json:"added"`
	Deleted     int                    `json:"deleted"`
	LeftOut     []worktrees.LeftOut    `json:"left_out,omitempty"`
	Notes       []string               `json:"notes,omitempty"` // what a person should know: a folder gone, a detached HEAD, a rebase half-way
	Error       string                 `json:"error,omitempty"` // why its work could not be read
	Patch       string                 `json:"-"`
}

// Unread are the members whose work could not be read (an Error).
func (c *Changes) Unread() []string {
	var names []string
	for _, w := range c.Work {
		if w.Error != "" {
			names = append(names, w.Members...)
		}
	}
	return names
}

// FinishResult is what Finish did, member by member, and the refusal it
// stopped at.
type FinishResult struct {
	Team     string     `json:"team"`
	Finished []Finished `json:"finished"`
	Refused  *Refusal   `json:"refused,omitempty"`
}

// Finished is a member whose work landed and whose worktree went.
type Finished struct {
	Landed
	Worktree string `json:"worktree"`                 // removed (or found gone)
	Branch   string `json:"branch_deleted,omitempty"` // the branch deleted; "" when kept
	Kept     string `json:"kept,omitempty"`           // why the branch was kept
	// Snapshot holds what removing the worktree and branch would have lost
	// (uncommitted files that appeared, --squash's commits, left-out files
	// named in it); Restore is the command that brings it back.
	Snapshot *worktrees.Snapshot `json:"snapshot,omitempty"`
	Restore  string              `json:"restore,omitempty"`
}

// FinishPlan is what Finish would do for one member, read without acting:
// what the web page shows before it asks to confirm.
type FinishPlan struct {
	Member   string `json:"member"`
	Stop     bool   `json:"stop"` // it runs: stopped first, as teamctl stop does
	Branch   string `json:"branch"`
	Into     string `json:"into,omitempty"`
	Commits  int    `json:"commits"`  // the commits of Branch that Into lacks
	Worktree string `json:"worktree"` // removed
	// KeptBranch says why Branch is kept; "" when it is deleted.
	KeptBranch string `json:"kept_branch,omitempty"`
	// Refusal is why Finish would refuse it now (nothing would be done).
	Refusal string `json:"refusal,omitempty"`
}

// Lines say p as a person reads it, one step a line.
func (p *FinishPlan) Lines() []string {
	if p.Refusal != "" {
		return []string{"refused: " + p.Refusal}
	}
	var out []string
	if p.Stop {
		out = append(out, fmt.Sprintf("stop %s first (it runs), as teamctl stop does", p.Member))
	}
	if p.Commits == 0 {
		out = append(out, fmt.Sprintf("land nothing: %s already has all of %s", p.Into, p.Branch))
	} else {
		out = append(out, fmt.Sprintf("merge %d commit(s) of %s into %s", p.Commits, p.Branch, p.Into))
	}
	out = append(out, "remove the worktree "+p.Worktree+" (what it would lose is kept in a snapshot first)")
	if p.KeptBranch == "" {
		out = append(out, "delete the branch "+p.Branch)
	} else {
		out = append(out, "keep the branch "+p.Branch+" ("+p.KeptBranch+")")
	}
	return out
}

// PaneNoteKind is what a PaneNote says.
type PaneNoteKind int

const (
	// PaneOutput: the pane printed (only the pane Show named).
	PaneOutput PaneNoteKind = iota
	// PaneExit: a pane's program ended or was restarted, as tmux alone may
	// know yet: look at the team again.
	PaneExit
	// PanesChanged: panes or windows came or went: look at the team again.
	PanesChanged
)

// PaneNote is one thing that happened to the team's panes.
type PaneNote struct {
	Kind PaneNoteKind
	Pane string // PaneOutput's pane
}

package state

// MemberState is what a member is doing, as every view shows it (status,
// status -w, up's table, teams, top) and as live.json records it.
type MemberState string

// Member states. running and exited come from tmux; the supervisor adds the
// rest from what it sees (screens, Claude Code's mailboxes and hooks).
const (
	StateRunning         MemberState = "running"
	StateIdle            MemberState = "idle"
	StateStalled         MemberState = "stalled"          // waiting for a human at a prompt
	StateWaitingApproval MemberState = "waiting-approval" // a teammate's permission request to the lead
	StateExited          MemberState = "exited"
	StateFailed          MemberState = "failed" // kept exiting; not restarted any more
	// StateHeld: its budget was spent with action interrupt (or stop): it was
	// interrupted (or stopped) and nothing restarts it or types into it until
	// `teamctl resume-member` (or top) releases it. live.json's Budget.Held
	// says why; the views show it over what its pane shows.
	StateHeld MemberState = "held"
	// A usage or rate limit holds it back (the Messages API answered 429):
	// until LiveMember.Reset when its screen showed one.
	StateLimited MemberState = "limited"
	// StateUnknown: it runs on a host not reached now; its pane may well
	// run on, unseen (never taken for exited).
	StateUnknown MemberState = "unknown"
)

// StateWorking is how every view (status, its JSON, up's table, top, serve)
// names an agent member (Claude Code, Codex, Gemini) whose program runs and
// is not idle: working, as against idle. live.json keeps running; Shown says
// which word a view shows.
const StateWorking MemberState = "working"

// Shown is the state as every view shows it: a running agent member (Claude
// Code, or a process running another agent CLI, agent) is working; a plain
// process, never idle, stays running.
func (s MemberState) Shown(r Role, agent string) MemberState {
	if s == StateRunning && (r != RoleProcess || agent != "") {
		return StateWorking
	}
	return s
}

// Ended reports whether the member's program is gone (exited or failed).
func (s MemberState) Ended() bool { return s == StateExited || s == StateFailed }

// EventKind is the kind of one line of events.jsonl.
type EventKind string

// Event kinds.
const (
	EventStall             EventKind = "stall"
	EventStallCleared      EventKind = "stall-cleared"
	EventIdle              EventKind = "idle"
	EventWorking           EventKind = "working"
	EventExit              EventKind = "exit"
	EventRestart           EventKind = "restart"
	EventFailed            EventKind = "failed"
	EventAdopted           EventKind = "adopted"
	EventAnswer            EventKind = "answer"
	EventNotify            EventKind = "notify"
	EventSupervisor        EventKind = "supervisor"
	EventHook              EventKind = "hook"
	EventMessage           EventKind = "message"
	EventPermissionRequest EventKind = "permission-request"
	EventPermissionAnswer  EventKind = "permission-answer"
	EventConfig            EventKind = "config"
	EventMailboxCorrupt    EventKind = "mailbox-corrupt"
	EventMailboxTooLarge   EventKind = "mailbox-too-large"
	EventFileRefused       EventKind = "file-refused" // a file of Claude Code's teamctl would not read (too large, a symlink), or a transcript naming a member it is not (not counted)
	EventTask              EventKind = "task"
	EventMember            EventKind = "member"
	EventTeamMoved         EventKind = "team-moved" // the lead claimed a Claude Code team of another name; the supervisor follows it
	EventResume            EventKind = "resume"     // up brought a lost team back: who resumed its conversation, who started afresh
	EventLost              EventKind = "lost"       // a teammate the lead spawned, gone with the team's server: the lead's to spawn again
	EventDuplicate         EventKind = "duplicate"  // a second run of a member, in a pane teamctl did not record (a relaunch cut short): ended
	// The supervisor's conflict radar: merging two members' work (uncommitted
	// included) would now conflict in Files; or no longer would.
	EventConflict         EventKind = "conflict"
	EventConflictResolved EventKind = "conflict-resolved"
	// A member's work landed by teamctl merge or finish (or top, or the
	// page): into what, by whom and by which way in.
	EventMerged EventKind = "merged"
	// Budgets (the layout's budget:): a member or the team crossed its
	// warning threshold or spent its budget (usage); a member held, or
	// stopped, for it (held), and let go again (released: `teamctl
	// resume-member` records it, the supervisor acts on it).
	EventUsage    EventKind = "usage"
	EventHeld     EventKind = "held"
	EventReleased EventKind = "released"
	// A person stopped one member (`teamctl stop`): the supervisor holds it
	// (held, stopped), so nothing restarts it until `teamctl start`
	// releases it (released).
	EventStopRequested EventKind = "stop-requested"
	// Usage limits (supervisor/limits.go): a member held back by a usage or
	// rate limit (Reset when known), no longer, and the continuation typed
	// into it once the limit reset (limits: {resume: true}).
	EventLimited      EventKind = "limited"
	EventLimitCleared EventKind = "limit-cleared"
	EventLimitResume  EventKind = "limit-resume"
)

// Role is what a member is in its team, as state.json and status record it.
type Role string

// Roles.
const (
	RoleLead     Role = "lead"     // the team's Claude Code lead
	RoleTeammate Role = "teammate" // a Claude Code teammate
	RoleProcess  Role = "process"  // a plain program, not Claude Code
)

// Origin is who started a member, as state.json, status and events record it.
type Origin string

// Origins.
const (
	OriginLayout Origin = "layout" // teamctl, from the layout
	OriginLead   Origin = "lead"   // the lead: a teammate it spawned itself
)

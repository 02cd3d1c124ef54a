// Package layouts reads a team's layout file: its schema, parsing and validation.
// Validation reports every problem at once, each with the file, line and column
// it was found at, so a person can fix a layout in one pass.
package layouts

import "time"

// Layout is a validated layout file, with defaults applied and paths absolute.
type Layout struct {
	Path        string // absolute path of the layout file ("" when parsed from bytes without a file)
	Digest      string // hex sha256 of the file's bytes
	Team        string
	Description string
	Root        string // absolute working directory of the team
	Claude      Claude
	// Agents are how the other agent CLIs are run (`agents:`), by kind:
	// AgentCodex's and AgentGemini's command (default: the kind's name) and
	// arguments.
	Agents      map[string]Claude
	Env         []EnvVar    // the team's env, in file order
	Permissions Permissions // rules for every Claude Code member
	Arrangement string      // "main-vertical" (default), "tiled" or "windows"; the `layout:` key
	Lead        Member      // Name "" in a team of plain processes: no lead: and no Claude Code member (HasLead)
	Members     []Member
	Watchdog    Watchdog
	Review      Review
	Limits      UsageLimits
	Worktrees   string // absolute folder for members' worktrees; "" for <repo>/.teamctl/worktrees
	Trust       bool   // record worktrees outside a trusted folder as trusted in Claude Code's config
	Budget      Budget // what the members may spend (budget.go)
	// Hosts are the other machines members run on (`hosts:`), by name.
	Hosts map[string]Host
}

// Worktree asks for a member's own git worktree. Empty fields take teamctl's
// defaults: branch teamctl/<team>/<member>, based on the repository's HEAD.
type Worktree struct {
	Branch, Base string
}

// Watchdog tunes the stall watchdog: when a pane counts as quiet, what it looks
// for, whom it tells, and what it may answer by itself.
type Watchdog struct {
	Quiet    time.Duration  // output quiet this long makes a pane a candidate; default 2s
	Defaults bool           // include stallwatch's default patterns (default true)
	Patterns []WatchPattern // the layout's own, in file order
	Notify   Notify
	Answer   []Answer
}

// WatchPattern is one `watchdog.patterns` entry. Regex is validated (it
// compiles with stallwatch.Compile); Scope is "lastline" (default) or "screen".
type WatchPattern struct {
	Name, Regex, Scope string
	Line, Column       int
}

// Review says what the supervisor does with what it finds of the members'
// work (its conflict radar).
type Review struct {
	TellLead bool // tell the lead of a new conflict, and of one gone, in a <task-notification> block
}

// Notify says whom the watchdog tells of a stall.
type Notify struct {
	Command []string // run with TEAMCTL_TEAM, TEAMCTL_MEMBER, TEAMCTL_PATTERN, TEAMCTL_LINE set
	Lead    bool     // tell the lead in a <task-notification> block
}

// Answer answers once per stall that matches the pattern named Pattern: a
// prompt with Keys; one of Claude Code's dialogs by choosing its Option (the
// option's text: the one that reads so, else the only one starting with it),
// which the supervisor reads on the screen, as `teamctl answer --option` does.
type Answer struct {
	Pattern string
	Keys    []string
	Option  string
}

// Permissions are Claude Code permission rules: tool uses that are allowed
// without asking, and ones that are refused.
type Permissions struct {
	Allow, Deny []Rule // in file order
}

// Rule is one permission rule, such as Bash(git status:*) or Read.
type Rule struct {
	Text         string // the rule as written
	Tool         string // the name before the parenthesis: Bash
	Pattern      string // what is inside the parentheses: git status:*; "" when there are none
	Line, Column int    // where the rule is in the file, for messages
}

// Claude says how to launch Claude Code.
type Claude struct {
	Command string   // default "claude"; TEAMCTL_CLAUDE overrides it (applied by the caller, not here)
	Args    []string // extra arguments for every Claude Code member, placed right after Command
}

// EnvVar is one NAME=VALUE setting. A slice keeps the file's order, which decides
// which setting wins when the same name appears at several levels.
type EnvVar struct {
	Name  string
	Value string
}

// Member is the lead or a teammate.
type Member struct {
	Name             string // [a-z0-9-]; the lead defaults to "lead"
	Host             string // the host of Layout.Hosts it runs on; "" for this machine
	AgentType        string
	Model            string
	Color            string // one of Colors; teammates without one get Colors in turn
	Prompt           string
	PlanModeRequired bool
	PermissionMode   string        // "" or one of PermissionModes
	TeammateMode     string        // lead only: "tmux" (default), "auto", "in-process"
	Cwd              string        // absolute; Root joined with the member's relative cwd
	Env              []EnvVar      // in file order
	Args             []string      // extra arguments after teamctl's flags
	Command          []string      // non-empty: a plain process, not Claude Code
	Agent            string        // what agent CLI it is when Command is empty: AgentClaude (""), AgentCodex, AgentGemini
	Restart          string        // one of RestartPolicies; default "on-failure"
	Permissions      Permissions   // this member's own rules, on top of the team's
	Worktree         *Worktree     // nil: the member works in Cwd itself
	Budget           *MemberBudget // its own budget: over the team's member: (nil: the team's)
	Line, Column     int           // where the member starts in the file, for messages
}

// The agent kinds a member may be (`agent:`): Claude Code, the default, or
// another vendor's CLI.
const (
	AgentClaude = "claude"
	AgentCodex  = "codex"
	AgentGemini = "gemini"
)

// AgentKinds are the values of `agent:`.
var AgentKinds = []string{AgentClaude, AgentCodex, AgentGemini}

// IsClaude reports whether the member is a Claude Code session (not a plain
// command, not another agent CLI).
func (m Member) IsClaude() bool {
	return len(m.Command) == 0 && (m.Agent == "" || m.Agent == AgentClaude)
}

// OtherAgent is the kind of agent CLI other than Claude Code the member is
// (AgentCodex, AgentGemini), or "" for Claude Code and plain processes.
func (m Member) OtherAgent() string {
	if len(m.Command) == 0 && m.Agent != "" && m.Agent != AgentClaude {
		return m.Agent
	}
	return ""
}

// Colors are Claude Code's teammate colours.
var Colors = []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}

// PermissionModes are Claude Code 2.1.328's --permission-mode choices.
var PermissionModes = []string{"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"}

// Arrangements are the values of the `layout:` key.
var Arrangements = []string{"main-vertical", "tiled", "windows"}

// RestartPolicies are the values of a member's `restart:`.
var RestartPolicies = []string{"on-failure", "never", "always"}

// TeammateModes are the values of lead.teammateMode.
var TeammateModes = []string{"tmux", "auto", "in-process"}

// HasLead reports whether the team has a lead: a Claude Code team does (the
// layout's lead:, or one implied); a team of plain processes (no lead: and
// no Claude Code member) has none, and no Claude Code team at all.
func (l *Layout) HasLead() bool { return l.Lead.Name != "" }

// All returns the lead (when there is one) followed by the teammates.
func (l *Layout) All() []Member {
	if !l.HasLead() {
		return append([]Member(nil), l.Members...)
	}
	return append([]Member{l.Lead}, l.Members...)
}

// PromptOf is the prompt of the member called name ("" for none, or no such
// member): what a relaunched teammate is given again.
func (l *Layout) PromptOf(name string) string {
	if l == nil {
		return ""
	}
	for _, m := range l.All() {
		if m.Name == name {
			return m.Prompt
		}
	}
	return ""
}

// ColorOf is the colour of the member called name ("" for none, or no such
// member, or no layout).
func (l *Layout) ColorOf(name string) string {
	if l == nil {
		return ""
	}
	for _, m := range l.All() {
		if m.Name == name {
			return m.Color
		}
	}
	return ""
}

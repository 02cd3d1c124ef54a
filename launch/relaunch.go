package launch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// ArgvFor is what x runs: its argv, or, with resume, the same resuming its
// stored conversation (ResumeArgv) — for the lead and a Claude Code teammate;
// a plain process runs its argv. Claude Code refuses a --session-id whose
// conversation exists ("Session ID … is already in use"): the caller knows
// whether Claude Code stored it (claudecode.SessionExists of x.SessionID).
func (x Launch) ArgvFor(resume bool) []string {
	switch {
	case resume && (x.Role == state.RoleLead || x.Role == state.RoleTeammate):
		return ResumeArgv(x.Role, x.Argv)
	case resume && x.ResumeArgv != nil:
		return x.ResumeArgv
	}
	return x.Argv
}

// ResumeArgv is a Claude Code member's argv for a relaunch that resumes its
// conversation: its --session-id becomes --resume (joined to the id, as
// claudecode gives session flags), and a lead's first prompt is not sent
// again. (One that never stored a conversation is relaunched as it was started.)
func ResumeArgv(role state.Role, argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case strings.HasPrefix(a, "--session-id="):
			out = append(out, claudecode.Joined("--resume", strings.TrimPrefix(a, "--session-id=")))
		case a == "--session-id" && i+1 < len(argv):
			out = append(out, claudecode.Joined("--resume", argv[i+1]))
			i++
		case a == "--" && role == state.RoleLead:
			return out // the first prompt, which the resumed conversation already has
		default:
			out = append(out, a)
		}
	}
	return out
}

// RestartWanted says whether a member's restart policy ("" is on-failure)
// relaunches it after it ended with exit status code (nil: unknown) or signal
// sig. (A member the lead spawned is never relaunched, and one that exits too
// often is given up on: see afterExit.)
func RestartWanted(policy string, code *int, sig int) bool {
	failed := sig != 0 || code == nil || *code != 0
	switch policy {
	case "never":
		return false
	case "always":
		return true
	}
	return failed
}

// EnvFlags gives env to a tmux create or respawn command (-e NAME=VALUE each;
// tmux gets them through a command file, never its command line).
func EnvFlags(env []string) []string {
	out := make([]string, 0, 2*len(env))
	for _, kv := range env {
		out = append(out, "-e", kv)
	}
	return out
}

// Decoration are the tmux commands that mark a member's pane: its title and
// teamctl's @teamctl-member (which the pane border shows, and which tells a
// pane of the team from any other), and its border in the member's colour.
func Decoration(pane, name, color string) [][]string {
	cmds := [][]string{
		{"select-pane", "-t", pane, "-T", name},
		{"set-option", "-p", "-t", pane, "@teamctl-member", name},
	}
	if c := tmuxColour(color); c != "" {
		cmds = append(cmds,
			[]string{"set-option", "-p", "-t", pane, "pane-border-style", "fg=" + c},
			[]string{"set-option", "-p", "-t", pane, "pane-active-border-style", "fg=" + c + ",bold"})
	}
	return cmds
}

// tmuxColour maps Claude Code's colour names to tmux's.
func tmuxColour(c string) string {
	switch c {
	case "purple":
		return "magenta"
	case "orange":
		return "colour208"
	case "pink":
		return "colour213"
	}
	return c
}

// ErrChanged means the layout no longer gives a member the launch it was
// started with.
var ErrChanged = errors.New("its launch in the layout is not the one it was started with")

// Relaunch is the launch of member name of team st for a relaunch in its
// place (the supervisor's restart after an exit, `teamctl restart`): its
// launch as layout l plans it now, never the argv, environment or folder
// state.json recorded. Anyone running as the user (an agent's Bash or Edit
// tool) can rewrite state.json, and what teamctl runs must not be what that
// file says; the record only picks out which launch the member was started
// with, by its digest. A member whose launch in the layout is not that one —
// the layout changed since up, or the record was edited — is refused
// (ErrChanged): `teamctl up`, with the layout the person names, decides what
// runs then.
//
// Why not run the record once its digest matches it: the digest is a hash
// anyone can recompute, so a record that agrees with itself proves nothing;
// the layout is the person's file and the plan teamctl's own.
//
// l is the team's layout, read again for each relaunch (up may have recorded
// a new launch since); progs its programs, resolved as up resolves them. A
// member with a worktree works where up placed it, in its worktree, which
// only the record holds (finding it asks git): that folder is taken only
// inside the member's own worktree, <folder>/<team>/<member>, and counts in
// the digest like the rest.
func Relaunch(l *layouts.Layout, progs Programs, st *state.Team, name string) (Launch, error) {
	m, ok := st.Member(name)
	switch {
	case !ok:
		return Launch{}, fmt.Errorf("team %s has no member %q", st.Team, name)
	case m.Origin == state.OriginLead:
		return Launch{}, fmt.Errorf("%s was spawned by the lead, which relaunches its own teammates", name)
	case l.Team != st.Team:
		return Launch{}, fmt.Errorf("the layout %s is team %s's, not %s's", l.Path, l.Team, st.Team)
	}
	if err := checkSession(st.LeadSessionID); err != nil {
		return Launch{}, fmt.Errorf("state.json of team %s: lead_session_id: %w", st.Team, err)
	}
	lm, ok := layoutMember(l, name)
	if !ok {
		return Launch{}, fmt.Errorf("%s is no longer in the layout %s: %w", name, l.Path, ErrChanged)
	}
	if lm.Worktree != nil {
		cwd, err := worktreeCwd(st, m)
		if err != nil {
			return Launch{}, err
		}
		lm.Cwd = cwd
	}
	x, err := planMember(l, progs, st.LeadSessionID, lm)
	if err != nil {
		return Launch{}, err
	}
	if !startedAs(m, x) {
		return Launch{}, fmt.Errorf("%s: %w (the layout %s, its programs or TEAMCTL_CLAUDE changed since `teamctl up`, or state.json was edited); `teamctl up %s --recreate` relaunches it as the layout says now",
			name, ErrChanged, l.Path, l.Path)
	}
	return x, nil
}

// startedAs reports whether x is the launch m was started with, as reconcile
// tells an unchanged member: its digest, or one an older teamctl recorded
// for the same launch (OldDigest, NoSessionDigest).
func startedAs(m *state.Member, x Launch) bool {
	switch {
	case m.Digest == "" || m.Role != x.Role:
		return false
	case m.Digest == x.Digest || m.Digest == x.OldDigest:
		return true
	}
	return m.Role == state.RoleTeammate && m.SessionID == "" && m.Digest == x.NoSessionDigest
}

func layoutMember(l *layouts.Layout, name string) (layouts.Member, bool) {
	for _, m := range l.All() {
		if m.Name == name {
			return m, true
		}
	}
	return layouts.Member{}, false
}

// worktreeCwd is the folder on record of m, a member with a worktree, when it
// is inside m's own worktree: <folder>/<team>/<member> (the one recorded for
// m when teamctl made it).
func worktreeCwd(st *state.Team, m *state.Member) (string, error) {
	cwd := filepath.Clean(m.Cwd)
	recorded := ""
	for _, w := range st.Worktrees {
		if w.Member == m.Name {
			recorded = filepath.Clean(w.Path)
		}
	}
	for d := cwd; filepath.IsAbs(d) && d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == m.Name && filepath.Base(filepath.Dir(d)) == st.Team && (recorded == "" || d == recorded) {
			return cwd, nil
		}
	}
	return "", fmt.Errorf("%s's folder on record, %q, is not in its worktree (…/%s/%s): was state.json edited? `teamctl up --recreate` relaunches it", m.Name, m.Cwd, st.Team, m.Name)
}

// checkSession says what is wrong with a lead's session id, nil when it is one.
func checkSession(id string) error {
	if !claudecode.ValidSessionID(id) {
		return fmt.Errorf("%q is not a Claude Code session id (a UUID)", id)
	}
	return nil
}

// RuleFolder is member name's folder as far as teamctl placed it, for the
// relative patterns of its permission rules (Read(.env), Edit(src/**)): the
// layout's folder for it, or its folder on record when that lies in its own
// worktree; for a teammate the lead spawned, the lead's folder when the
// record says it works there (as Claude Code places them). Never a folder
// only state.json or Claude Code's config says: an agent can write those, and
// a folder moved out of reach of a deny rule would let it read what the rule
// keeps from it. "" when teamctl cannot vouch for one: rules that need it
// then leave the call to a person.
func RuleFolder(l *layouts.Layout, st *state.Team, name string) string {
	m, ok := st.Member(name)
	if !ok || l == nil || l.Team != st.Team {
		return ""
	}
	if m.Origin == state.OriginLead {
		if lead := l.Lead; filepath.Clean(m.Cwd) == filepath.Clean(lead.Cwd) && lead.Worktree == nil {
			return lead.Cwd
		}
		return ""
	}
	lm, ok := layoutMember(l, name)
	if !ok {
		return ""
	}
	if lm.Worktree == nil {
		return lm.Cwd
	}
	cwd, err := worktreeCwd(st, m)
	if err != nil {
		return ""
	}
	return cwd
}

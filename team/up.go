package team

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// UpOptions tune Up.
type UpOptions struct {
	TmuxBin        string        // "" = tmux from PATH
	ClaudeOverride string        // TEAMCTL_CLAUDE: the program to launch instead of claude.command
	Recreate       bool          // restart members whose launch changed
	LayoutChange   bool          // a team up from another layout file follows this one
	ConfigWait     time.Duration // how long the lead gets to write its team config (default 5s)
	Width, Height  int           // size of a new session's window (default 200x50)
	Progress       io.Writer     // one line per member as it comes up; nil for none
	Teamctl        string        // this teamctl's path, which Claude Code's hooks call ("" for no hooks)
	// Trace, when set, gets a line per step of up with the time since it
	// began (its checks, each tmux invocation, each state save, the
	// supervisor's start): where up's time goes, for bench/up's -v.
	Trace *Tracer
	// A team whose server is gone while its state says it is up (a reboot, a
	// killed server) is resumed: every conversation goes on. Fresh starts it
	// anew instead; Resume resumes a team stopped with down too.
	Fresh, Resume bool
}

// UpResult says what Up did.
type UpResult struct {
	Team      *state.Team
	Started   []string // members launched in a new pane
	Respawned []string // members relaunched in their pane (exited, or changed with --recreate)
	Kept      []string // members left running
	Notes     []string // things a person should know
	// NotStarted are members on a host that was not reached, or refused
	// (Notes say why): the rest of the team is up without them.
	NotStarted []string
	// For a team brought back on a new server: the members whose
	// conversation goes on, those whose could not (started afresh), and the
	// teammates the lead had spawned, which are the lead's to spawn again.
	Resumed, Afresh, Lost []string
}

// SocketName is the team's private tmux socket (state.SocketName: derived
// from the team's name, never read from state).
func SocketName(team string) string { return state.SocketName(team) }

// CheckSocket says when the team's socket path (under TMUX_TMPDIR) is too
// long for a Unix socket, which tmux would report only as a server that is
// not running.
func CheckSocket(team string) error { return tmux.CheckSocketPath(SocketName(team)) }

const idFormat = "#{pane_id}\x1f#{pane_pid}\x1f#{window_id}"

// Up brings the team of layout l up on its private tmux server, or completes it
// when it is already up: running members are left alone, missing ones started.
func Up(ctx context.Context, l *layouts.Layout, o UpOptions) (*UpResult, error) {
	return up(ctx, l, o, realWorld(o.TmuxBin))
}

func up(ctx context.Context, l *layouts.Layout, o UpOptions, w world) (*UpResult, error) {
	progs, err := checkUp(ctx, l, &o, w)
	if err != nil {
		return nil, err
	}
	unlock, err := state.Lock(ctx, l.Team)
	o.Trace.Step("the team's lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return lockedUp(ctx, l, o, w, progs)
}

// checkUp is what up checks before it takes the team's lock (which makes
// the team's state folder): nothing is made for a layout it refuses.
func checkUp(ctx context.Context, l *layouts.Layout, o *UpOptions, w world) (launch.Programs, error) {
	if o.ConfigWait == 0 {
		o.ConfigWait = 5 * time.Second
	}
	if err := checkRemote(l); err != nil {
		return launch.Programs{}, err
	}
	if err := w.checkTmux(ctx); err != nil {
		return launch.Programs{}, err
	}
	o.Trace.Step("tmux -V (tmux is there, new enough)")
	if err := CheckSocket(l.Team); err != nil {
		return launch.Programs{}, err
	}
	progs, err := launch.ResolvePrograms(l, o.ClaudeOverride)
	if err != nil {
		return progs, err
	}
	progs.Teamctl = o.Teamctl
	// A layout's own --settings must be readable before anything is made
	// (worktrees, a server): Plan merges teamctl's hooks into it.
	err = launch.CheckSettings(l)
	o.Trace.Step("checks (socket path, programs, settings)")
	return progs, err
}

// lockedUp is up once checkUp passed, its caller holding the team's lock:
// for the whole run, so that a clean or down of the team never acts while
// it makes worktrees, panes and the team's record (BringUp holds it until
// the supervisor runs).
func lockedUp(ctx context.Context, l *layouts.Layout, o UpOptions, w world, progs launch.Programs) (*UpResult, error) {
	u := &upRun{l: l, o: o, progs: progs, w: w, srv: w.tmux(l.Team), res: &UpResult{}}
	if err := u.withHosts(ctx); err != nil {
		return nil, err
	}
	prev, err := state.Load(l.Team)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return nil, err
	}
	// The team's server is found by its socket and its panes by id: a session
	// renamed by hand is still the team's, never a reason to start another.
	panes, err := u.srv.ListPanes(ctx)
	o.Trace.Step("tmux list-panes (is the team's server up)")
	if err != nil && !isNoServer(err) {
		return nil, err
	}
	alive := len(panes) > 0
	if alive && (prev == nil || !prev.Running()) {
		socket := SocketName(l.Team)
		return nil, fmt.Errorf("team %q has a tmux server (%s) that teamctl has no state for: stop it with `tmux -L %s kill-server`, or `teamctl down --team %s`", l.Team, socket, socket, l.Team)
	}
	if alive && !o.LayoutChange && !o.Recreate && prev.LayoutPath != "" && !sameFile(prev.LayoutPath, l.Path) {
		// Same team name, another file: most likely two layouts that picked the
		// same name, and reconciling would turn one team into the other.
		return nil, fmt.Errorf("team %s is up from %s, not from %s: `teamctl up %s --layout-change` makes the team follow this file (members it does not name keep running until down; --recreate also restarts the changed ones), or give this layout another team name", l.Team, prev.LayoutPath, l.Path, l.Path)
	}
	var known []state.Worktree
	if prev != nil {
		known = prev.Worktrees
	}
	wl, wts, err := u.prepareWorktrees(ctx, known)
	if err != nil {
		if len(wts) > len(known) {
			recordWorktrees(prev, l, wts, w.clock.Now())
		}
		return nil, err
	}
	u.l, u.wts = wl, wts
	if !alive {
		u.warnUntrusted(ctx, l)
	}
	resume := prev != nil && !o.Fresh && (prev.Running() || o.Resume) && prev.LeadSessionID != ""
	if alive || resume {
		// The lead's session goes into every Claude Code member's argv.
		if err := checkLeadSession(prev, alive); err != nil {
			return nil, err
		}
	}
	switch {
	case alive:
		err = u.reconcile(ctx, prev)
	case resume:
		err = u.start(ctx, prev, true)
	default:
		err = u.start(ctx, prev, false)
	}
	u.res.Team = u.st
	return u.res, err
}

// checkLeadSession refuses a state whose lead session is not a session id
// (claudecode.ValidSessionID): up takes it from state.json, which anyone
// running as the user can edit, to resume or complete the team, and it goes
// into every Claude Code member's argv (--session-id, --resume,
// --parent-session-id) — `--dangerously-skip-permissions` would read as a flag.
func checkLeadSession(prev *state.Team, alive bool) error {
	if claudecode.ValidSessionID(prev.LeadSessionID) {
		return nil
	}
	fix := "`teamctl up --fresh` starts the team anew"
	if alive {
		fix = "fix the file, or `teamctl down` the team and `teamctl up` it anew"
	}
	dir, _ := state.Dir(prev.Team)
	return fmt.Errorf("%s: field \"lead_session_id\" is %q, not a Claude Code session id (a UUID); was the file edited? %s",
		filepath.Join(dir, "state.json"), prev.LeadSessionID, fix)
}

// sameFile reports whether two layout paths name the same file: equal once
// cleaned and symlinks resolved (a file that is gone is compared as written).
func sameFile(a, b string) bool {
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return resolve(a) == resolve(b)
}

type upRun struct {
	l      *layouts.Layout
	o      UpOptions
	progs  launch.Programs
	w      world
	srv    tmuxServer
	res    *UpResult
	st     *state.Team
	target string           // the team's session, exactly (its id once the server runs)
	wts    []state.Worktree // the worktrees teamctl made, for state
	// fresh: the team starts anew (not resumed, not reconciled): a Codex
	// or Gemini member starts a new session even where its home has one.
	fresh bool
	// hosts are the hosts where members run, and hostErr why one was not
	// reached (remote.go).
	hosts   []state.Host
	hostErr map[string]error
}

// recordWorktrees saves the worktrees made by an up that failed later, so
// that clean knows them as teamctl's.
func recordWorktrees(prev *state.Team, l *layouts.Layout, wts []state.Worktree, now time.Time) {
	st := prev
	if st == nil {
		now = now.UTC()
		st = &state.Team{Team: l.Team, LayoutPath: l.Path, LayoutDigest: l.Digest, LayoutFile: stampOf(l.Path), Socket: state.SocketName(l.Team),
			SocketPath: state.SocketPath(l.Team), Session: l.Team, CreatedAt: now, UpdatedAt: now, StoppedAt: &now}
	}
	st.Worktrees = wts
	state.Save(st)
}

func (u *upRun) progress(format string, a ...any) {
	if u.o.Progress != nil {
		fmt.Fprintf(u.o.Progress, format+"\n", a...)
	}
}

// configDir is Claude Code's folder of the team (launch.ClaudeConfigDir),
// from the layout and teamctl's environment: never state.json's record.
func (u *upRun) configDir() string { return launch.ClaudeConfigDir(u.l, os.Getenv) }

// start starts a new server: the lead first, then (once the lead's team config
// exists, since teammates cannot reach the lead without it) everyone else.
// With resume, the team prev recorded comes back: the lead in the same Claude
// Code team under the same session, every Claude Code member resuming its
// conversation where Claude Code stored one (--resume, no first prompt
// again), plain processes as they were; what it queued for the lead and which
// messages were reported are kept. Otherwise it starts anew, and prev's Claude
// Code team is kept on record (Earlier) for clean.
func (u *upRun) start(ctx context.Context, prev *state.Team, resume bool) error {
	u.fresh = !resume
	now := u.w.clock.Now().UTC()
	leadSession := claudecode.NewSessionID()
	if resume {
		leadSession = prev.LeadSessionID
	}
	plan, err := u.planned(leadSession)
	if err != nil {
		return err
	}
	u.st = &state.Team{
		Team: u.l.Team, LayoutPath: u.l.Path, LayoutDigest: u.l.Digest, LayoutFile: stampOf(u.l.Path),
		Socket: state.SocketName(u.l.Team), SocketPath: state.SocketPath(u.l.Team), Session: u.l.Team,
		// u.st.ClaudeConfig is where up writes (a fresh state and reconcile
		// both set it from configDir), and is recorded as that.
		ClaudeTeam: claudecode.LeadTeamName(leadSession), ClaudeConfig: u.configDir(),
		LeadSessionID: leadSession, CreatedAt: now, UpdatedAt: now, Worktrees: u.wts,
	}
	if prev != nil {
		u.st.Earlier = prev.Earlier
	}
	if !u.l.HasLead() {
		// A team of plain processes has no Claude Code team: nothing of
		// Claude Code's is written or followed for it.
		u.st.ClaudeTeam = ""
	}
	if resume {
		u.st.CreatedAt = prev.CreatedAt
		if u.l.HasLead() {
			u.st.ClaudeTeam, u.st.ClaudeTeamSession = prev.ClaudeTeam, prev.ClaudeTeamSession // a team the lead moved to stays followed
		} else if prev.ClaudeTeam != "" {
			u.st.Earlier = append(u.st.Earlier, state.Earlier{ClaudeTeam: prev.ClaudeTeam, ClaudeTeamSession: prev.ClaudeTeamSession,
				ClaudeConfig: prev.ClaudeConfig, LeadSessionID: prev.LeadSessionID, Until: now})
		}
		if err := state.ForgetLiveMembers(u.l.Team); err != nil {
			return err
		}
		u.resuming(prev, plan)
		if u.st.ClaudeTeam != "" {
			// A lead the loss SIGKILLed while it wrote its team's config left
			// Claude Code's lock on it.
			note, err := waitTeamLock(ctx, u.configDir(), leadSession, u.progress)
			if err != nil {
				return err
			}
			if note != "" {
				u.note("%s", note)
			}
		}
	} else {
		state.ClearLive(u.l.Team)
		state.ClearLastWords(u.l.Team) // of a life the team no longer has (pane ids start again)
		if prev != nil && prev.ClaudeTeam != "" {
			// prev.ClaudeConfig is carried as the record it is: clean looks
			// in the team's folder of its own environment, never in this.
			u.st.Earlier = append(u.st.Earlier, state.Earlier{ClaudeTeam: prev.ClaudeTeam, ClaudeTeamSession: prev.ClaudeTeamSession,
				ClaudeConfig: prev.ClaudeConfig, LeadSessionID: prev.LeadSessionID, Until: now})
		}
	}

	w, h := u.o.Width, u.o.Height
	if w <= 0 {
		w = 200
	}
	if h <= 0 {
		h = 50
	}
	if min := 3*len(plan) + 2; h < min && u.l.Arrangement != "windows" {
		h = min // every stacked pane needs a line and a border
	}
	plan, remote := splitRemote(plan)
	lead := plan[0]
	u.target = tmux.SessionTarget(u.l.Team) // made just below, under this name
	var b tmux.Batch
	b.Add("start-server")
	b.Add("set-option", "-g", "remain-on-exit", "on")
	b.Add("set-option", "-g", "pane-border-status", "top")
	b.Add("set-option", "-g", "pane-border-format", " #{?@teamctl-member,#{@teamctl-member},#{pane_title}} ")
	args := []string{"new-session", "-d", "-s", u.l.Team, "-n", lead.Member.Name,
		"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-c", tmux.EscapeFormat(lead.Cwd)}
	args = append(args, launch.EnvFlags(lead.Env)...)
	args = append(args, "-P", "-F", idFormat)
	b.Add(append(args, tmux.CommandArgs(u.argv(lead))...)...)
	// new-session's -e also lands in the session's environment, which every later
	// pane inherits: take the lead's own settings back out, and leave there only
	// the team's env, which teammates the lead spawns itself must get.
	sessionEnv := launch.SessionEnv(u.l)
	keep := map[string]bool{}
	for _, kv := range sessionEnv {
		name, val, _ := strings.Cut(kv, "=")
		keep[name] = true
		b.Add("set-environment", "-t", u.target, name, val)
	}
	for _, kv := range lead.Env {
		if name, _, _ := strings.Cut(kv, "="); !keep[name] {
			b.Add("set-environment", "-u", "-t", u.target, name)
		}
	}
	if u.l.Arrangement == "main-vertical" {
		b.Add("set-option", "-w", "-t", u.target+":", "main-pane-width", "30%")
	}
	out, err := u.srv.StartBatch(ctx, &b)
	u.o.Trace.Step(fmt.Sprintf("tmux start batch (%d commands: the server, the session, the first pane)", b.Len()))
	if err != nil {
		u.srv.KillServer(context.WithoutCancel(ctx))
		return fmt.Errorf("start the team's tmux server: %w", err)
	}
	if len(out) != 1 {
		u.srv.KillServer(context.WithoutCancel(ctx))
		return fmt.Errorf("start the team's tmux server: unexpected output %q", out)
	}
	if err := u.record(lead, out[0], u.w.clock.Now().UTC()); err != nil {
		return err
	}
	u.res.Started = append(u.res.Started, lead.Member.Name)
	if err := state.Save(u.st); err != nil {
		return err
	}
	u.o.Trace.Step("state saved")

	rest := plan[1:]
	// Teammates on other hosts too: they need the lead's team config (the
	// relay carries it there), and their prompts go into their mailboxes
	// here, on their way to them.
	if err := u.prepareTeammates(ctx, append(slices.Clone(rest), remote...)); err != nil {
		return err
	}
	if err := u.create(ctx, rest); err != nil {
		return err
	}
	return u.createRemote(ctx, remote)
}

// prepareTeammates makes sure the lead's team config exists, then leaves each
// teammate's prompt in its mailbox, where Claude Code delivers it as the first
// turn (not for one that resumes its conversation).
func (u *upRun) prepareTeammates(ctx context.Context, launches []launch.Launch) error {
	var mates []launch.Launch
	for _, x := range launches {
		if x.Role == state.RoleTeammate {
			mates = append(mates, x)
		}
	}
	if len(mates) == 0 {
		return nil
	}
	cfgPath, err := claudecode.TeamConfigPath(u.st.ClaudeConfig, u.st.ClaudeTeam)
	if err != nil {
		return err
	}
	if !claudecode.TeamConfigReady(cfgPath) {
		// Teammates cannot start before it: the longest wait of a fresh up.
		u.progress("waiting up to %s for the lead's team config (teammates need it)…", u.o.ConfigWait)
	}
	wctx, cancel := context.WithTimeout(ctx, u.o.ConfigWait)
	err = claudecode.WaitTeamConfig(wctx, cfgPath)
	cancel()
	if err != nil {
		// A placeholder, which a Claude Code lead that is only slow takes over
		// under the same name when it gets there (one naming the lead's own
		// process would send it to another team).
		written, werr := claudecode.EnsureTeamConfig(u.st.ClaudeConfig, u.st.ClaudeTeam, u.st.ClaudeLeadSession(), u.l.Lead.Cwd, u.w.clock.Now())
		if werr != nil {
			return fmt.Errorf("write the team config teammates need: %w", werr)
		}
		if written {
			note := fmt.Sprintf("the lead wrote no team config within %s; wrote a placeholder at %s", u.o.ConfigWait, cfgPath)
			u.res.Notes = append(u.res.Notes, note)
			u.progress("note: %s", note)
		}
	}
	placeholder := false
	if cfg, err := claudecode.ReadTeamConfig(cfgPath); err == nil && cfg.IsPlaceholder() {
		placeholder = true
	}
	for _, x := range mates {
		if x.Member.Prompt == "" || u.resumes(x) {
			continue // a resumed conversation has had its prompt
		}
		if placeholder && !slices.Contains(u.st.PromptsInPlaceholder, x.Member.Name) {
			u.st.PromptsInPlaceholder = append(u.st.PromptsInPlaceholder, x.Member.Name)
		}
		inbox, err := claudecode.InboxPath(u.st.ClaudeConfig, u.st.ClaudeTeam, x.Member.Name)
		if err != nil {
			return err
		}
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = claudecode.AppendMessage(mctx, inbox, claudecode.PromptMessage(x.Member.Prompt, u.w.clock.Now()))
		cancel()
		if err != nil {
			return fmt.Errorf("give %s its prompt: %w", x.Member.Name, err)
		}
	}
	return nil
}

// create opens a pane for each launch, names and colours it (and the
// panes already there), and leaves the lead's pane selected, in one tmux
// invocation, then saves state. A new pane's id is printed only once the
// batch has run, so each is decorated as the pane just made: made without
// -d it is its window's active pane, that window named by its id when the
// pane is split beside the lead (a window a person made and looks at may
// be the session's current one), or as the session's current window when
// it is a new window (new-window makes it so). (A second tmux invocation
// for the decoration, once the ids were known, cost up a tmux client's
// start, and in a team of agents starting on two cores, a long one.)
func (u *upRun) create(ctx context.Context, launches []launch.Launch) error {
	if len(launches) == 0 {
		return u.decorate(ctx)
	}
	leadPane := u.mainPane()
	var b tmux.Batch
	colors := u.colors()
	isNew := map[string]bool{}
	for _, x := range launches {
		isNew[x.Member.Name] = true
	}
	u.decorations(&b, colors, isNew)
	split := u.l.Arrangement != "windows" && leadPane != ""
	made := u.target + ":" // the pane just made, as a target
	if split {
		made = u.windowOf(leadPane)
	}
	for i, x := range launches {
		var args []string
		if split {
			// -f splits the whole window, so the new pane comes last and the
			// teammates keep the layout's order.
			args = []string{"split-window", "-h", "-f", "-t", leadPane}
		} else {
			args = []string{"new-window", "-t", u.target + ":", "-n", x.Member.Name}
		}
		args = append(args, "-c", tmux.EscapeFormat(x.Cwd))
		args = append(args, launch.EnvFlags(x.Env)...)
		args = append(args, "-P", "-F", idFormat)
		b.Add(append(args, tmux.CommandArgs(u.argv(x))...)...)
		for _, c := range launch.Decoration(made, x.Member.Name, colors[x.Member.Name]) {
			b.Add(c...)
		}
		if split && i < len(launches)-1 {
			// Re-spread after every split so the next one always has room
			// (after the last, selectMain's).
			b.Add("select-layout", "-t", leadPane, u.l.Arrangement)
		}
	}
	u.selectMain(&b, leadPane)
	u.o.Trace.Step("teammates prepared")
	out, err := u.runCreate(ctx, &b, launches)
	u.o.Trace.Step(fmt.Sprintf("tmux create batch (%d commands: %d panes, titled and coloured, the lead's pane selected)", b.Len(), len(launches)))
	if err != nil {
		return err
	}
	started := u.w.clock.Now().UTC() // each member's own start: after the lead's, after the config wait
	for i, x := range launches {
		if err := u.record(x, out[i], started); err != nil {
			return err
		}
		u.res.Started = append(u.res.Started, x.Member.Name)
	}
	if err := state.Save(u.st); err != nil {
		return err
	}
	u.o.Trace.Step("state saved")
	return nil
}

// windowOf is the id of the window of the team's pane pane (its active
// pane as a target); the session's current window when it is not recorded.
func (u *upRun) windowOf(pane string) string {
	for _, m := range u.st.Members {
		if m.Pane == pane && m.Window != "" {
			return m.Window
		}
	}
	return u.target + ":"
}

// decorations adds to b the commands that title and colour each member's
// pane here by its id, but for those of skip (panes not made yet).
func (u *upRun) decorations(b *tmux.Batch, colors map[string]string, skip map[string]bool) {
	for _, m := range u.st.Members {
		if m.Remote() || skip[m.Name] {
			continue // decorated on its host (createOn), or as it is made
		}
		for _, c := range launch.Decoration(m.Pane, m.Name, colors[m.Name]) {
			b.Add(c...)
		}
	}
}

// colors are the layout's members' colours, by name.
func (u *upRun) colors() map[string]string {
	colors := map[string]string{}
	for _, m := range u.l.All() {
		colors[m.Name] = m.Color
	}
	return colors
}

// selectMain ends a batch with the main pane (mainPane) laid out around
// and selected, its window current.
func (u *upRun) selectMain(b *tmux.Batch, main string) {
	if main == "" {
		return
	}
	if u.l.Arrangement != "windows" {
		b.Add("select-layout", "-t", main, u.l.Arrangement)
	}
	b.Add("select-window", "-t", main)
	b.Add("select-pane", "-t", main)
}

// mainPane is the pane the others are laid out around: the lead's, or in a
// team of plain processes the first of the layout's members that has one.
func (u *upRun) mainPane() string {
	for _, m := range u.l.All() {
		if m.Host != "" {
			continue // its own host's server
		}
		if r, ok := u.st.Member(m.Name); ok {
			return r.Pane
		}
		if u.l.HasLead() {
			return "" // the lead has no pane: each new one in a window of its own
		}
	}
	return ""
}

// runCreate runs a batch of pane creations. When tmux stops part-way, the panes
// it did create are found by their command and recorded, so `down` can end them.
func (u *upRun) runCreate(ctx context.Context, b *tmux.Batch, launches []launch.Launch) ([]string, error) {
	out, err := u.srv.RunBatch(ctx, b)
	if err == nil && len(out) != len(launches) {
		err = fmt.Errorf("tmux printed %d pane IDs for %d new panes", len(out), len(launches))
	}
	if err != nil {
		for i, line := range out {
			if i < len(launches) {
				_ = u.record(launches[i], line, u.w.clock.Now().UTC())
			}
		}
		_ = state.Save(u.st)
		return nil, fmt.Errorf("create panes: %w", err)
	}
	return out, nil
}

// record notes a launched member in the state, from tmux's "pane pid window" line.
func (u *upRun) record(x launch.Launch, line string, now time.Time) error {
	f := strings.Split(line, "\x1f")
	if len(f) != 3 {
		return fmt.Errorf("unexpected tmux output %q for %s", line, x.Member.Name)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("unexpected tmux output %q for %s", line, x.Member.Name)
	}
	u.recordMember(x, state.Member{
		Name: x.Member.Name, Role: x.Role, Origin: state.OriginLayout, Pane: f[0], Window: f[2], PID: pid,
		SessionID: x.SessionID, Agent: x.Member.OtherAgent(), Cwd: x.Cwd, Argv: x.Argv, Env: x.Env, Restart: x.Member.Restart,
		Digest: x.Digest, StartedAt: now,
	}, now)
	return nil
}

// recordMember puts m, launched as x, in the team's state.
func (u *upRun) recordMember(x launch.Launch, m state.Member, now time.Time) {
	if old, ok := u.st.Member(m.Name); ok {
		m.Restarts = old.Restarts
		*old = m
	} else {
		u.st.Members = append(u.st.Members, m)
	}
	u.st.UpdatedAt = now
	where := fmt.Sprintf("pid %d", m.PID)
	if m.Host != "" {
		where = fmt.Sprintf("pid %d on %s", m.PID, m.Host)
	}
	u.progress("%-16s %-8s pane %-4s %s", m.Name, m.Role, m.Pane, where)
}

// decorate titles every member's pane with its name, colours its border, and
// leaves the lead's pane (mainPane) selected, in one tmux invocation.
func (u *upRun) decorate(ctx context.Context) error {
	var b tmux.Batch
	u.decorations(&b, u.colors(), nil)
	u.selectMain(&b, u.mainPane())
	_, err := u.srv.RunBatch(ctx, &b)
	u.o.Trace.Step(fmt.Sprintf("tmux decorate batch (%d commands: titles, colours, the lead's pane selected)", b.Len()))
	if err != nil {
		return fmt.Errorf("name the panes: %w", err)
	}
	return nil
}

package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/trust"
)

// The verbs' decisions, driven without tmux, processes or waiting: a fake
// tmux server holds the team's panes and answers what the verbs ask, fake
// signals end (or fail to end) the panes' processes, and a fake clock says
// when. Every tmux command and every signal goes into one log, in order, as
// the verbs asked for them, so that a test states exactly what a verb did
// (smug's and gh's exact-argv tests). A fakeWorld is one test's world, with
// its state, Claude Code folder and layouts in a temp folder.

// fakeWorld is a test's world: the fake tmux servers by team, the fake
// processes and clock, and the log of what was asked of them.
type fakeWorld struct {
	t       *testing.T
	ctx     context.Context
	dir     string
	claude  string // the program a layout's claude.command becomes (TEAMCTL_CLAUDE)
	clock   *fakeClock
	servers map[string]*fakeServer
	log     []string // every tmux command and signal, in order
	nextPID int
	// stubborn are the pids that only SIGKILL ends (End reports them killed).
	stubborn map[int]bool
	// onWait runs when the verbs wait for process groups to end by
	// themselves (down's shutdown request): it says which are gone.
	onWait func(targets []proc.Target) map[proc.Target]bool
	// supervisor is the supervisor lock this test holds as the team's
	// supervisor (takeSupervisor), released when it is ended.
	supervisor *state.SupervisorLock
	// leadWritesConfig: a lead started with --session-id writes its team's
	// config at once, as Claude Code does (else up writes a placeholder).
	leadWritesConfig bool
	// trusted are the folders Claude Code trusts.
	trusted map[string]bool
	// plan are the launches expand fills in, by member (planned).
	plan map[string]launch.Launch
}

// fakeLeadTeamctl is the teamctl the members' hooks call.
const fakeTeamctl = "/bin/teamctl"

// newFakeWorld makes an empty world: state, tmux sockets, HOME and Claude
// Code's folder in a temp folder, and the claude program.
func newFakeWorld(t *testing.T) *fakeWorld {
	t.Helper()
	dir := memDir(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("TMUX_TMPDIR", dir)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
	t.Setenv("TEAMCTL_TEAM", "")
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMCTL_CLAUDE", claude)
	return &fakeWorld{t: t, ctx: context.Background(), dir: dir, claude: claude,
		clock:   &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		servers: map[string]*fakeServer{}, nextPID: 5_000_000, // pids no process has: nothing real is ever signalled
		stubborn: map[int]bool{}, leadWritesConfig: true}
}

// memDir is a temp folder on a memory file system (/dev/shm) when there is
// one: every state.json, mailbox and team config is written atomically, with
// an fsync that on a disk waits for the journal every other test's writes
// fill (as claudecode's memInbox).
func memDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "teamctl-team-")
	if err != nil {
		return t.TempDir() // no /dev/shm: on disk, only slower
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// world is the verbs' world made of the fakes.
func (f *fakeWorld) world() world {
	return world{
		tmux:      func(name string) tmuxServer { return f.server(name) },
		checkTmux: func(context.Context) error { return nil },
		clock:     f.clock,
		procs:     fakeProcs{f},
		teamctl:   func() (string, error) { return fakeTeamctl, nil },
		trustOf:   f.trustOf,
	}
}

// trustOf is trust.Of in a world where no folder is in a git repository and
// Claude Code trusts none but those in trusted.
func (f *fakeWorld) trustOf(_ context.Context, l *layouts.Layout) []trust.Folder {
	var out []trust.Folder
	for _, m := range l.All() {
		if m.IsClaude() {
			out = append(out, trust.Folder{Member: m.Name, Dir: m.Cwd, Trusted: f.trusted[m.Cwd]})
		}
	}
	return out
}

// server is the fake server of team name (not running until something
// starts it).
func (f *fakeWorld) server(name string) *fakeServer {
	s := f.servers[name]
	if s == nil {
		s = &fakeServer{f: f, team: name, screens: map[string]string{}, history: map[string][]string{}}
		f.servers[name] = s
	}
	return s
}

// open opens team name in the fake world.
func (f *fakeWorld) open(name string) *Team {
	f.t.Helper()
	tm, err := open(name, f.world())
	if err != nil {
		f.t.Fatal(err)
	}
	return tm
}

// layout writes a layout file and parses it.
func (f *fakeWorld) layout(file, body string) *layouts.Layout {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, file), []byte(body), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return f.parse(file)
}

// parse parses a layout file of the world's.
func (f *fakeWorld) parse(file string) *layouts.Layout {
	f.t.Helper()
	l, err := layouts.Parse(filepath.Join(f.dir, file))
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

// up brings layout l up in the fake world and forgets what that asked of
// tmux: a team for a test of another verb.
func (f *fakeWorld) up(l *layouts.Layout) *state.Team {
	f.t.Helper()
	res, err := up(f.ctx, l, UpOptions{ClaudeOverride: f.claude, Teamctl: fakeTeamctl}, f.world())
	if err != nil {
		f.t.Fatal(err)
	}
	f.log = nil
	return res.Team
}

// state is team's state as it is on disk.
func (f *fakeWorld) state(team string) *state.Team {
	f.t.Helper()
	st, err := state.Load(team)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// takeSupervisor makes this test the team's running supervisor: it holds
// the supervisor lock (state.SupervisorPID says this process), and ending
// it (End of this process) lets the lock go.
func (f *fakeWorld) takeSupervisor(team string) {
	f.t.Helper()
	l, err := state.TakeSupervisorLock(team)
	if err != nil {
		f.t.Fatal(err)
	}
	f.supervisor = l
	f.t.Cleanup(func() {
		if f.supervisor != nil {
			f.supervisor.Release()
		}
	})
}

// events are team's events of kind, in order.
func (f *fakeWorld) events(team string, kind state.EventKind) []state.Event {
	f.t.Helper()
	evs, err := state.ReadEvents(team)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []state.Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// who names a pid in the log: the member whose pane runs it, "supervisor"
// for this test's own pid, else the number.
func (f *fakeWorld) who(pid int) string {
	if pid == os.Getpid() {
		return "supervisor"
	}
	for _, s := range f.servers {
		for _, p := range s.panes {
			if p.PID == pid && p.Member != "" {
				return p.Member
			}
		}
	}
	return strconv.Itoa(pid)
}

// wantLog compares the log with want, each entry with ${…} expanded (see
// expand), and says where they part.
func (f *fakeWorld) wantLog(want ...string) {
	f.t.Helper()
	for i := range want {
		want[i] = f.expand(want[i])
	}
	if slices.Equal(f.log, want) {
		return
	}
	f.t.Errorf("asked of tmux and processes:\n%s\nwant:\n%s", showLog(f.log), showLog(want))
}

// showLog writes a log a line an entry, a batch's commands a line each.
func showLog(log []string) string {
	var b strings.Builder
	for i, e := range log {
		fmt.Fprintf(&b, "  %2d %s\n", i, strings.ReplaceAll(e, " ; ", "\n       ; "))
	}
	return b.String()
}

// expand fills what a test cannot write down ahead: ${cwd} (the world's
// folder), ${idf} (the format of the ids a new pane prints), ${socket TEAM}
// (the team's socket path) and, for each
// member of the plan (planned), ${env NAME} (its -e flags), ${run NAME} (its
// argv as a pane runs it) and ${resume NAME} (the same, resuming its
// conversation): what a launch holds is launch's business (launch/plan_test.go);
// that each pane runs its member's planned launch is team's.
func (f *fakeWorld) expand(s string) string {
	pairs := []string{"${cwd}", f.dir, "${idf}", word(idFormat)}
	for name := range f.servers {
		pairs = append(pairs, "${socket "+name+"}", state.SocketPath(name))
	}
	for name, x := range f.plan {
		pairs = append(pairs, "${env "+name+"}", argv(launch.EnvFlags(x.Env)),
			"${run "+name+"}", argv(tmux.CommandArgs(x.Argv)),
			"${resume "+name+"}", argv(tmux.CommandArgs(x.ArgvFor(true))))
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// planned makes l's launches under lead session the plan expand fills in.
func (f *fakeWorld) planned(l *layouts.Layout, leadSession string) {
	f.t.Helper()
	progs, err := launch.ResolvePrograms(l, f.claude)
	if err != nil {
		f.t.Fatal(err)
	}
	progs.Teamctl = fakeTeamctl
	plan, err := launch.Plan(l, progs, leadSession)
	if err != nil {
		f.t.Fatal(err)
	}
	f.plan = map[string]launch.Launch{}
	for _, x := range plan {
		f.plan[x.Member.Name] = x
	}
}

// batch is one tmux invocation of several commands, as the log shows it.
func batch(cmds ...string) string { return strings.Join(cmds, " ; ") }

// argv writes a command as the log shows it: its words separated by
// spaces, each quoted when it holds anything but plain characters.
func argv(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = word(a)
	}
	return strings.Join(out, " ")
}

func word(a string) string {
	if a == "" || strings.ContainsFunc(a, func(r rune) bool { return r <= ' ' || r > '~' || strings.ContainsRune(`"'\;`, r) }) {
		return strconv.Quote(a)
	}
	return a
}

// fakeClock is a clock that says what it is told.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// fakeProcs ends the fake panes' processes.
type fakeProcs struct{ f *fakeWorld }

func (p fakeProcs) targets(ts []proc.Target) string {
	var out []string
	for _, t := range ts {
		kind := "process"
		if t.Group {
			kind = "group"
		}
		out = append(out, kind+" "+p.f.who(t.PID))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// End ends the targets: a pane whose process group it is becomes dead
// (SIGTERM: status 143 ... as tmux would show it, signal 15), and this
// test's supervisor lets its lock go. Stubborn pids need SIGKILL.
func (p fakeProcs) End(_ context.Context, targets []proc.Target, grace time.Duration) proc.EndResult {
	f := p.f
	f.log = append(f.log, fmt.Sprintf("end %s (grace %s)", p.targets(targets), grace))
	var r proc.EndResult
	for _, t := range targets {
		if f.stubborn[t.PID] {
			r.Killed = append(r.Killed, t)
		} else {
			r.Terminated = append(r.Terminated, t)
		}
		if t.PID == os.Getpid() && f.supervisor != nil {
			f.supervisor.Release()
			f.supervisor = nil
		}
		for _, s := range f.servers {
			for _, pn := range s.panes {
				if pn.PID == t.PID && !pn.Dead {
					pn.Dead, pn.DeadSignal = true, 15
				}
			}
		}
	}
	return r
}

func (p fakeProcs) Wait(_ context.Context, targets []proc.Target, d time.Duration) map[proc.Target]bool {
	f := p.f
	f.log = append(f.log, fmt.Sprintf("wait for %s (%s)", p.targets(targets), d))
	if f.onWait == nil {
		return map[proc.Target]bool{}
	}
	return f.onWait(targets)
}

func (p fakeProcs) EndStrays(_ context.Context, socketPath string, grace time.Duration) []int {
	p.f.log = append(p.f.log, fmt.Sprintf("end strays of %s (grace %s)", socketPath, grace))
	return nil
}

// fakePane is one pane of a fake server, with what it shows.
type fakePane struct {
	tmux.Pane
}

// fakeServer is one team's tmux server in memory.
type fakeServer struct {
	f                                 *fakeWorld
	team                              string
	running                           bool
	panes                             []*fakePane
	screens                           map[string]string   // by pane: its screen
	history                           map[string][]string // by pane: what HistoryArgs captures
	nextPane, nextWindow, nextSession int
	// current is the pane last made without -d: its window's active pane in
	// the session's current window, what a target "=SESSION:" or "$N:" names.
	current *fakePane
	// fail makes the commands so named fail (the first word of what is
	// logged: "replace-pane", "send-keys").
	fail map[string]error
}

// log writes down a command; err is its failure, if it is to fail.
func (s *fakeServer) log(entry string) error {
	s.f.log = append(s.f.log, entry)
	if !s.running {
		return fmt.Errorf("%s: %w", name(entry), tmux.ErrNoServer)
	}
	return s.fail[name(entry)]
}

// name is the command of a log entry (its first word).
func name(entry string) string {
	n, _, _ := strings.Cut(strings.TrimPrefix(entry, "start: "), " ")
	return n
}

func (s *fakeServer) pane(id string) *fakePane {
	if strings.HasSuffix(id, ":") { // a session ("=alpha:", "$0:"): its current pane
		return s.current
	}
	if strings.HasPrefix(id, "@") { // a window: its active pane
		if s.current != nil && s.current.Window == id {
			return s.current
		}
		return nil
	}
	for _, p := range s.panes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// add makes a pane running a new process in window (a new one when "") of
// session.
func (s *fakeServer) add(session, sessionName, window, member string) *fakePane {
	if window == "" {
		window = fmt.Sprintf("@%d", s.nextWindow)
		s.nextWindow++
	}
	s.f.nextPID++
	p := &fakePane{Pane: tmux.Pane{ID: fmt.Sprintf("%%%d", s.nextPane), PID: s.f.nextPID, Window: window,
		SessionID: session, Session: sessionName, Member: member}}
	s.nextPane++
	s.panes = append(s.panes, p)
	return p
}

// exit ends member's process with status code (as tmux shows a dead pane).
func (s *fakeServer) exit(member string, code int) {
	for _, p := range s.panes {
		if p.Member == member {
			p.Dead, p.DeadStatus = true, &code
		}
	}
}

// lose ends the server as a reboot would: no panes, and a new server numbers
// its panes, windows and sessions from 0 again.
func (s *fakeServer) lose() {
	s.running, s.panes = false, nil
	s.nextPane, s.nextWindow, s.nextSession = 0, 0, 0
}

// close removes member's pane.
func (s *fakeServer) close(member string) {
	s.panes = slices.DeleteFunc(s.panes, func(p *fakePane) bool { return p.Member == member })
}

func (s *fakeServer) ListPanes(context.Context) ([]tmux.Pane, error) {
	if err := s.log("list-panes"); err != nil {
		return nil, err
	}
	var out []tmux.Pane
	for _, p := range s.panes {
		out = append(out, p.Pane)
	}
	return out, nil
}

// Run answers the commands the verbs run alone: captures, keys, kill-pane.
func (s *fakeServer) Run(_ context.Context, args ...string) (string, error) {
	if err := s.log(argv(args)); err != nil {
		return "", err
	}
	switch args[0] {
	case "capture-pane":
		id := args[len(args)-1]
		if s.pane(id) == nil {
			return "", fmt.Errorf("can't find pane: %s", id)
		}
		lines := s.screens[id]
		if slices.Contains(args, "-S") {
			return strings.Join(append(slices.Clone(s.history[id]), lines), "\n") + "\n", nil
		}
		return lines, nil
	case "kill-pane":
		id := args[len(args)-1]
		s.panes = slices.DeleteFunc(s.panes, func(p *fakePane) bool { return p.ID == id })
	case "show-options":
		return "C-b\n", nil
	}
	return "", nil
}

func (s *fakeServer) RunBatch(_ context.Context, b *tmux.Batch) ([]string, error) {
	var cmds []string
	for _, c := range b.Commands() {
		cmds = append(cmds, argv(c))
	}
	if err := s.log(batch(cmds...)); err != nil {
		return nil, err
	}
	return s.do(b.Commands()), nil
}

// StartBatch starts the server, then runs the batch.
func (s *fakeServer) StartBatch(_ context.Context, b *tmux.Batch) ([]string, error) {
	var cmds []string
	for _, c := range b.Commands() {
		cmds = append(cmds, argv(c))
	}
	s.running = true
	if err := s.log("start: " + batch(cmds...)); err != nil {
		return nil, err
	}
	return s.do(b.Commands()), nil
}

// do carries out what changes the server: the panes that new-session,
// new-window and split-window make (printing their ids as -F asks), the
// names set-option gives them.
func (s *fakeServer) do(cmds [][]string) []string {
	var out []string
	for _, c := range cmds {
		var p *fakePane
		switch c[0] {
		case "new-session":
			s.nextSession++
			p = s.add(fmt.Sprintf("$%d", s.nextSession-1), flag(c, "-s"), "", "")
			s.leadStarted(c)
		case "new-window":
			first := s.panes[0]
			p = s.add(first.SessionID, first.Session, "", "")
		case "split-window":
			t := s.pane(flag(c, "-t"))
			p = s.add(t.SessionID, t.Session, t.Window, "")
		case "set-option":
			if i := slices.Index(c, "@teamctl-member"); i > 0 {
				if t := s.pane(flag(c, "-t")); t != nil {
					t.Member = c[i+1]
				}
			}
		}
		if p != nil && !slices.Contains(c, "-d") || c[0] == "new-session" {
			s.current = p
		}
		if p != nil && slices.Contains(c, "-P") {
			out = append(out, fmt.Sprintf("%s\x1f%d\x1f%s", p.ID, p.PID, p.Window))
		}
	}
	return out
}

// leadStarted plays a Claude Code lead that new-session started: it writes
// its team's config (unless the world says it does not).
func (s *fakeServer) leadStarted(c []string) {
	session := ""
	for _, a := range c {
		for _, f := range []string{"--session-id=", "--resume="} {
			if v, ok := strings.CutPrefix(a, f); ok {
				session = v
			}
		}
	}
	if session == "" || !s.f.leadWritesConfig {
		return
	}
	dir, _ := claudecode.ConfigDir()
	team := claudecode.LeadTeamName(session)
	path, err := claudecode.TeamConfigPath(dir, team)
	if err == nil {
		_, err = claudecode.WriteTeamConfigIfMissing(path, claudecode.MinimalTeamConfig(team, session, s.f.dir, s.f.nextPID, s.f.clock.now))
	}
	if err != nil {
		s.f.t.Fatal(err)
	}
}

// flag is the word after name in c ("" without one).
func flag(c []string, name string) string {
	if i := slices.Index(c, name); i >= 0 && i+1 < len(c) {
		return c[i+1]
	}
	return ""
}

func (s *fakeServer) KillServer(context.Context) error {
	s.f.log = append(s.f.log, "kill-server")
	s.running, s.panes = false, nil
	return nil
}

// ReplacePane puts a new pane with a new process in old's place, in the log
// as `replace-pane -t OLD -c DIR -n MEMBER [-e VAR=VALUE]… -- ARGV…`.
func (s *fakeServer) ReplacePane(_ context.Context, old, dir string, env, args []string, member string) (tmux.NewPane, error) {
	entry := []string{"replace-pane", "-t", old, "-c", dir, "-n", member}
	for _, kv := range env {
		entry = append(entry, "-e", kv)
	}
	if err := s.log(argv(append(append(entry, "--"), args...))); err != nil {
		return tmux.NewPane{}, err
	}
	i := slices.IndexFunc(s.panes, func(p *fakePane) bool { return p.ID == old })
	if i < 0 {
		return tmux.NewPane{}, fmt.Errorf("can't find pane: %s", old)
	}
	o := s.panes[i]
	np := s.add(o.SessionID, o.Session, o.Window, member)
	s.panes = slices.Delete(s.panes, len(s.panes)-1, len(s.panes))
	s.panes[i] = np
	return tmux.NewPane{ID: np.ID, PID: np.PID, Window: np.Window}, nil
}

func (s *fakeServer) CapturePane(ctx context.Context, pane string) (string, error) {
	return s.Run(ctx, "capture-pane", "-p", "-J", "-t", pane)
}

func (s *fakeServer) TypeText(ctx context.Context, pane, text string) error {
	_, err := s.Run(ctx, "send-keys", "-t", pane, "-l", "--", text)
	return err
}

func (s *fakeServer) Enter(ctx context.Context, pane string) error {
	_, err := s.Run(ctx, "send-keys", "-t", pane, "Enter")
	return err
}

func (s *fakeServer) CaptureHistory(ctx context.Context, pane string, n int) ([]string, error) {
	out, err := s.Run(ctx, tmux.HistoryArgs(pane, n)...)
	if err != nil {
		return nil, err
	}
	return tmux.TrimCapture(strings.Split(out, "\n")), nil
}

func (s *fakeServer) ShowOption(ctx context.Context, name string) (string, error) {
	out, err := s.Run(ctx, "show-options", "-gv", name)
	return strings.TrimSpace(out), err
}

func (s *fakeServer) AttachCmd(_ context.Context, target, message string) *exec.Cmd {
	return exec.Command("tmux", "attach", "-t", target)
}

func (s *fakeServer) FollowPane(context.Context, string, string, int, func([]string)) error {
	return errors.New("the fake server follows no pane")
}

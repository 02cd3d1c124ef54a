package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/permrules"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
	"github.com/teamctl/teamctl/tmux"
)

// The daemon's decisions, driven without tmux, processes or waiting: a fake
// tmux server and control client say what panes there are, what their screens
// show and how they ended; a fake clock says when. A world is one team's
// daemon with its state in a temp folder.

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Time
	f       func()
	stopped bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped, t.at = false, t.c.now.Add(d)
	if !slices.Contains(t.c.timers, t) {
		t.c.timers = append(t.c.timers, t)
	}
	return was
}

// next takes the earliest timer due by until, or nil.
func (c *fakeClock) next(until time.Time) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	for i, t := range c.timers {
		if t.stopped {
			continue
		}
		if t.at.After(until) {
			return nil
		}
		c.timers = append(c.timers[:i:i], c.timers[i+1:]...)
		c.now = t.at
		t.stopped = true
		return t
	}
	return nil
}

// fakePane is one pane of the fake server.
type fakePane struct {
	tmux.Pane
	screen  string
	history []string // the lines scrolled off the screen, oldest first
	status  string   // pane_dead_status when dead ("" unknown)
	signal  string
	// version counts the pane's screens (1 when it opens; each output one
	// more); seen is the version a capture last took.
	version, seen int
}

// fakeServer is a tmux server in memory.
type fakeServer struct {
	mu      sync.Mutex
	panes   []*fakePane
	ctl     *fakeControl
	runs    [][]string // Run's argv, in order
	batches [][]string // each RunBatch's commands, flattened
	typed   []string   // pane: text, what Type typed
	typeErr error      // what Type fails with (nil: it types)
	nextPID int
	// relaunched are the argvs ReplacePane ran; nextPane numbers new panes.
	relaunched [][]string
	// relaunchEnv and relaunchDir are the env and folder of each.
	relaunchEnv [][]string
	relaunchDir []string
	nextPane    int
	// historyFails makes the control client's history captures fail (a
	// client being replaced, a slow tmux); Run's still answer.
	historyFails bool
	// off are the panes whose output is switched off for the control
	// client (refresh-client -A %N:pause): their output is not notified.
	// switched are the -A values the client was sent, in order, each with
	// the clock's time then ("%1:pause").
	off      map[string]bool
	switched []switched
	clock    *fakeClock
}

// switched is one refresh-client -A value the control client took, and when.
type switched struct {
	at    time.Time
	value string
}

// history answers capture-pane -S -N: the last N lines of the pane's
// history, then its screen, and under a dead pane's output tmux's notice.
func (p *fakePane) historyOf(args []string) []string {
	n := 0
	for i, a := range args {
		if a == "-S" && i+1 < len(args) {
			fmt.Sscan(strings.TrimPrefix(args[i+1], "-"), &n)
		}
	}
	lines := p.history[max(0, len(p.history)-n):]
	lines = append(slices.Clone(lines), strings.Split(p.screen, "\n")...)
	if p.Dead {
		lines = append(lines, "", "Pane is dead (status "+p.status+", Tue Dec  1 09:00:00 2026)", "", "")
	}
	return lines
}

func hasArg(args []string, a string) bool { return slices.Contains(args, a) }

func (f *fakeServer) pane(id string) *fakePane {
	for _, p := range f.panes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func (f *fakeServer) ListPanes(context.Context) ([]tmux.Pane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []tmux.Pane
	for _, p := range f.panes {
		pn := p.Pane
		if pn.Dead && p.status != "" {
			var st int
			fmt.Sscan(p.status, &st)
			pn.DeadStatus = &st
		}
		out = append(out, pn)
	}
	return out, nil
}

func (f *fakeServer) RunBatch(_ context.Context, b *tmux.Batch) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, args := range b.Commands() {
		f.batches = append(f.batches, args)
		if len(args) == 0 || args[0] != "respawn-pane" {
			continue
		}
		// The pane runs a new process.
		for i, a := range args {
			if a == "-t" && i+1 < len(args) {
				if p := f.pane(args[i+1]); p != nil {
					f.nextPID++
					p.PID, p.Dead, p.status, p.signal = f.nextPID, false, "", ""
				}
			}
		}
	}
	return nil, nil
}

// ReplacePane puts a new pane with a new process in old's place.
func (f *fakeServer) ReplacePane(_ context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, p := range f.panes {
		if p.ID != old {
			continue
		}
		f.nextPID++
		f.nextPane++
		np := &fakePane{Pane: tmux.Pane{ID: fmt.Sprintf("%%%d", f.nextPane), PID: f.nextPID, SessionID: p.SessionID, Session: p.Session, Window: p.Window, Member: member}, version: 1}
		f.panes[i] = np
		f.relaunched = append(f.relaunched, argv)
		f.relaunchEnv = append(f.relaunchEnv, env)
		f.relaunchDir = append(f.relaunchDir, dir)
		return tmux.NewPane{ID: np.ID, PID: np.PID, Window: np.Window}, nil
	}
	return tmux.NewPane{}, fmt.Errorf("can't find pane %s", old)
}

func (f *fakeServer) Run(_ context.Context, args ...string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, args)
	if args[0] == "capture-pane" && hasArg(args, "-S") {
		p := f.pane(args[len(args)-1])
		if p == nil {
			return "", errors.New("can't find pane")
		}
		return strings.Join(p.historyOf(args), "\n") + "\n", nil
	}
	return "", nil
}

func (f *fakeServer) Type(_ context.Context, pane, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.typeErr != nil {
		return f.typeErr
	}
	f.typed = append(f.typed, pane+": "+text)
	return nil
}

func (f *fakeServer) Listening() bool { return true }

// Control attaches the control client again: a new client starts with
// every pane's output on.
func (f *fakeServer) Control(context.Context, string) (controlClient, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.off = map[string]bool{}
	return f.ctl, nil
}

// switches are the -A values the control client took for pane, in order
// ("continue", "pause").
func (f *fakeServer) switches(pane string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, sw := range f.switched {
		if p, v, _ := strings.Cut(sw.value, ":"); p == pane {
			out = append(out, v)
		}
	}
	return out
}

// isOff tells whether pane's output is off for the control client.
func (f *fakeServer) isOff(pane string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.off[pane]
}

// ran reports whether Run was called with exactly args.
func (f *fakeServer) ran(args ...string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.runs, func(r []string) bool { return slices.Equal(r, args) })
}

// sentKeys are the keys send-keys sent to pane, each command's keys joined.
func (f *fakeServer) sentKeys(pane string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.runs {
		if len(r) > 3 && r[0] == "send-keys" && r[2] == pane {
			out = append(out, strings.Join(r[4:], " "))
		}
	}
	return out
}

// fakeControl answers the daemon's control-mode commands from the fake server.
type fakeControl struct {
	srv   *fakeServer
	notes chan tmux.Notification
	done  chan struct{}
}

func (c *fakeControl) Notes() <-chan tmux.Notification { return c.notes }
func (c *fakeControl) Done() <-chan struct{}           { return c.done }
func (c *fakeControl) Err() error                      { return nil }
func (c *fakeControl) Close() error                    { return nil }

func (c *fakeControl) Command(_ context.Context, args ...string) ([]string, error) {
	f := c.srv
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case args[0] == "capture-pane" && hasArg(args, "-S"):
		p := f.pane(args[len(args)-1])
		if p == nil || f.historyFails {
			return nil, errors.New("can't find pane")
		}
		return p.historyOf(args), nil
	case args[0] == "capture-pane":
		p := f.pane(args[len(args)-1])
		if p == nil {
			return nil, errors.New("can't find pane")
		}
		p.seen = p.version
		return strings.Split(p.screen, "\n"), nil
	case args[0] == "refresh-client" && hasArg(args, "-A"):
		for i, a := range args {
			if a != "-A" || i+1 == len(args) {
				continue
			}
			var now time.Time
			if f.clock != nil {
				now = f.clock.Now()
			}
			f.switched = append(f.switched, switched{now, args[i+1]})
			pane, v, _ := strings.Cut(args[i+1], ":")
			f.off[pane] = v == switchOffWord
		}
		return nil, nil
	case args[0] == "display-message" && len(args) == 3 && args[2] == "#{pid}":
		return []string{"1"}, nil
	case args[0] == "display-message":
		p := f.pane(args[3])
		if p == nil {
			return nil, errors.New("can't find pane")
		}
		return []string{deadValue(p)}, nil
	}
	return nil, nil
}

func deadValue(p *fakePane) string {
	if !p.Dead {
		return fmt.Sprintf("0///%d", p.PID)
	}
	return fmt.Sprintf("1/%s/%s/%d", p.status, p.signal, p.PID)
}

// world is one team's daemon with its state in a temp folder.
type world struct {
	t     *testing.T
	ctx   context.Context
	s     *daemon
	srv   *fakeServer
	clock *fakeClock
	// hold keeps captures on their way (taken, not yet judged) in held
	// until deliver: a slow tmux, or a capture a relaunch overtakes.
	hold bool
	held []capture
	// holdWords keeps last-words captures from being taken (heldWords)
	// until takeWords: a capture still waiting for the worker.
	holdWords bool
	heldWords []captureReq
}

// The world's lead session, and the teamctl its members' hooks call.
const (
	worldLeadSession = "0123abcd-0000-4000-8000-000000000000"
	worldTeamctl     = "/bin/teamctl"
)

// member is a member of the world's team: role lead, teammate or process.
type member struct {
	name    string
	role    state.Role
	restart string
}

// newWorld makes a team of members (panes %0, %1, … in order) with the
// layout's watchdog settings from watchdog (YAML, may be ""), and starts its
// daemon's first look with every screen blank.
func newWorld(t *testing.T, watchdog string, members ...member) *world {
	t.Helper()
	return newWorldWith(t, "", watchdog, members...)
}

// newWorldWith is newWorld with more top-level keys of the layout (YAML).
func newWorldWith(t *testing.T, top, watchdog string, members ...member) *world {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("TMUX_TMPDIR", dir)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
	layout := filepath.Join(dir, "team.yaml")
	body := "team: decide\nmembers:\n"
	for _, m := range members {
		if m.role == state.RoleLead {
			body = "team: decide\nlead: {}\nmembers:\n" // a lead even when every member is a process
			continue
		}
		body += "  - name: " + m.name + "\n"
		if m.role == state.RoleProcess {
			body += "    command: [sleep, \"1000\"]\n"
		}
		if m.restart != "" {
			body += "    restart: " + m.restart + "\n"
		}
	}
	body += top
	if watchdog != "" {
		body += "watchdog:\n" + watchdog
	}
	if err := os.WriteFile(layout, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := layouts.Parse(layout)
	if err != nil {
		t.Fatal(err)
	}
	// The team's launches as up records them: a restart relaunches a member
	// as the layout plans it, with these programs, while it is the launch
	// recorded.
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	progs, err := launch.ResolvePrograms(l, claude)
	if err != nil {
		t.Fatal(err)
	}
	progs.Teamctl = worldTeamctl
	plan, err := launch.Plan(l, progs, worldLeadSession)
	if err != nil {
		t.Fatal(err)
	}
	launches := map[string]launch.Launch{}
	for _, x := range plan {
		launches[x.Member.Name] = x
	}
	srv := &fakeServer{nextPID: 5_000_000, nextPane: 99} // pids no process can have: /proc knows none of them
	srv.ctl = &fakeControl{srv: srv, notes: make(chan tmux.Notification, 64), done: make(chan struct{})}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sum := sha256.Sum256([]byte(body))
	st := &state.Team{Team: "decide", LayoutPath: layout, LayoutDigest: hex.EncodeToString(sum[:]), LayoutFile: state.StampOf(layout), Session: "decide", ClaudeTeam: "session-0123abcd",
		ClaudeConfig: filepath.Join(home, ".claude"), LeadSessionID: worldLeadSession, CreatedAt: now}
	for i, m := range members {
		id := fmt.Sprintf("%%%d", i)
		srv.nextPID++
		srv.panes = append(srv.panes, &fakePane{Pane: tmux.Pane{ID: id, PID: srv.nextPID, SessionID: "$0", Session: "decide", Member: m.name}, version: 1})
		x := launches[m.name]
		st.Members = append(st.Members, state.Member{Name: m.name, Role: m.role, Origin: state.OriginLayout, Pane: id, PID: srv.nextPID,
			SessionID: x.SessionID, Argv: x.Argv, Env: x.Env, Cwd: x.Cwd, Digest: x.Digest, Restart: m.restart, StartedAt: now})
	}
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	st, err = state.Load("decide")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := state.OpenEventLog("decide")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	clk := &fakeClock{now: now}
	srv.clock = clk
	logTo := io.Discard
	if os.Getenv("DECIDE_LOG") != "" {
		logTo = os.Stderr
	}
	o := SuperviseOptions{Log: slog.New(slog.NewTextHandler(logTo, nil)), ClaudeOverride: claude, Teamctl: worldTeamctl}
	s := newDaemon("decide", o, st, ev, srv, clk)
	w := &world{t: t, ctx: context.Background(), s: s, srv: srv, clock: clk}
	if err := s.connect(w.ctx); err != nil {
		t.Fatal(err)
	}
	evPath, _ := state.EventsPath("decide")
	paths, err := filewatch.PathsOf(s.claudeDir, st.ClaudeTeam)
	if err != nil {
		t.Fatal(err)
	}
	queue, _ := state.LeadQueuePath("decide")
	// The files followed, without fsnotify: a test says what changed (changed).
	s.files = filewatch.Unwatched(paths, evPath, queue)
	s.seen.eventsPath, s.seen.eventsAt = evPath, state.EventsEnd(evPath)
	if err := s.begin(w.ctx, nil); err != nil {
		t.Fatal(err)
	}
	w.settle()
	return w
}

// settle does everything the daemon has to do now: what its loop would take
// from its channels, and the captures its worker would take, until nothing is
// left.
func (w *world) settle() {
	s := w.s
	for i := 0; i < 10000; i++ {
		select {
		case pw := <-s.fire:
			s.timerFired(pw)
		case pw := <-s.probeFire:
			s.probeFired(pw)
		case r := <-s.switchQ: // the switch worker, here on the loop
			s.switchOutput(w.ctx, []switchReq{r})
		case r := <-s.wordsQ:
			if w.holdWords {
				w.heldWords = append(w.heldWords, r)
				continue
			}
			s.judge(w.ctx, s.captureOne(w.ctx, r))
		case r := <-s.captureQ:
			if c := s.captureOne(w.ctx, r); w.hold {
				w.held = append(w.held, c)
			} else {
				s.judge(w.ctx, c)
			}
		case c := <-s.captured:
			s.judge(w.ctx, c)
		case id := <-s.restart:
			s.doRestart(w.ctx, id)
		case d := <-s.deadValues:
			s.deadChanged(w.ctx, d[0], d[1])
		case n := <-w.srv.ctl.notes:
			s.onNotification(w.ctx, n)
		case <-s.syncFire:
			if err := s.sync(w.ctx, nil); err != nil {
				w.t.Fatal(err)
			}
		case <-s.beat:
			s.heartbeat()
		case <-s.radar.fire:
			s.radarFired()
		case job := <-s.radar.jobs: // the radar's worker, here on the loop
			s.radarDone(w.ctx, s.radar.pass(w.ctx, job))
		case res := <-s.radar.done:
			s.radarDone(w.ctx, res)
		case pw := <-s.limitFire:
			s.limitFired(w.ctx, pw)
		case h := <-s.hostFire:
			s.hostRetryFired(w.ctx, h)
		case a := <-s.hostResult:
			s.hostAttemptDone(w.ctx, a)
		default:
			return
		}
	}
	w.t.Fatal("the daemon never settled")
}

// advance moves the clock by d, firing every timer due on the way (each
// followed by what it sets off).
func (w *world) advance(d time.Duration) {
	w.settle() // what is due now first: it may set timers
	until := w.clock.Now().Add(d)
	for {
		t := w.clock.next(until)
		if t == nil {
			break
		}
		t.f()
		w.settle()
	}
	w.clock.mu.Lock()
	w.clock.now = until
	w.clock.mu.Unlock()
	w.settle()
}

// output is new output of pane: the screen it shows now. It is notified
// unless the pane's output is off for the control client.
func (w *world) output(pane, screen string) {
	w.srv.mu.Lock()
	p := w.srv.pane(pane)
	p.screen = screen
	p.version++
	off := w.srv.off[pane]
	w.srv.mu.Unlock()
	if !off {
		w.srv.ctl.notes <- tmux.Notification{Kind: "output", Pane: pane, Data: []byte("x")}
	}
	w.settle()
}

// printed is what a pane shows now: lines scrolled off its screen, and its
// screen.
func (w *world) printed(pane string, history []string, screen string) {
	w.srv.mu.Lock()
	p := w.srv.pane(pane)
	p.history, p.screen = history, screen
	p.version++
	w.srv.mu.Unlock()
}

// takeWords lets the held last-words captures be taken now, in order.
func (w *world) takeWords() {
	w.holdWords = false
	held := w.heldWords
	w.heldWords = nil
	for _, r := range held {
		w.s.judge(w.ctx, w.s.captureOne(w.ctx, r))
	}
	w.settle()
}

// paneOf is the pane a member (or a pane id) is in now: a relaunch moves a
// member to a new pane.
func (w *world) paneOf(who string) string {
	if strings.HasPrefix(who, "%") {
		return who
	}
	if pw := w.s.watchOf(who); pw != nil {
		return pw.id
	}
	w.t.Fatalf("no pane for %s", who)
	return ""
}

// exit ends the process of a pane (or a member's) with status (or signal,
// when status is "").
func (w *world) exit(who, status, signal string) {
	pane := w.paneOf(who)
	w.srv.mu.Lock()
	p := w.srv.pane(pane)
	p.Dead, p.status, p.signal = true, status, signal
	v := deadValue(p)
	w.srv.mu.Unlock()
	w.srv.ctl.notes <- tmux.Notification{Kind: "subscription-changed", Name: "dead", Pane: pane, Args: v}
	w.settle()
}

// changed tells the daemon that followed files changed (inbox, events,
// queue, config, tasks) and lets it read them.
func (w *world) changed(what ...filewatch.Kind) {
	w.s.files.Mark(what...)
	w.s.readFollowed(w.ctx, false)
	w.settle()
}

// live is a member's state as live.json says.
func (w *world) live(name string) state.LiveMember {
	w.t.Helper()
	l, err := state.ReadLive("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	if m := l.Members[name]; m != nil {
		return *m
	}
	return state.LiveMember{}
}

// events are the team's events of kind for member ("" for any), in order.
func (w *world) events(kind state.EventKind, member string) []state.Event {
	w.t.Helper()
	evs, err := state.ReadEvents("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	var out []state.Event
	for _, e := range evs {
		if e.Kind == kind && (member == "" || e.Member == member) {
			out = append(out, e)
		}
	}
	return out
}

func notification(name, pane, args string) tmux.Notification {
	if name == "layout-change" {
		return tmux.Notification{Kind: "layout-change"}
	}
	return tmux.Notification{Kind: "subscription-changed", Name: name, Pane: pane, Args: args}
}

func paneOf(id string, pid int) tmux.Pane {
	return tmux.Pane{ID: id, PID: pid, SessionID: "$0", Session: "decide"}
}

func ruleOf(t *testing.T, text string) layouts.Rule {
	t.Helper()
	r, ok := permrules.Parse(text)
	if !ok {
		t.Fatalf("rule %q", text)
	}
	return layouts.Rule{Text: r.Text, Tool: r.Tool, Pattern: r.Pattern}
}

func mustInbox(t *testing.T, w *world, member string) string {
	t.Helper()
	p, err := claudecode.InboxPath(w.s.st.ClaudeConfig, w.s.st.ClaudeTeam, member)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// relaunchByHand does what `teamctl restart` or `up` does to a member: it
// relaunches it in a new pane in its place and records that pane in state.
func (w *world) relaunchByHand(name string) tmux.NewPane {
	w.t.Helper()
	np, err := w.srv.ReplacePane(w.ctx, w.paneOf(name), "/", nil, []string{"/bin/" + name}, name)
	if err != nil {
		w.t.Fatal(err)
	}
	st, _ := state.Load("decide")
	m, _ := st.Member(name)
	m.Pane, m.PID = np.ID, np.PID
	if err := state.Save(st); err != nil {
		w.t.Fatal(err)
	}
	return np
}

// fakeProcs are the machine's processes as a test says they are: which run
// under which (tree), the team each claims (claim; none when nil), and the
// process groups the daemon ended (a world's daemon has the machine's, until
// a test gives it these).
type fakeProcs struct {
	tree   map[int][]int
	claim  func(pid int) (string, *claudecode.TeamConfig, bool)
	claims int // ClaimedTeam's calls

	mu    sync.Mutex
	ended []string // EndGroup's calls, "pgid wait grace", in order
}

func (p *fakeProcs) Tree(pid int) []int { return append([]int{pid}, p.tree[pid]...) }

func (p *fakeProcs) ClaimedTeam(_ string, pid int) (string, *claudecode.TeamConfig, bool) {
	p.claims++
	if p.claim == nil {
		return "", nil, false
	}
	return p.claim(pid)
}

// EndGroup records the call, and has the group end at once: then runs now.
func (p *fakeProcs) EndGroup(_ context.Context, pgid int, wait, grace time.Duration, then func()) {
	p.mu.Lock()
	p.ended = append(p.ended, fmt.Sprintf("%d %s %s", pgid, wait, grace))
	p.mu.Unlock()
	if then != nil {
		then()
	}
}

// calls are EndGroup's calls so far, "pgid wait grace".
func (p *fakeProcs) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ended)
}

// groups are the process groups ended so far, in order.
func (p *fakeProcs) groups() []int {
	var out []int
	for _, c := range p.calls() {
		var pgid int
		fmt.Sscan(c, &pgid)
		out = append(out, pgid)
	}
	return out
}

// written are the events the daemon wrote while do ran, in order.
func (w *world) written(do func()) []state.Event {
	w.t.Helper()
	before, err := state.ReadEvents("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	do()
	after, err := state.ReadEvents("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	return after[len(before):]
}

// wantEvent is an event a decision writes: its kind, member and a part of
// its detail.
type wantEvent struct {
	kind           state.EventKind
	member, detail string
}

// checkEvents says where got are not exactly the events of want.
func checkEvents(t *testing.T, got []state.Event, want []wantEvent) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Kind == want[i].kind && got[i].Member == want[i].member && strings.Contains(got[i].Detail, want[i].detail)
	}
	if ok {
		return
	}
	var s []string
	for _, e := range got {
		s = append(s, fmt.Sprintf("%s %s %q", e.Kind, e.Member, e.Detail))
	}
	t.Errorf("events written:\n\t%s\nwant %+v", strings.Join(s, "\n\t"), want)
}

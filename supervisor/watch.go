// Package supervisor is a team's daemon (`teamctl supervise`, which `up`
// starts): it follows every pane's output through one tmux control-mode
// client and the team's files (Claude Code's mailboxes, config and tasks; the
// event log and the lead queue), and decides: stalled, idle, working,
// waiting-approval; exits, restarts with backoff, failed; adoption of the
// teammates the lead spawns; answers by rule; text typed into an idle lead.
// It records what it knows in the team's state folder (package state), which
// is all the lifecycle verbs (package team) see of it: the two never import
// each other. It reaches tmux and the time through small interfaces (deps.go),
// so its decisions are tested in milliseconds (decisions_test.go).
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Restart limits: more than maxExits exits within exitWindow and the member is
// failed; the delay before a restart doubles from minBackoff to maxBackoff.
var (
	maxExits   = 5
	exitWindow = 2 * time.Minute
	minBackoff = time.Second
	maxBackoff = 60 * time.Second
)

// settle is how long after new output a stalled or idle pane is looked at
// again: long enough for a redraw to finish, short enough to clear promptly.
const settle = 150 * time.Millisecond

// SuperviseOptions tune Supervise.
type SuperviseOptions struct {
	TmuxBin    string
	MinBackoff time.Duration // the first restart's delay (default 1s); later ones double it
	Log        *slog.Logger
	// A restart relaunches a member as the team's layout plans it
	// (launch.Relaunch), with its programs found as up finds them:
	// ClaudeOverride is TEAMCTL_CLAUDE, Teamctl this teamctl, which Claude
	// Code's hooks call.
	ClaudeOverride string
	Teamctl        string
}

// paneWatch is the supervisor's view of one pane.
type paneWatch struct {
	id, member    string
	origin        state.Origin
	pid           int // the pane's current process, as tmux last said
	lastOutput    time.Time
	timer         timer // the quiet (or settle) timer; it hands the loop this watch, not an id
	armed         bool
	capturing     bool // a capture of it is on its way
	again         bool // a look was asked for while a capture was on its way: take another
	live          *state.LiveMember
	screen        string
	exits         []time.Time
	restartTimer  timer
	lockWaitSince time.Time // a lead's restart put off for Claude Code's lock since
	exitPID       string    // the process whose exit was handled last
	statusTries   int       // asks for an exit status tmux did not have yet
	rechecked     bool      // the settle look since the pane became stalled or idle was taken
	reclaiming    bool      // a lead ended to take its own Claude Code team over (reclaimOwnTeam): restarted whatever its policy
	words         wordsState
	wordsOf       *ended // the run whose last words are kept (or being kept)
	restartWaits  bool   // a restart waits for those words: the pane goes with it
}

// wordsState is where the last words of a pane's run that ended are.
type wordsState int

const (
	wordsNone    wordsState = iota // no run ended since the watch began (or it ran again)
	wordsKeeping                   // a capture of them is on its way
	wordsKept                      // in the team's folder (state.WriteLastWords), or given up on
	wordsMissed                    // the capture failed: doRestart takes them itself
)

// ended is a run of a pane that ended: its program and how.
type ended struct {
	seq  int // counts a watch's ended runs: a capture of an earlier one is stale
	pane string
	pid  int
	code *int
	sig  int
}

// captureReq asks the capture worker for the screen of w's pane as it is
// now (pane: w.id when asked; a relaunch may move w to another pane
// meanwhile), or, with words, for the last lines of its run that ended.
type captureReq struct {
	w     *paneWatch
	pane  string
	words *ended
}

type capture struct {
	w      *paneWatch
	pane   string
	screen string
	lines  []string // with words: the pane's history
	words  *ended
	err    error
}

type daemon struct {
	team      string
	o         SuperviseOptions
	log       *slog.Logger
	srv       tmuxServer
	clock     clock
	ctl       atomic.Pointer[controlClient] // the loop replaces it; capture and askDead use it too
	serverPID int                           // the tmux server's pid: the parent of the panes' programs
	st        *state.Team
	lay       *layouts.Layout // nil when the layout file no longer parses
	claudeDir string          // Claude Code's folder of the team (configure): never state.json's claude_config
	det       *stallwatch.Detector
	quiet     time.Duration
	ev        *state.EventLog
	live      *state.Live

	panes      map[string]*paneWatch
	fire       chan *paneWatch // quiet or settle timer of a pane
	restart    chan string     // restart timer of a pane
	deadValues chan [2]string  // pane, value: answers of askDead
	captureQ   chan captureReq
	wordsQ     chan captureReq // last words' captures (lastwords.go)
	captured   chan capture
	syncSoon   timer
	syncFire   chan struct{}
	beat       chan struct{} // the heartbeat: live.json rewritten, so a lost team says when it was last seen
	queueRead  int64         // how far the lead queue was read (live.json has how far it was typed)
	notifier   *notifier
	files      *followed
	nameTries  map[string]int
	ending     map[string]bool // panes of second runs of a member being ended (endCopy)
	teamPID    int             // the lead process checkTeam last looked for
	teamTries  int             // checkTeam's looks for the team teamPID claimed
	// teamCandidate is another team the lead was seen to claim, since teamSince.
	teamCandidate string
	teamSince     time.Time
	teamReclaims  int    // leads relaunched in a row to take their own team over
	teamRefused   string // the last team the lead claimed that the daemon would not follow (logged once)
	// takenOver is when the daemon first saw the lead's own config where a
	// placeholder held prompts (state.Team.PromptsInPlaceholder).
	takenOver time.Time

	// hooksRefused are the member and pane pairs of hooks reported as not
	// from the member's pane (fromHook), each reported once.
	hooksRefused map[string]bool
}

// Supervise watches the team until ctx ends or the team's tmux server goes.
// Exactly one runs per team (a lock, not a pid guess); it adopts whatever panes
// exist, so it can be killed and started again at any time.
func Supervise(ctx context.Context, team string, o SuperviseOptions) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	// The event log is opened before the lock is taken: `up` waits only for
	// the lock, so a refusal here (a symlink) is what it reports.
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return err
	}
	defer ev.Close()
	lock, err := state.TakeSupervisorLock(team)
	if err != nil {
		return err
	}
	defer lock.Release()
	st, err := state.Load(team)
	if err != nil {
		return err
	}
	if !st.Running() {
		return fmt.Errorf("team %s is down", team)
	}
	s := newDaemon(team, o, st, ev, realServer{&tmux.Server{Socket: state.SocketName(team), Bin: o.TmuxBin}}, realClock{})
	prev, _ := state.ReadLive(team)
	if err := s.connect(ctx); err != nil {
		// A person's `attach -d` may detach it at once: try again while the
		// server lives.
		if !s.reconnect(ctx, err.Error()) {
			return err
		}
	}
	defer func() { s.control().Close() }()
	go s.captureWorker(ctx, s.captureQ)
	go s.captureWorker(ctx, s.wordsQ)
	if err := s.follow(); err != nil {
		s.log.Warn("mailboxes not watched", "err", err)
	}
	defer s.files.close()
	if err := s.begin(ctx, prev); err != nil {
		return err
	}
	err = s.loop(ctx)
	s.log.Info("stopping", "err", err)
	s.event(state.Event{Kind: state.EventSupervisor, Detail: "stopped"})
	return err
}

// newDaemon makes the daemon of team: its state st, its event log ev, and how
// it reaches tmux and the time.
func newDaemon(team string, o SuperviseOptions, st *state.Team, ev *state.EventLog, srv tmuxServer, clk clock) *daemon {
	s := &daemon{
		team: team, o: o, log: o.Log.With("team", team), st: st, ev: ev, srv: srv, clock: clk,
		panes: map[string]*paneWatch{}, fire: make(chan *paneWatch, 256), restart: make(chan string, 64), deadValues: make(chan [2]string, 64),
		captureQ: make(chan captureReq, 1024), wordsQ: make(chan captureReq, 1024), captured: make(chan capture, 64), syncFire: make(chan struct{}, 1), beat: make(chan struct{}, 1),
		nameTries: map[string]int{}, ending: map[string]bool{},
	}
	s.configure()
	s.live = &state.Live{PID: os.Getpid(), Started: clk.Now().UTC(), Members: map[string]*state.LiveMember{}}
	s.notifier = newNotifier(s)
	return s
}

// begin is the daemon's first look, once its control client is attached:
// every pane adopted and looked at (what a previous supervisor knew, prev,
// kept), every followed file read.
func (s *daemon) begin(ctx context.Context, prev *state.Live) error {
	s.log.Info("supervising", "panes", len(s.st.Members), "quiet", s.quiet)
	s.event(state.Event{Kind: state.EventSupervisor, Detail: fmt.Sprintf("started (pid %d)", os.Getpid())})
	if prev != nil {
		s.live.LeadInboxSeen, s.live.LeadQueueOffset = prev.LeadInboxSeen, prev.LeadQueueOffset
	}
	if err := s.sync(ctx, prev); err != nil {
		return err
	}
	s.heartbeat()
	if s.files != nil {
		s.readFollowed(ctx, true)
		if prev != nil && len(prev.Members) == 0 && len(prev.LeadInboxSeen) > 0 {
			s.restorePending() // a team resumed on a new server
		}
	}
	return nil
}

// configure reads the watchdog settings from the team's layout file, as up
// read it (state.Team.LayoutBytes): its notify command runs programs, and the
// file may sit where the agents work. A layout changed since up (or not the
// user's alone) gives the default settings until `teamctl up` takes it.
func (s *daemon) configure() {
	s.quiet = 2 * time.Second
	patterns := stallwatch.DefaultPatterns()
	var l *layouts.Layout
	data, err := s.st.LayoutBytes()
	if err == nil {
		l, err = layouts.ParseBytes(s.st.LayoutPath, data)
	}
	// Claude Code's folder, where the daemon writes configs, mailboxes and
	// prompts and whose team folders it follows: as up gave it to the lead,
	// from the layout and this process's environment (which up's was), never
	// from state.json, which a member can rewrite (team.ClaudeConfigDir).
	s.claudeDir, _ = claudecode.ConfigDir()
	if err == nil && l.Team == s.team {
		s.claudeDir = launch.ClaudeConfigDir(l, os.Getenv)
	}
	if err != nil {
		s.log.Warn("layout not taken; default watchdog settings until `teamctl up` takes it", "layout", s.st.LayoutPath, "err", err)
	} else {
		s.lay = l
		s.quiet = l.Watchdog.Quiet
		patterns = l.Watchdog.StallPatterns()
	}
	s.det = stallwatch.New(patterns)
}

func (s *daemon) event(e state.Event) {
	if err := s.ev.Append(e); err != nil {
		s.log.Error("event log", "err", err)
	}
	s.log.Info("event", "kind", e.Kind, "member", e.Member, "pane", e.Pane, "pattern", e.Pattern, "line", e.Line, "detail", e.Detail)
}

func (s *daemon) saveLive() {
	for _, w := range s.panes {
		w.live.PID = w.pid
	}
	s.live.Seen = s.clock.Now().UTC()
	if err := state.WriteLive(s.team, s.live); err != nil {
		s.log.Error("live state", "err", err)
	}
}

// connect attaches a control client to the team's session (found through its
// panes) and subscribes to pane exits; tmux then reports every pane's current
// value, so exits that happened while no client was attached are seen.
func (s *daemon) connect(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	panes, err := s.srv.ListPanes(cctx)
	if err != nil {
		return fmt.Errorf("find the team's panes: %w", err)
	}
	ctl, err := s.srv.Control(cctx, tmux.TeamSessionTarget(panes, s.st.PanesLeadFirst(), s.st.Session))
	if err != nil {
		return fmt.Errorf("follow the team's panes: %w", err)
	}
	if _, err := ctl.Command(cctx, "refresh-client", "-B", "dead:%*:"+deadFormat); err != nil {
		ctl.Close()
		return fmt.Errorf("subscribe to pane exits: %w", err)
	}
	if lines, err := ctl.Command(cctx, "display-message", "-p", "#{pid}"); err == nil && len(lines) == 1 {
		s.serverPID, _ = strconv.Atoi(lines[0]) // the parent of every pane's program
	}
	s.ctl.Store(&ctl)
	return nil
}

// control is the current control client (it changes when one is lost).
func (s *daemon) control() controlClient {
	if c := s.ctl.Load(); c != nil {
		return *c
	}
	return nil
}

// Reconnection backoff: the first attempt is immediate, later ones wait
// from reconnectMin doubling up to reconnectMax.
var (
	reconnectMin = 50 * time.Millisecond
	reconnectMax = 5 * time.Second
)

// reconnect replaces a control client that ended while the team's server
// still runs — a person's `tmux attach -d` or `detach-client -a` detaches it
// too. It reports false when the server is gone (the team is down) or ctx
// ended: only then does the supervisor stop.
func (s *daemon) reconnect(ctx context.Context, why string) bool {
	if old := s.control(); old != nil {
		old.Close()
	}
	delay := time.Duration(0)
	for attempt := 1; ; attempt++ {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := s.srv.ListPanes(lctx)
		cancel()
		if isNoServer(err) && !s.srv.Listening() {
			s.log.Info("the team's tmux server is gone", "err", err)
			return false // the server went: the team is down
		}
		if err == nil {
			if err = s.connect(ctx); err == nil {
				s.log.Warn("control client lost; reconnected", "why", why, "attempts", attempt)
				s.event(state.Event{Kind: state.EventSupervisor, Detail: fmt.Sprintf("lost its tmux control client (%s); reconnected", why)})
				return true
			}
		}
		s.log.Warn("reconnect the control client", "attempt", attempt, "err", err)
		delay = min(max(2*delay, reconnectMin), reconnectMax)
	}
}

func lostWhy(c controlClient) string {
	if err := c.Err(); err != nil {
		return err.Error()
	}
	return "ended"
}

// resync looks at every live pane again after the control client was away:
// output that came meanwhile was not seen, so no quiet timer runs for it; a
// stall that began meanwhile is found (and reported once: judge knows the
// stalls already reported), exits come with the new subscription's values.
func (s *daemon) resync(ctx context.Context) {
	if err := s.sync(ctx, nil); err != nil {
		s.log.Warn("list panes", "err", err)
	}
	for _, w := range s.panes {
		w.capturing = false // a capture sent to the old client got an error or nothing
		if w.live.State != state.StateExited && w.live.State != state.StateFailed {
			s.requestCapture(w)
		}
	}
}

func (s *daemon) loop(ctx context.Context) error {
	for {
		ctl := s.control()
		select {
		case <-ctx.Done():
			return nil
		case <-ctl.Done():
			if !s.reconnect(ctx, lostWhy(ctl)) {
				return nil
			}
			s.resync(ctx)
		case n, ok := <-ctl.Notes():
			if !ok {
				if !s.reconnect(ctx, lostWhy(ctl)) {
					return nil
				}
				s.resync(ctx)
				continue
			}
			s.onNotification(ctx, n)
		case w := <-s.fire:
			s.timerFired(w)
		case c := <-s.captured:
			s.judge(ctx, c)
		case id := <-s.restart:
			s.doRestart(ctx, id)
		case d := <-s.deadValues:
			s.deadChanged(ctx, d[0], d[1])
		case <-s.followedFire():
			s.readFollowed(ctx, false)
		case <-s.syncFire:
			if err := s.sync(ctx, nil); err != nil {
				s.log.Warn("list panes", "err", err)
			}
		case <-s.beat:
			s.heartbeat()
		}
	}
}

// heartbeatEvery is how often live.json is rewritten when nothing else
// changes it: how precisely a team lost in a reboot says when it was last seen.
const heartbeatEvery = time.Minute

// heartbeat writes live.json (its seen time) and sets the next one.
func (s *daemon) heartbeat() {
	s.saveLive()
	s.clock.AfterFunc(heartbeatEvery, func() {
		select {
		case s.beat <- struct{}{}:
		default:
		}
	})
}

// followedFire is the mailbox watch's signal (never, when mailboxes are not watched).
func (s *daemon) followedFire() <-chan struct{} {
	if s.files == nil {
		return nil
	}
	return s.files.fire
}

func (s *daemon) onNotification(ctx context.Context, n tmux.Notification) {
	switch n.Kind {
	case "output":
		w := s.panes[n.Pane]
		if w == nil {
			s.syncLater()
			return
		}
		w.lastOutput = s.clock.Now()
		if !w.armed {
			d := s.quiet
			if (w.live.State == state.StateStalled || w.live.State == state.StateIdle) && !w.rechecked {
				// The first output after a stall or idle is looked at soon; if the
				// state holds (a redraw, a blinking cursor), later output waits for
				// the quiet period, so an animated screen costs no stream of captures.
				d, w.rechecked = settle, true
			}
			s.arm(w, d)
		}
	case "subscription-changed":
		if n.Name == "dead" && n.Pane != "" {
			s.deadChanged(ctx, n.Pane, n.Args)
		}
	case "layout-change", "window-add", "window-close", "unlinked-window-close", "sessions-changed", "window-pane-changed":
		s.syncLater()
	}
}

// arm sets w's quiet (or settle) timer to d. The timer hands the loop the
// watch itself, never a pane id: a relaunch moves a watch to its member's new
// pane (moveWatch), and a timer that named the old id would find no watch
// there and leave this one armed for good, its pane never looked at again.
func (s *daemon) arm(w *paneWatch, d time.Duration) {
	w.armed = true
	if w.timer == nil {
		w.timer = s.clock.AfterFunc(d, func() { s.fire <- w })
		return
	}
	w.timer.Reset(d)
}

// watched tells whether w is still the watch of its pane: one let go (its
// pane went, or another watch took its member's new pane) is done with.
func (s *daemon) watched(w *paneWatch) bool { return s.panes[w.id] == w }

// timerFired: a pane's quiet (or settle) time is up. When output came since,
// the timer is set again for the rest of the quiet period, so one timer per
// quiet period is all a busy pane costs.
func (s *daemon) timerFired(w *paneWatch) {
	if !s.watched(w) {
		return
	}
	w.armed = false
	if w.live.State != state.StateStalled && w.live.State != state.StateIdle {
		if left := s.quiet - s.clock.Now().Sub(w.lastOutput); left > 0 {
			s.arm(w, left)
			return
		}
	}
	s.requestCapture(w)
}

// requestCapture has w's screen looked at. While a capture of it is on its
// way, that one may show the screen from before the output that asked for
// this look: another is taken once it is back (judge), so the screen a quiet
// pane ends on is always looked at.
func (s *daemon) requestCapture(w *paneWatch) {
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	if w.capturing {
		w.again = true
		return
	}
	w.capturing = true
	s.captureQ <- captureReq{w: w, pane: w.id}
}

// captureWorker runs capture-pane for the loop, so the loop never waits on tmux
// while notifications pile up: the requests of q (captureQ, the screens; or
// wordsQ, the last words, which a restart waits for and which never queue
// behind screens).
func (s *daemon) captureWorker(ctx context.Context, q <-chan captureReq) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-q:
			select {
			case s.captured <- s.captureOne(ctx, r):
			case <-ctx.Done():
				return
			}
		}
	}
}

// captureOne takes the screen of a pane through the control client (or its
// history, for last words).
func (s *daemon) captureOne(ctx context.Context, r captureReq) capture {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r.words != nil {
		lines, err := s.control().Command(cctx, tmux.HistoryArgs(r.pane, tmux.HistoryLines)...)
		return capture{w: r.w, pane: r.pane, lines: lines, words: r.words, err: err}
	}
	lines, err := s.control().Command(cctx, "capture-pane", "-p", "-J", "-t", r.pane)
	return capture{w: r.w, pane: r.pane, screen: strings.Join(lines, "\n"), err: err}
}

// judge applies stallwatch's verdict on a captured screen to the pane's state.
func (s *daemon) judge(ctx context.Context, c capture) {
	if c.words != nil {
		s.wordsCaptured(ctx, c)
		return
	}
	w := c.w
	if !s.watched(w) {
		return
	}
	w.capturing = false
	if c.pane != w.id {
		// The screen of the pane before a relaunch moved w: say nothing of it,
		// look at the new one.
		w.again = false
		s.requestCapture(w)
		return
	}
	if w.again {
		w.again = false
		defer s.requestCapture(w)
	}
	if c.err != nil {
		// The pane may be going (a layout notification says so) or tmux was
		// slow to answer: look again after a quiet period, so a pane that
		// lives is never left unseen.
		s.log.Debug("capture", "pane", c.pane, "err", c.err)
		if !w.armed {
			s.arm(w, s.quiet)
		}
		return
	}
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	if w.live.State == state.StateWaitingApproval {
		return // the mailbox says what it waits for; its screen says nothing more
	}
	v := s.det.Check(c.screen)
	prev := *w.live
	now := s.clock.Now().UTC()
	switch v.Kind {
	case stallwatch.Stalled:
		if prev.State == state.StateStalled && prev.Pattern == v.Pattern && sameQuestion(w.screen, c.screen, prev.Line, v.Line) {
			w.screen = c.screen
			return // the same stall, still waiting (maybe with what was typed at it)
		}
		if prev.State == state.StateStalled {
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		}
		w.live = &state.LiveMember{Pane: w.id, State: state.StateStalled, Since: now, Pattern: v.Pattern, Line: v.Line, Excerpt: v.Excerpt}
		w.rechecked = false
		w.screen = c.screen
		s.event(state.Event{Kind: state.EventStall, Member: w.member, Pane: w.id, Pattern: v.Pattern, Line: v.Line, Excerpt: v.Excerpt, Origin: w.origin})
		s.notifier.stalled(ctx, w, v, c.screen)
	case stallwatch.Idle:
		if prev.State == state.StateStalled {
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		}
		if prev.State != state.StateIdle {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: now}
			w.rechecked = false
			s.event(state.Event{Kind: state.EventIdle, Member: w.member, Pane: w.id})
		}
		s.notifier.idle(ctx, w)
	default:
		switch prev.State {
		case state.StateStalled:
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		case state.StateIdle:
			s.event(state.Event{Kind: state.EventWorking, Member: w.member, Pane: w.id})
		case state.StateRunning:
			return
		}
		w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: now}
	}
	s.live.Members[w.member] = w.live
	s.saveLive()
}

// deadFormat is the "dead" subscription's value.
const deadFormat = "#{pane_dead}/#{pane_dead_status}/#{pane_dead_signal}/#{pane_pid}"

// askDead reads a pane's dead value through the control client (off the loop,
// which must never wait on tmux) and hands it back to the loop.
func (s *daemon) askDead(ctx context.Context, pane string) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lines, err := s.control().Command(cctx, "display-message", "-p", "-t", pane, deadFormat)
	if err != nil || len(lines) != 1 {
		return // the pane or the server went; the layout notifications say so
	}
	select {
	case s.deadValues <- [2]string{pane, lines[0]}:
	case <-ctx.Done():
	}
}

// deadChanged handles the "dead" subscription: "1/STATUS/SIGNAL/PID" when a
// pane's program has exited, "0///PID" while it runs. The pid tells a new exit
// from an old one: tmux reports a value only when it changed, and a program
// that dies again within a second of its restart changes nothing but the pid.
func (s *daemon) deadChanged(ctx context.Context, pane, value string) {
	w := s.panes[pane]
	if w == nil {
		s.syncLater()
		return
	}
	s.log.Debug("pane dead subscription", "pane", pane, "value", value, "state", w.live.State, "exit_pid", w.exitPID)
	f := strings.SplitN(value, "/", 4)
	if len(f) < 4 {
		return
	}
	if pid, err := strconv.Atoi(f[3]); err == nil {
		w.pid = pid
	}
	if f[0] != "1" {
		// Running again, relaunched by someone else (`teamctl up`, `teamctl
		// restart`): no restart of ours is due any more, and a failed member
		// starts with a clean crash-loop window.
		if (w.live.State == state.StateExited || w.live.State == state.StateFailed) && f[3] != w.exitPID {
			s.relaunched(w)
			s.freshRun(w)
			w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
			s.live.Members[w.member] = w.live
			s.saveLive()
			if m, ok := s.st.Member(w.member); ok {
				s.leadStarted(m)
			}
		}
		return
	}
	if f[3] == w.exitPID {
		return
	}
	if w.live.State == state.StateFailed {
		// A process we did not start died: someone relaunched the failed
		// member and it ended again before we saw it run.
		s.relaunched(w)
	}
	var code *int
	if f[1] != "" {
		c, _ := strconv.Atoi(f[1])
		code = &c
	}
	sig, _ := strconv.Atoi(f[2])
	detail := ""
	if code == nil && sig == 0 {
		// tmux marks a pane dead when its terminal closes, which may come before
		// it reaps the program — and on a busy machine it sometimes does not
		// reap it until another of its children exits. The program is then a
		// zombie of the tmux server, whose exit status Linux still holds.
		zc, zs, ok := proc.ZombieStatus(w.pid, s.serverPID)
		switch {
		case ok:
			code, sig = zc, zs
		case s.serverPID > 0 && proc.ChildAlive(w.pid, s.serverPID):
			// Its terminal closed but the program runs on: it has not ended
			// yet. Look again while it lives (tmux's subscription tells too).
			s.clock.AfterFunc(200*time.Millisecond, func() { s.askDead(ctx, pane) })
			return
		case w.statusTries < 40:
			// Reaped meanwhile: tmux has the status now or shortly, and its
			// subscription may not tell again. Ask it directly, a little later
			// (a bounded number of times).
			w.statusTries++
			s.clock.AfterFunc(25*time.Millisecond, func() { s.askDead(ctx, pane) })
			return
		default:
			detail = "exit status unknown (tmux never learnt it); counted as a failure"
		}
	}
	w.statusTries = 0
	w.exitPID = f[3]
	now := s.clock.Now().UTC()
	w.live = &state.LiveMember{Pane: w.id, State: state.StateExited, Since: now, ExitCode: code}
	s.live.Members[w.member] = w.live
	s.event(state.Event{Kind: state.EventExit, Member: w.member, Pane: w.id, ExitCode: code, Signal: sig, Origin: w.origin, Detail: detail})
	s.keepWords(w, code, sig)
	s.afterExit(w, code, sig, now)
	s.saveLive()
}

// relaunched forgets a member's restart history when someone else relaunched
// it: a pending restart of ours is cancelled and the crash-loop window starts
// again, so its next exits are reported and handled like a fresh start's.
func (s *daemon) relaunched(w *paneWatch) {
	if w.restartTimer != nil {
		w.restartTimer.Stop()
	}
	w.exits = nil
}

// sameQuestion tells whether a stalled pane still shows the question it was
// stalled on: its line is the same, or has grown by what was typed at it (the
// terminal echoes an answer even to a program that does not read it), so one
// prompt gets one stall and at most one automatic answer. The same words asked
// again (a program asking about the next file) are a new question: the screen
// then holds more lines starting with them than before. Redraws elsewhere on
// the screen (Claude Code's dialogs) change nothing.
func sameQuestion(before, after, beforeLine, afterLine string) bool {
	if afterLine != beforeLine && !strings.HasPrefix(afterLine, beforeLine) {
		return false
	}
	return before == "" || questionLines(after, beforeLine) <= questionLines(before, beforeLine)
}

// questionLines counts the screen's lines that start with the question.
func questionLines(screen, question string) int {
	n := 0
	for _, ln := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(ln), question) {
			n++
		}
	}
	return n
}

func isNoServer(err error) bool { return errors.Is(err, tmux.ErrNoServer) }

// Package supervisor is a team's daemon (`teamctl supervise`, which `up`
// starts): it follows every pane's output through one tmux control-mode
// client and the team's files (Claude Code's mailboxes, config and tasks; the
// event log and the lead queue), and decides: stalled, idle, working,
// waiting-approval; exits, restarts with backoff, failed; adoption of the
// teammates the lead spawns; answers by rule; text typed into an idle lead.
// It records what it knows in the team's state folder (package state), which
// is all the lifecycle verbs (package team) see of it: the two never import
// each other. It reaches tmux, the time and the lead's processes through
// small interfaces (deps.go), so its decisions are tested in milliseconds
// (decisions_test.go).
//
// Its files, a concern each: the daemon and its loop (supervisor.go), its
// control client (control.go); the panes' output, quiet periods and
// captures, judged stalled, idle or working (watch.go), a steady printer's
// output paused for the client (outswitch.go); exits (exits.go),
// restarts (restart.go) and last words (lastwords.go); the panes adopted and
// named (sync.go); the files followed (followed.go, with package
// internal/filewatch saying which changed) and what they decide: the lead's
// inbox (inbox.go), answers and rules (answers.go), hooks (hooks.go), the
// team's config and prompts given again (teamconfig.go), the team the lead
// claimed (teammove.go), tasks, messages and the lead queue; notices
// (notify.go); the conflict radar, what merging members' work would do
// (radar.go); what the members spend and their budgets (budget.go,
// budgetstop.go); usage limits, waited out and continued (limits.go).
package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
	"github.com/teamctl/teamctl/tmux"
)

// SuperviseOptions tune Supervise.
type SuperviseOptions struct {
	TmuxBin    string
	MinBackoff time.Duration // the first restart's delay (default 1s); later ones double it
	MaxExits   int           // more exits than this within 2 minutes fail a member (default 5)
	Log        *slog.Logger
	// A restart relaunches a member as the team's layout plans it
	// (launch.Relaunch), with its programs found as up finds them:
	// ClaudeOverride is TEAMCTL_CLAUDE, Teamctl this teamctl, which Claude
	// Code's hooks call.
	ClaudeOverride string
	Teamctl        string
	// Handover, when not nil, is up's: the lock it took for this
	// supervisor, to say ready on and wait for its go (state.Handover).
	Handover *state.Handover
}

type daemon struct {
	// early are permission requests from a name that was no member yet
	// (inbox.go): looked at again when a name joins the team's config.json
	// or a pane is adopted.
	early     []claudecode.Message
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
	switchQ    chan switchReq  // output switched on or off (outswitch.go)
	probeFire  chan *paneWatch // probe timer of a pane switched off
	syncSoon   timer
	syncFire   chan struct{}
	beat       chan struct{} // the heartbeat: live.json rewritten, so a lost team says when it was last seen
	queueRead  int64         // how far the lead queue was read (live.json has how far it was typed)
	notifier   *notifier
	files      *filewatch.Watcher // which followed files changed (nil: none are watched)
	seen       filesSeen          // what the decisions remember of them
	nameTries  map[string]int
	ending     map[string]bool // panes of second runs of a member being ended (endCopy)
	procs      processes       // the lead's processes (teammove.go)
	teamLook   teamLook        // checkTeam's look for the team the lead claimed
	// takenOver is when the daemon first saw the lead's own config where a
	// placeholder held prompts (state.Team.PromptsInPlaceholder).
	takenOver time.Time

	// hooksRefused are the member and pane pairs of hooks reported as not
	// from the member's pane (fromHook), each reported once.
	hooksRefused map[string]bool

	radar *radar // the conflict radar (radar.go)

	spend     spending        // what the members spend, and the budgets (budget.go)
	limitFire chan *paneWatch // a continuation timer (limits.go)
	// hosts are what the daemon knows of each host's control client
	// (hosts.go); hostFire hands the loop a host to try again, hostResult
	// how the try went.
	hosts      map[string]*hostState
	hostFire   chan string
	hostResult chan hostAttempt
	// tryHost attaches to a host's server again (nil: the control
	// client's Reattach), run by offLoop (nil: a goroutine); tests give
	// their own.
	tryHost func(ctx context.Context, host string) error
	offLoop func(func())
	// typeAgent continues a Codex or Gemini member of kind after its
	// limit (continueAgent; tests record it instead).
	typeAgent func(member, kind, text string)
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
	var lock *state.SupervisorLock
	if h := o.Handover; h != nil {
		if lock, err = state.AdoptSupervisorLock(team, h.Lock); err != nil {
			return err
		}
		defer lock.Release()
		if ok, err := h.Begin(); !ok {
			return err // up made nothing to supervise, or is gone
		}
	} else {
		if lock, err = state.TakeSupervisorLock(team); err != nil {
			return err
		}
		defer lock.Release()
	}
	st, err := state.Load(team)
	if err != nil {
		return err
	}
	if !st.Running() {
		return fmt.Errorf("team %s is down", team)
	}
	local := &tmux.Server{Socket: state.SocketName(team), Bin: o.TmuxBin}
	var srv tmuxServer = realServer{local}
	if len(st.Hosts) > 0 {
		g, err := newGroupServer(team, local, st.Hosts)
		if err != nil {
			return err
		}
		srv = g
	}
	s := newDaemon(team, o, st, ev, srv, realClock{})
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
	go s.switchWorker(ctx)
	go s.radarWorker(ctx)
	if err := s.follow(); err != nil {
		s.log.Warn("mailboxes not watched", "err", err)
	}
	defer s.files.Close()
	if err := s.begin(ctx, prev); err != nil {
		return err
	}
	s.relayHosts(ctx)
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
		nameTries: map[string]int{}, ending: map[string]bool{}, procs: realProcs{}, radar: newRadar(realGit{}),
		limitFire: make(chan *paneWatch, 64), hostFire: make(chan string, 16), hostResult: make(chan hostAttempt, 16), switchQ: make(chan switchReq, 1024), probeFire: make(chan *paneWatch, 256),
	}
	s.typeAgent = s.continueAgent
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
	s.radarResume(prev)
	s.usageBegin(ctx, prev)
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
	// from state.json, which a member can rewrite (as relaunch.ClaudeConfigDir, from the layout parsed here once).
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
	s.spend.saved, s.spend.unsaved = s.live.Seen, false // what the members spent is in it too
	if err := state.WriteLive(s.team, s.live); err != nil {
		s.log.Error("live state", "err", err)
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
		case w := <-s.probeFire:
			s.probeFired(w)
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
		case <-s.radar.fire:
			s.radarFired()
		case res := <-s.radar.done:
			s.radarDone(ctx, res)
		case w := <-s.limitFire:
			s.limitFired(ctx, w)
		case h := <-s.hostFire:
			s.hostRetryFired(ctx, h)
		case a := <-s.hostResult:
			s.hostAttemptDone(ctx, a)
		}
	}
}

// heartbeatEvery is how often live.json is rewritten when nothing else
// changes it: how precisely a team lost in a reboot says when it was last seen.
const heartbeatEvery = time.Minute

// heartbeat writes live.json (its seen time) and sets the next one; the
// transcripts are looked at too, in case a change went unseen (a folder
// made and written between two looks), and the work of the members on other
// hosts (no watch follows their branches there).
func (s *daemon) heartbeat() {
	s.usageSoon()
	s.remoteWorkSoon()
	s.saveLive()
	s.clock.AfterFunc(heartbeatEvery, func() {
		select {
		case s.beat <- struct{}{}:
		default:
		}
	})
}

// watchOf is the watch of member name's pane, or nil.
func (s *daemon) watchOf(name string) *paneWatch {
	for _, w := range s.panes {
		if w.member == name {
			return w
		}
	}
	return nil
}

func (s *daemon) leadName() string {
	for _, m := range s.st.Members {
		if m.Role == state.RoleLead {
			return m.Name
		}
	}
	return ""
}

func (s *daemon) leadCwd() string {
	if m, ok := s.st.Member(s.leadName()); ok {
		return m.Cwd
	}
	return ""
}

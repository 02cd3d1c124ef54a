package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/teamctl/teamctl/relay"
	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Members on other hosts (docs/hosts.md). Each host runs a tmux server of
// the team's; the daemon follows it with a control client over ssh, beside
// the one on this machine's server, through groupServer and groupControl:
// one server and one control client to the rest of the daemon, a remote
// pane's ids qualified with its host (tmux.Group). A host's control client
// that ends (the connection dropped) is told as a notification of kind
// hostLost; the daemon then shows the host unreachable and its members
// unknown, and tries again with backoff (hostRetry) until it is back
// (hostBack): then every pane of it is looked at again, as after any
// control client's loss. Its panes keep running meanwhile, and are never
// taken for gone.

// Notification kinds of a host's control client, made here, never by tmux.
const (
	hostLost = "teamctl-host-lost"
	hostBack = "teamctl-host-back"
)

// hostBackoff is how long the daemon waits before its attempt-th try to
// reach a host again: 1 s, doubling, at most hostBackoffMax.
func hostBackoff(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < hostBackoffMax; i++ {
		d *= 2
	}
	return min(d, hostBackoffMax)
}

// hostBackoffMax bounds hostBackoff: a host back is seen within it.
const hostBackoffMax = 8 * time.Second

// hostOfPane is the host of a pane id ("" for this machine's).
func hostOfPane(id string) string {
	_, host, _ := tmux.SplitQualified(id)
	return host
}

// reattacher is a control client that can follow a host again.
type reattacher interface {
	Reattach(ctx context.Context, host string) error
}

// groupServer is the team's servers (tmux.Group) as the daemon's tmuxServer.
type groupServer struct {
	g *tmux.Group

	mu   sync.Mutex
	last map[string][]tmux.Pane // by host: its panes as last listed
	down map[string]bool        // hosts not reached at the last listing
	lost map[string]bool        // hosts the daemon knows lost: not asked (setLost)
}

// hostListTimeout bounds the listing of a host's panes: the daemon's loop
// waits for it, and a link that dropped unnoticed must not hold it long.
const hostListTimeout = 3 * time.Second

// setLost says the daemon knows host lost (or back): a lost host's panes
// are its last ones, not asked for over a link known down.
func (s *groupServer) setLost(host string, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost[host] = lost
}

func newGroupServer(team string, local *tmux.Server, hosts []state.Host) (*groupServer, error) {
	dir, err := state.SSHDir()
	if err != nil {
		return nil, err
	}
	g := &tmux.Group{Server: local, Hosts: map[string]*tmux.Server{}}
	for _, h := range hosts {
		g.Hosts[h.Name] = &tmux.Server{Socket: state.SocketName(team), Via: sshconn.New(h.SSH, dir)}
	}
	return &groupServer{g: g, last: map[string][]tmux.Pane{}, down: map[string]bool{}, lost: map[string]bool{}}, nil
}

// ListPanes lists every server's panes; a host not reached gives the panes
// it had at its last listing (they run on, unseen), one whose server is
// gone gives none.
func (s *groupServer) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	panes, err := s.g.Server.ListPanes(ctx)
	for _, h := range s.g.HostNames() {
		s.mu.Lock()
		lost := s.lost[h]
		s.mu.Unlock()
		var own []tmux.Pane
		herr := tmux.ErrUnreachable
		if !lost {
			hctx, cancel := context.WithTimeout(ctx, hostListTimeout)
			own, herr = s.g.Hosts[h].ListPanes(hctx)
			cancel()
		}
		s.mu.Lock()
		switch {
		case herr == nil:
			s.down[h] = false
			s.last[h] = tmux.QualifyPanes(own, h)
			panes = append(panes, s.last[h]...)
		case errors.Is(herr, tmux.ErrNoServer):
			s.down[h], s.last[h] = false, nil
		default:
			s.down[h] = true
			panes = append(panes, s.last[h]...)
		}
		s.mu.Unlock()
	}
	return panes, err
}

func (s *groupServer) RunBatch(ctx context.Context, b *tmux.Batch) ([]string, error) {
	return s.g.RunBatch(ctx, b)
}
func (s *groupServer) Run(ctx context.Context, args ...string) (string, error) {
	return s.g.Run(ctx, args...)
}
func (s *groupServer) Type(ctx context.Context, pane, text string) error {
	return s.g.Type(ctx, pane, text)
}
func (s *groupServer) ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error) {
	return s.g.ReplacePane(ctx, old, dir, env, argv, member)
}
func (s *groupServer) Listening() bool { return s.g.Server.Listening() }

// Control attaches to this machine's server's session target; the team's
// session on each host is attached to meanwhile, off the caller (a host
// may take seconds, or not answer): attached, it is told as hostBack (its
// panes are looked at then), not reached, as hostLost (tried again by the
// daemon).
func (s *groupServer) Control(ctx context.Context, target string) (controlClient, error) {
	local, err := s.g.Server.Control(ctx, target)
	if err != nil {
		return nil, err
	}
	c := &groupControl{srv: s, local: local, notes: make(chan tmux.Notification, tmux.ControlBuffer),
		remote: map[string]*tmux.Control{}, stop: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.forward(local, "")
	for _, h := range s.g.HostNames() {
		go func() {
			if err := c.Reattach(c.ctx, h); err != nil {
				c.lost(h, err)
				return
			}
			c.send(tmux.Notification{Kind: hostBack, Name: h})
		}()
	}
	return c, nil
}

// groupControl is the control clients of a team's servers as one. Its
// Notes is never closed (a forwarder may still be sending): Done, the local
// client's, says it ended.
type groupControl struct {
	srv    *groupServer
	local  *tmux.Control
	notes  chan tmux.Notification
	ctx    context.Context // ends at Close: attaching to a host stops
	cancel context.CancelFunc

	mu     sync.Mutex
	remote map[string]*tmux.Control // by host; absent while lost
	closed bool
	stop   chan struct{}
}

// Reattach attaches a control client to the team's session on host and
// subscribes to its panes' exits, as connect does here; the host's
// notifications then come with their ids qualified.
func (c *groupControl) Reattach(ctx context.Context, host string) error {
	srv := c.srv.g.Hosts[host]
	if srv == nil {
		return fmt.Errorf("no host %q", host)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	rc, err := srv.Control(cctx, tmux.SessionTarget(teamOfSocket(srv.Socket)))
	if err != nil {
		return err
	}
	if _, err := rc.Command(cctx, "refresh-client", "-B", "dead:%*:"+deadFormat); err != nil {
		rc.Close()
		return fmt.Errorf("subscribe to pane exits on %s: %w", host, err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		rc.Close()
		return errors.New("control client closed")
	}
	c.remote[host] = rc
	c.mu.Unlock()
	go c.forward(rc, host)
	return nil
}

// teamOfSocket is the team's name from its server's socket name.
func teamOfSocket(socket string) string { return strings.TrimPrefix(socket, "teamctl-") }

// forward hands on cc's notifications, ids qualified with host; when a
// host's client ends, hostLost follows its last notification.
func (c *groupControl) forward(cc *tmux.Control, host string) {
	for n := range cc.Notes() {
		if host != "" && n.Pane != "" {
			n.Pane = tmux.Qualify(n.Pane, host)
		}
		if !c.send(n) {
			return
		}
	}
	if host == "" {
		return
	}
	c.mu.Lock()
	if c.remote[host] == cc {
		delete(c.remote, host)
	}
	c.mu.Unlock()
	c.lost(host, cc.Err())
}

// lost tells the daemon host's client ended.
func (c *groupControl) lost(host string, err error) {
	why := "ended"
	if err != nil {
		why = err.Error()
	}
	c.send(tmux.Notification{Kind: hostLost, Name: host, Args: why})
}

func (c *groupControl) send(n tmux.Notification) bool {
	select {
	case c.notes <- n:
		return true
	case <-c.stop:
		return false
	}
}

func (c *groupControl) Notes() <-chan tmux.Notification { return c.notes }
func (c *groupControl) Done() <-chan struct{}           { return c.local.Done() }
func (c *groupControl) Err() error                      { return c.local.Err() }

// Command sends a command to the client of the server its ids name.
func (c *groupControl) Command(ctx context.Context, args ...string) ([]string, error) {
	host := ""
	out := args
	for i, a := range args {
		if a == "--" {
			break
		}
		if id, h, ok := tmux.SplitQualified(a); ok && h != "" {
			if host == "" {
				out = append([]string(nil), args...)
			}
			host, out[i] = h, id
		}
	}
	if host == "" {
		return c.local.Command(ctx, args...)
	}
	c.mu.Lock()
	rc := c.remote[host]
	c.mu.Unlock()
	if rc == nil {
		return nil, fmt.Errorf("host %s: %w", host, tmux.ErrUnreachable)
	}
	return rc.Command(ctx, out...)
}

// Close ends every client.
func (c *groupControl) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.stop)
		c.cancel()
	}
	remote := c.remote
	c.remote = map[string]*tmux.Control{}
	c.mu.Unlock()
	for _, rc := range remote {
		rc.Close()
	}
	return c.local.Close()
}

// hostState is what the daemon knows of a host's control client.
type hostState struct {
	lost     bool
	attempts int
	retry    timer
}

// onHostLost: host's control client ended. Its members show unknown until
// it is back; the daemon tries again after hostBackoff.
func (s *daemon) onHostLost(ctx context.Context, host, why string) {
	h := s.hostState(host)
	if h.lost {
		return // told again: its tries go on as they were
	}
	h.lost = true
	if g, ok := s.srv.(*groupServer); ok {
		g.setLost(host, true)
	}
	s.setUnreachable(host, true)
	s.log.Warn("host lost", "host", host, "why", why)
	s.event(state.Event{Kind: state.EventSupervisor, Detail: fmt.Sprintf("host %s not reached (%s): its members are unknown until it is back", host, why)})
	s.saveLive()
	s.retryHost(ctx, host)
}

// retryHost schedules the next attempt to reach host.
func (s *daemon) retryHost(ctx context.Context, host string) {
	h := s.hostState(host)
	h.attempts++
	if h.retry != nil {
		h.retry.Stop()
	}
	h.retry = s.clock.AfterFunc(hostBackoff(h.attempts), func() {
		select {
		case s.hostFire <- host:
		case <-ctx.Done():
		}
	})
}

// hostRetryFired tries to reach host again, off the loop (an ssh
// connection may take seconds); the result comes back on hostResult.
func (s *daemon) hostRetryFired(ctx context.Context, host string) {
	try := s.tryHost
	if try == nil {
		r, ok := s.control().(reattacher)
		if !ok {
			return
		}
		try = r.Reattach
	}
	run := s.offLoop
	if run == nil {
		run = func(f func()) { go f() }
	}
	run(func() {
		err := try(ctx, host)
		select {
		case s.hostResult <- hostAttempt{host: host, err: err}:
		case <-ctx.Done():
		}
	})
}

type hostAttempt struct {
	host string
	err  error
}

// hostAttemptDone: an attempt to reach a host ended.
func (s *daemon) hostAttemptDone(ctx context.Context, a hostAttempt) {
	h := s.hostState(a.host)
	if a.err != nil {
		s.log.Debug("host not reached yet", "host", a.host, "attempt", h.attempts, "err", a.err)
		s.retryHost(ctx, a.host)
		return
	}
	s.onHostBack(ctx, a.host)
}

// onHostBack: host's control client is attached again: its panes are
// listed and every one looked at (what happened meanwhile, a stall that
// began, an exit, is found as after any control client's loss).
func (s *daemon) onHostBack(ctx context.Context, host string) {
	h := s.hostState(host)
	if h.retry != nil {
		h.retry.Stop()
	}
	wasLost := h.lost
	*h = hostState{}
	if g, ok := s.srv.(*groupServer); ok {
		g.setLost(host, false)
	}
	s.setUnreachable(host, false)
	if wasLost {
		s.log.Info("host back", "host", host)
		s.event(state.Event{Kind: state.EventSupervisor, Detail: fmt.Sprintf("host %s reached again", host)})
	}
	if err := s.sync(ctx, nil); err != nil {
		s.log.Warn("list panes", "err", err)
	}
	for _, w := range s.panes {
		if w.host != host {
			continue
		}
		w.capturing = false
		if !w.live.State.Ended() {
			s.requestCapture(w)
		}
	}
	s.saveLive()
}

func (s *daemon) hostState(host string) *hostState {
	if s.hosts == nil {
		s.hosts = map[string]*hostState{}
	}
	h := s.hosts[host]
	if h == nil {
		h = &hostState{}
		s.hosts[host] = h
	}
	return h
}

// setUnreachable records in live.json whether host is unreachable.
func (s *daemon) setUnreachable(host string, down bool) {
	if down {
		if s.live.Unreachable == nil {
			s.live.Unreachable = map[string]time.Time{}
		}
		if _, ok := s.live.Unreachable[host]; !ok {
			s.live.Unreachable[host] = s.clock.Now().UTC()
		}
		return
	}
	delete(s.live.Unreachable, host)
	if len(s.live.Unreachable) == 0 {
		s.live.Unreachable = nil
	}
}

// relayHosts runs the team's relay (package relay) with every host where a
// Claude Code member runs, for the daemon's life: tried again with
// hostBackoff when it ends (the connection dropped: nothing is lost, what
// waited is carried once it is back). The hosts' members' hook events are
// appended to the team's event log with their panes qualified, as the
// daemon takes a hook here.
func (s *daemon) relayHosts(ctx context.Context) {
	for _, h := range s.st.Hosts {
		if h.Teamctl == "" || s.st.ClaudeTeam == "" {
			continue
		}
		var owned []string
		for _, m := range s.st.Members {
			if m.Host == h.Name {
				owned = append(owned, m.Name)
			}
		}
		go s.relayHost(ctx, h, owned)
	}
}

func (s *daemon) relayHost(ctx context.Context, h state.Host, owned []string) {
	dir, err := state.SSHDir()
	if err != nil {
		s.log.Error("relay", "host", h.Name, "err", err)
		return
	}
	sh := sshconn.New(h.SSH, dir)
	o := relay.Options{ConfigDir: s.claudeDir, ClaudeTeam: s.st.ClaudeTeam, Hub: true, Owned: owned,
		Event: func(e state.Event) {
			e.Pane = tmux.Qualify(e.Pane, h.Name)
			s.event(e)
		},
		Log: func(msg string, err error) { s.log.Warn("relay: "+msg, "host", h.Name, "err", err) }}
	for attempt := 1; ctx.Err() == nil; attempt++ {
		began := time.Now()
		err := relay.OverSSH(ctx, sh, h.Teamctl, s.team, o, 0)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute {
			attempt = 1 // it ran: this is a new loss
		}
		s.log.Warn("relay ended; again soon", "host", h.Name, "err", err, "attempt", attempt)
		select {
		case <-ctx.Done():
			return
		case <-time.After(hostBackoff(attempt)):
		}
	}
}

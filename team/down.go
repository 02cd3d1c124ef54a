package team

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// DownOptions tune Down.
type DownOptions struct {
	TmuxBin  string        // the team's tmux (Team.Down sets it to Open's)
	Timeout  time.Duration // grace period between SIGTERM and SIGKILL (default 10s)
	Now      bool          // skip the teammates' shutdown_request and its wait
	Progress io.Writer
}

// DownResult says how the members ended.
type DownResult struct {
	Terminated []string // ended after SIGTERM (or before it)
	Killed     []string // needed SIGKILL
	Strays     []int    // processes of the team found outside its panes' process groups
	// ShutDown are the teammates that approved Claude Code's shutdown_request
	// (shutdown_approved in the lead's inbox) and ended by themselves before
	// any signal; they are in Terminated too.
	ShutDown []string
	// Warnings are what down went without (the team's lock, recording the
	// stop: a read-only or full state folder); the team was stopped all the same.
	Warnings []string
	// AlreadyDown: the team was down before (recorded as stopped, no server,
	// no supervisor), so nothing was done; StoppedAt is when it went down.
	AlreadyDown bool
	StoppedAt   time.Time
	// Left says, a line per host, what down could not end there (the host
	// not reached): its members may still run.
	Left []string
}

func isNoServer(err error) bool { return errors.Is(err, tmux.ErrNoServer) }

// down stops the team: Claude Code teammates are asked to shut down (unless
// Now), then SIGTERM to every other pane's process group, a grace period and
// SIGKILL to what is left, then the same for the lead, then the team's tmux
// server goes. Worktrees and Claude Code's files are left alone.
//
// Once it has begun it finishes what it can: a step that fails (the panes
// cannot be listed, the supervisor does not stop) does not keep the team's
// server from being killed by its own socket and the processes that carry
// that socket from being ended; the errors come back after. A state folder
// that cannot be written (no lock file to take, the stop not recorded) is a
// warning in the result, not a failure: the team is down.
func down(ctx context.Context, w world, team string, o DownOptions) (*DownResult, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	res := &DownResult{}
	unlock, err := state.Lock(ctx, team)
	switch {
	case err == nil:
		defer unlock()
	case ctx.Err() != nil:
		return nil, err // another teamctl holds the lock, or we were interrupted
	default:
		// Signals need no lock; without one, a concurrent up could interleave,
		// which is better than a team left running.
		res.Warnings = append(res.Warnings, fmt.Sprintf("could not take the team's lock, stopping it without: %v", err))
	}
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	srv := w.tmux(team)
	if !st.Running() {
		// Down already: nothing to stop, and its recorded stop stays as it was.
		// A server or supervisor left running despite the record is stopped below.
		_, lerr := srv.ListPanes(ctx)
		if pid, _ := state.SupervisorPID(team); pid == 0 && isNoServer(lerr) {
			res.AlreadyDown, res.StoppedAt = true, *st.StoppedAt
			return res, nil
		}
	}
	var errs []error
	// The supervisor goes first, so that nothing restarts a member being stopped.
	if err := state.StopSupervisor(ctx, team, 5*time.Second, w.procs.End); err != nil {
		if ctx.Err() != nil {
			return res, err
		}
		errs = append(errs, fmt.Errorf("stop the supervisor: %w", err))
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil && !isNoServer(err) {
		// Without the panes there are no process groups to signal; killing the
		// server and ending the processes that carry its socket still stops
		// every one of them.
		errs = append(errs, fmt.Errorf("list the team's panes (its server and processes are ended all the same): %w", err))
		panes = nil
	}
	// Processes are ended here only where they run here: a remote pane's
	// pid is its host's (its server there ends them, below).
	panes = slices.DeleteFunc(panes, func(p tmux.Pane) bool {
		_, host, _ := tmux.SplitQualified(p.ID)
		return host != ""
	})
	names := map[string]string{}
	for _, m := range st.Members {
		names[m.Pane] = m.Name
	}
	// Every live pane on the team's server, members the lead spawned included.
	groups := map[int]string{}
	for _, p := range panes {
		if p.Dead || p.PID <= 0 {
			continue
		}
		name := names[p.ID]
		if name == "" {
			name = p.Member
		}
		if name == "" {
			name = p.ID
		}
		groups[p.PID] = name
	}
	if !o.Now {
		res.ShutDown = askTeammatesToShutDown(ctx, w, st, panes, groups, min(o.Timeout/2, 5*time.Second), o.Progress)
	}
	// The lead goes last: while it runs, its teammates can still reach it (its
	// mailbox, its team config), and a lead ended first would clean its team
	// up under them.
	leads := map[int]string{}
	if lead := leadPane(st, panes); lead.PID > 0 && groups[lead.PID] != "" {
		leads[lead.PID] = groups[lead.PID]
		delete(groups, lead.PID)
	}
	for _, gs := range []map[int]string{groups, leads} {
		terminate(ctx, w.procs, gs, o.Timeout, res, o.Progress)
	}
	// The stop is recorded before the server goes: whoever looks meanwhile
	// (status, status -w, top) would otherwise take the team for lost.
	now := w.clock.Now().UTC()
	st.StoppedAt = &now
	st.UpdatedAt = now
	if err := state.Save(st); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("could not record the stop in the team's state (status may still show it up): %v", err))
	}
	if err := srv.KillServer(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop the team's tmux server: %w", err))
	}
	if g, ok := srv.(*tmux.Group); ok {
		res.Left = downHosts(ctx, g, st, o.Progress)
		res.Warnings = append(res.Warnings, res.Left...)
	}
	// What the team left outside its panes' process groups: Claude Code runs
	// each Bash command in a session of its own, and when Claude Code is
	// SIGKILLed those shells live on, reparented to init. They still carry the
	// TMUX variable tmux gave every process of the team's panes, naming the
	// team's own socket, which is how they are found: nothing of another
	// server (another team, or the same team name under another TMUX_TMPDIR)
	// matches.
	res.Strays = w.procs.EndStrays(ctx, state.SocketPath(st.Team), min(o.Timeout, 2*time.Second))
	if len(res.Strays) > 0 && o.Progress != nil {
		fmt.Fprintf(o.Progress, "ended %d process(es) of the team that had left its panes: %v\n", len(res.Strays), res.Strays)
	}
	state.ClearLive(team)
	return res, errors.Join(errs...)
}

// terminate ends the process groups gs (pgid → member name) with the one stop
// loop, and says which needed SIGKILL.
func terminate(ctx context.Context, procs processes, gs map[int]string, timeout time.Duration, res *DownResult, progress io.Writer) {
	if len(gs) == 0 {
		return
	}
	targets := make([]proc.Target, 0, len(gs))
	for pgid := range gs {
		targets = append(targets, proc.Group(pgid))
	}
	r := procs.End(ctx, targets, timeout)
	for _, t := range r.Terminated {
		res.Terminated = append(res.Terminated, gs[t.PID])
	}
	for _, t := range r.Killed {
		res.Killed = append(res.Killed, gs[t.PID])
		if progress != nil {
			fmt.Fprintf(progress, "%s did not stop within %s: killed\n", gs[t.PID], timeout)
		}
	}
}

// leadPane is the lead's live pane, or a zero Pane.
func leadPane(st *state.Team, panes []tmux.Pane) tmux.Pane {
	for _, m := range st.Members {
		if m.Role != state.RoleLead {
			continue
		}
		for _, p := range panes {
			if p.ID == m.Pane && !p.Dead {
				return p
			}
		}
	}
	return tmux.Pane{}
}

// askTeammatesToShutDown sends each running Claude Code teammate Claude Code's
// own shutdown_request and waits up to wait for them to end by themselves (a
// teammate hands the request to its model, which may refuse: so there is a
// deadline, and what is left gets SIGTERM as usual). It returns, sorted, the
// teammates that approved the request and ended.
func askTeammatesToShutDown(ctx context.Context, w world, st *state.Team, panes []tmux.Pane, groups map[int]string, wait time.Duration, progress io.Writer) []string {
	byPane := map[string]tmux.Pane{}
	for _, p := range panes {
		byPane[p.ID] = p
	}
	asked := map[int]string{}
	requests := map[string]string{} // request id → the teammate asked
	claudeDir := relaunch.ClaudeConfigDir(st)
	for _, m := range st.Members {
		p, ok := byPane[m.Pane]
		if m.Role != state.RoleTeammate || !ok || p.Dead || groups[p.PID] == "" {
			continue
		}
		inbox, err := claudecode.InboxPath(claudeDir, st.ClaudeTeam, m.Name)
		if err != nil {
			continue
		}
		if cfg, err := claudecode.TeamConfigPath(claudeDir, st.ClaudeTeam); err != nil {
			continue
		} else if _, err := os.Lstat(cfg); err != nil {
			continue // no team to write into (and a folder made now would outlive it)
		}
		id := claudecode.NewSessionID()
		mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = claudecode.AppendMessage(mctx, inbox, claudecode.ShutdownRequestMessage(id, "the team is going down (teamctl down)", w.clock.Now()))
		cancel()
		if err == nil {
			asked[p.PID] = m.Name
			requests[id] = m.Name
		}
	}
	if len(asked) == 0 {
		return nil
	}
	// The one wait of down a person would otherwise sit through in silence.
	if progress != nil {
		fmt.Fprintf(progress, "asked %d teammate(s) to shut down; waiting up to %s for them to end (--now skips this)…\n", len(asked), wait)
	}
	targets := make([]proc.Target, 0, len(asked))
	for pgid := range asked {
		targets = append(targets, proc.Group(pgid))
	}
	gone := w.procs.Wait(ctx, targets, wait)
	approved := shutdownApprovals(st, requests)
	// In the order of their names, so that what down says is the same each time.
	pgids := slices.SortedFunc(maps.Keys(asked), func(a, b int) int { return strings.Compare(asked[a], asked[b]) })
	var out []string
	for _, pgid := range pgids {
		name := asked[pgid]
		switch {
		case gone[proc.Group(pgid)] && approved[name]:
			out = append(out, name)
		case !gone[proc.Group(pgid)] && progress != nil:
			fmt.Fprintf(progress, "%s did not end within %s of the shutdown request: SIGTERM\n", name, wait)
		}
	}
	return out
}

// shutdownApprovals says which teammates answered the shutdown request down
// sent them (requests: id → teammate) with shutdown_approved in the lead's
// inbox, where Claude Code writes it before it ends a teammate.
func shutdownApprovals(st *state.Team, requests map[string]string) map[string]bool {
	approved := map[string]bool{}
	inbox, err := claudecode.InboxPath(relaunch.ClaudeConfigDir(st), st.ClaudeTeam, claudecode.LeadMailboxName)
	if err != nil {
		return approved
	}
	msgs, err := claudecode.ReadMailbox(inbox)
	if err != nil {
		return approved
	}
	for _, m := range msgs {
		v, _ := claudecode.ParseProtocol(m.Text)
		if ok, isApproval := v.(claudecode.ShutdownApproved); isApproval && ok.From != "" && requests[ok.RequestID] == ok.From {
			approved[ok.From] = true
		}
	}
	return approved
}

// Package relaunch holds the steps of relaunching a member in place — in a
// new pane that takes its old pane's place (tmux.ReplacePane: respawn-pane
// can crash tmux) — that a person's `teamctl restart` and `up` (package team)
// and the supervisor's restart after an exit (package supervisor) share: the
// launch as the team's layout plans it, never as state.json records it, and
// Claude Code's folder of the team likewise (launch.TeamClaudeConfigDir);
// the old pane's last words; the prompt a teammate that starts
// afresh needs; the new pane, named for its member in the batch that makes
// it, then titled and coloured; the new run as state records it. Each caller
// keeps its own policy: when to relaunch, whether to end the old run first or
// to wait, and what to say. It runs tmux only through the Server it is given.
package relaunch

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/teamctl/teamctl/agentstart"
	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Server is what a relaunch asks of the team's tmux server (*tmux.Server
// has these).
type Server interface {
	Run(ctx context.Context, args ...string) (string, error)
	RunBatch(ctx context.Context, b *tmux.Batch) ([]string, error)
	ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error)
}

// Plan is member name's launch for a relaunch, and the layout it comes from:
// launch.Relaunch of team st's layout, read again (up may have recorded a new
// launch since; a FIFO at its path must not block), with the programs found
// as up finds them: claudeOverride (TEAMCTL_CLAUDE) for claude.command, and
// teamctl, which Claude Code's hooks call. Never the argv and environment
// state.json records: anyone running as the user can edit that file, and
// what a relaunch runs must not be what it says.
func Plan(st *state.Team, name, claudeOverride, teamctl string) (*layouts.Layout, launch.Launch, error) {
	data, err := state.ReadLayoutFile(st.LayoutPath)
	if err != nil {
		return nil, launch.Launch{}, fmt.Errorf("the team's layout: %w", err)
	}
	l, err := layouts.ParseBytes(st.LayoutPath, data)
	if err != nil {
		return nil, launch.Launch{}, fmt.Errorf("the team's layout: %w", err)
	}
	progs, err := launch.ResolvePrograms(l, claudeOverride)
	if err != nil {
		return nil, launch.Launch{}, err
	}
	progs.Teamctl = teamctl
	x, err := launch.Relaunch(l, progs, st, name)
	if err != nil || x.Member.Host == "" {
		return l, x, err
	}
	// On another host: that host's programs (Claude Code as the layout
	// names it, found there; teamctl's copy there), in its folder there.
	h, ok := st.Host(x.Member.Host)
	if !ok || h.Dir == "" {
		return nil, launch.Launch{}, fmt.Errorf("%s runs on host %s, which the team's state does not know (or was not reached at up)", name, x.Member.Host)
	}
	progs.Claude, progs.Teamctl = l.Claude.Command, h.Teamctl
	if x, err = launch.Relaunch(l, progs, st, name); err != nil {
		return nil, launch.Launch{}, err
	}
	top := h.Dir
	if rw, ok := st.RemoteWorktree(name); ok && rw.Host == h.Name {
		top = rw.Path
	}
	x.Cwd = path.Join(top, x.Member.Cwd)
	return l, x, nil
}

// Ended is the run a relaunch replaces: its pane and process, and how it
// ended when it did (ExitCode nil and Signal 0 when not known, or when it
// still ran).
type Ended struct {
	Pane     string
	PID      int
	ExitCode *int
	Signal   int
}

// Words are run e's last words from the lines captured of its pane
// (tmux.HistoryArgs' output, split into lines), without tmux's own "Pane is
// dead" line under them.
func Words(e Ended, captured []string, now time.Time) state.LastWords {
	return state.LastWords{Pane: e.Pane, PID: e.PID, ExitCode: e.ExitCode, Signal: e.Signal, At: now.UTC(),
		Lines: tmux.WithoutDeadNotice(tmux.TrimCapture(captured))}
}

// KeepWords keeps what run e's pane shows (its last tmux.HistoryLines of
// history and its screen) as member's last words, before a relaunch replaces
// the pane and what it showed goes with it.
func KeepWords(ctx context.Context, srv Server, team, member string, e Ended, now time.Time) error {
	out, err := srv.Run(ctx, tmux.HistoryArgs(e.Pane, tmux.HistoryLines)...)
	if err != nil {
		return err
	}
	return state.WriteLastWords(team, member, Words(e, strings.Split(out, "\n"), now))
}

// Resumes reports whether x, a member of team, resumes a conversation: one
// Claude Code stored under its session (claudeDir is the team's Claude Code
// folder), or, for a Codex or Gemini member, one its CLI stored in its home;
// its argv then says so (launch.Launch.ArgvFor).
func Resumes(claudeDir, team string, x launch.Launch) bool {
	if kind := x.Member.OtherAgent(); kind != "" {
		return agentstart.HasSession(kind, team, x.Member.Name)
	}
	return claudecode.SessionExists(claudeDir, x.SessionID)
}

// GivePrompt leaves a relaunched teammate's prompt in its mailbox when it
// does not resume its conversation (resume): it is a new Claude Code session,
// which has not seen it. The team's config comes first (see
// claudecode.EnsureTeamConfig). Nothing for the lead, a plain process, or a
// member without a prompt.
func GivePrompt(ctx context.Context, claudeDir string, st *state.Team, m *state.Member, x launch.Launch, resume bool, now time.Time) error {
	prompt := x.Member.Prompt
	if m.Role != state.RoleTeammate || resume || prompt == "" {
		return nil
	}
	if _, err := claudecode.EnsureTeamConfig(claudeDir, st.ClaudeTeam, st.ClaudeLeadSession(), m.Cwd, now); err != nil {
		return err
	}
	return claudecode.DeliverPrompt(ctx, claudeDir, st.ClaudeTeam, m.Name, prompt)
}

// InPlace starts x in a new pane that takes member m's pane's place, named
// for m in the same batch (tmux.ReplacePane: through a command file, never a
// tmux command line, since the env may hold secrets), resuming its
// conversation when resume.
func InPlace(ctx context.Context, srv Server, m *state.Member, x launch.Launch, resume bool) (tmux.NewPane, error) {
	return srv.ReplacePane(ctx, m.Pane, x.Cwd, x.Env, x.ArgvFor(resume), m.Name)
}

// Decorate titles member name's new pane and colours its border
// (launch.Decoration), in one tmux invocation. A pane without them still
// works: the callers go on when it fails.
func Decorate(ctx context.Context, srv Server, pane, name, color string) error {
	var b tmux.Batch
	for _, c := range launch.Decoration(pane, name, color) {
		b.Add(c...)
	}
	_, err := srv.RunBatch(ctx, &b)
	return err
}

// Record notes in m its new run: x in pane np since now, counted as a
// restart (by the supervisor or a person alike, so that status and the event
// say how often the member started again), with what it runs as up records a
// launch.
func Record(m *state.Member, x launch.Launch, np tmux.NewPane, now time.Time) {
	m.Restarts++
	m.Pane, m.Window, m.PID, m.StartedAt = np.ID, np.Window, np.PID, now.UTC()
	m.Argv, m.Env, m.Cwd, m.Digest, m.SessionID = x.Argv, x.Env, x.Cwd, x.Digest, x.SessionID
}

package clean

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/worktrees"
)

// What a team left on the other hosts where members ran (docs/hosts.md),
// reached with the user's ssh as up did: the team's tmux server there, the
// worktrees teamctl made there and their branches, and the team's files the
// relay kept there. The same rules as here: a worktree with uncommitted
// work is refused (with Force, its work is fetched here first, into
// refs/teamctl/remote/<host>/work/…: the snapshot that holds it), a branch
// with commits not merged into its base there is kept. A host that is not
// reached keeps everything there, said precisely; the team's state here
// stays with it, so that a later clean finds it again.

// hostTimeout bounds what clean asks of a host while it plans.
const hostTimeout = 30 * time.Second

// hosts plans the team's leftovers on its other hosts; they run once
// before (this machine's panes and server) are done. The returned actions
// are what the team's state folder waits for.
func (p *planner) hosts(ctx context.Context, team string, st *state.Team, before []*Action) []*Action {
	if len(st.Hosts) == 0 {
		return nil
	}
	dir, err := state.SSHDir()
	if err != nil {
		p.note("team %s: %v: its hosts are not reached", team, err)
		return nil
	}
	var out []*Action
	for _, h := range st.Hosts {
		sh := sshconn.New(h.SSH, dir)
		out = append(out, p.host(ctx, team, st, h, sh, before)...)
	}
	return out
}

func (p *planner) host(ctx context.Context, team string, st *state.Team, h state.Host, sh sshconn.Host, before []*Action) []*Action {
	srv := &tmux.Server{Socket: state.SocketName(team), Via: sh, Bin: ""}
	pctx, cancel := context.WithTimeout(ctx, hostTimeout)
	_, err := srv.ListPanes(pctx)
	cancel()
	var out []*Action
	switch {
	case errors.Is(err, tmux.ErrUnreachable) || (err != nil && !errors.Is(err, tmux.ErrNoServer)):
		var left []string
		left = append(left, "its tmux server "+state.SocketName(team)+" (if it runs)")
		for _, rw := range st.RemoteWorktrees {
			if rw.Host == h.Name {
				left = append(left, "worktree "+rw.Path+" (branch "+rw.Branch+")")
			}
		}
		if h.Teamctl != "" {
			left = append(left, "the team's relayed files")
		}
		out = append(out, p.add(&Action{Step: StepServer, Team: team, Target: h.Name + ":" + state.SocketName(team),
			Why: "its team is being cleaned", Result: Kept,
			Detail: fmt.Sprintf("host %s not reached (%v): left there: %s; clean again once it is reached", h.Name, err, strings.Join(left, "; "))}))
		return out
	case err == nil:
		out = append(out, p.add(&Action{Step: StepServer, Team: team, Target: h.Name + ":" + state.SocketName(team),
			Why: "its team is being cleaned", needs: before,
			do: func(ctx context.Context) error { return srv.KillServer(ctx) }}))
	}
	after := append(append([]*Action{}, before...), out...)
	var wts []*Action
	for i := range st.RemoteWorktrees {
		rw := st.RemoteWorktrees[i]
		if rw.Host != h.Name {
			continue
		}
		wts = append(wts, p.remoteWorktree(ctx, team, h, sh, rw, after)...)
	}
	if h.Teamctl != "" && st.ClaudeTeam != "" {
		claudeTeam := st.ClaudeTeam
		out = append(out, p.add(&Action{Step: StepTeamFolder, Team: team, Target: h.Name + ":" + claudeTeam,
			Why: "the team's files the relay kept there", needs: after,
			do: func(ctx context.Context) error {
				_, err := sh.Run(ctx, hostTimeout, nil, h.Teamctl, "relay", "--team", team, "--claude-team", claudeTeam, "--remove")
				return err
			}}))
	}
	return append(out, wts...)
}

// remoteWorktree plans the removal of worktree rw on its host, and of its
// branch when teamctl made it and it is merged there.
func (p *planner) remoteWorktree(ctx context.Context, team string, h state.Host, sh sshconn.Host, rw state.RemoteWorktree, before []*Action) []*Action {
	repo := worktrees.RemoteRepo{Host: sh, Name: h.Name, Dir: rw.Main}
	target := h.Name + ":" + rw.Path
	pctx, cancel := context.WithTimeout(ctx, hostTimeout)
	defer cancel()
	dirty, err := repo.Dirty(pctx, rw.Path)
	switch {
	case errors.Is(err, worktrees.ErrNoWorktree):
		return nil // gone already
	case err != nil:
		return []*Action{p.add(&Action{Step: StepWorktree, Team: team, Target: target, Why: "teamctl made it for " + rw.Member,
			Result: Kept, Detail: fmt.Sprintf("its state could not be read there: %v", err)})}
	}
	a := &Action{Step: StepWorktree, Team: team, Target: target, Why: "teamctl made it for " + rw.Member, needs: before}
	switch {
	case dirty > 0 && !p.o.Force:
		a.Result, a.Detail = Refused, fmt.Sprintf("would lose %d uncommitted file(s) there (--force fetches its work here first, then removes it)", dirty)
	default:
		force := dirty > 0
		a.do = func(ctx context.Context) error {
			if force {
				main, err := localMain(ctx, team)
				if err != nil {
					return fmt.Errorf("its uncommitted work is not kept: %w", err)
				}
				if _, err := repo.SnapshotRef(ctx, rw.Path, team, rw.Member); err != nil {
					return err
				}
				if err := repo.FetchRemote(ctx, main, worktrees.WorkRef(team, rw.Member)); err != nil {
					return err
				}
			}
			return repo.RemoveWorktree(ctx, rw.Path, force)
		}
	}
	out := []*Action{p.add(a)}
	if !rw.CreatedBranch {
		return out
	}
	b := &Action{Step: StepBranch, Team: team, Target: h.Name + ":" + rw.Branch, Why: "teamctl made it for " + rw.Member, needs: []*Action{a}}
	// Merged there, or landed here (teamctl merge).
	merged, err := repo.Merged(pctx, rw.Branch, rw.Base)
	if err == nil && !merged {
		if main, lerr := localMain(pctx, team); lerr == nil {
			merged, err = repo.MergedHere(pctx, main, rw.Branch, rw.Base)
		}
	}
	switch {
	case err != nil:
		b.Result, b.Detail = KeptBranch, fmt.Sprintf("kept: whether it is merged could not be told (%v)", err)
	case !merged:
		b.Result, b.Detail = KeptBranch, fmt.Sprintf("kept: commits merged into %s neither there nor here", rw.Base)
	default:
		b.do = func(ctx context.Context) error { return repo.DeleteBranch(ctx, rw.Branch) }
	}
	return append(out, p.add(b))
}

// localMain is the team's repository here (state.Team.LocalCwd's).
func localMain(ctx context.Context, team string) (string, error) {
	st, err := state.Load(team)
	if err != nil {
		return "", err
	}
	if st.LocalCwd() == "" {
		return "", errors.New("no member here")
	}
	repo, err := worktrees.FindRepo(ctx, st.LocalCwd())
	if err != nil {
		return "", err
	}
	return repo.Main, nil
}

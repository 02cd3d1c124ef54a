package team

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// alpha is the layout most verb tests bring up: the lead, a Claude Code
// teammate with a prompt, and a plain process.
const alpha = `team: alpha
members:
  - name: worker
    prompt: look around
  - name: sh
    command: [/bin/sh, -c, "sleep 1000"]
`

// alphaChanged is alpha with sh's command changed.
var alphaChanged = strings.Replace(alpha, "sleep 1000", "sleep 2000", 1)

// The tmux commands that decorate the panes: every member's pane titled and
// coloured (a new one as the pane just made, in the batch that makes it: the
// active pane of the lead's window "@0", or of the session's current window
// "=alpha:" for a new window), the panes spread (main-vertical), the lead's
// pane selected.
const (
	decorateLead   = "select-pane -t %0 -T lead ; set-option -p -t %0 @teamctl-member lead"
	decorateSpread = "select-layout -t %0 main-vertical ; select-window -t %0 ; select-pane -t %0"
)

func decorateWorker(pane string) string {
	return "select-pane -t " + pane + " -T worker ; set-option -p -t " + pane + " @teamctl-member worker ; set-option -p -t " + pane + " pane-border-style fg=red ; set-option -p -t " + pane + " pane-active-border-style fg=red,bold"
}

func decorateSh(pane string) string {
	return "select-pane -t " + pane + " -T sh ; set-option -p -t " + pane + " @teamctl-member sh ; set-option -p -t " + pane + " pane-border-style fg=blue ; set-option -p -t " + pane + " pane-active-border-style fg=blue,bold"
}

// startAlpha is the batch that starts alpha's server with its lead (run:
// ${run lead} for a new conversation, ${resume lead} to resume it).
func startAlpha(run string) string {
	return "start: " + batch(
		"start-server",
		"set-option -g remain-on-exit on",
		"set-option -g pane-border-status top",
		`set-option -g pane-border-format " #{?@teamctl-member,#{@teamctl-member},#{pane_title}} "`,
		"new-session -d -s alpha -n lead -x 200 -y 50 -c ${cwd} ${env lead} -P -F ${idf} "+run,
		// The session keeps only the team's env, for the teammates the lead spawns.
		"set-environment -t =alpha TEAMCTL_TEAM alpha",
		"set-environment -u -t =alpha CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS",
		"set-environment -u -t =alpha TEAMCTL_MEMBER",
		"set-option -w -t =alpha: main-pane-width 30%")
}

// TestUp: what up asks of tmux and of the members' processes, exactly and in
// order, for a given state and layout, and what it says it did: a team
// created, completed, relaunched where it exited or (with --recreate)
// changed, reused as it runs, resumed when its server was lost, and refused
// where reconciling would be wrong.
func TestUp(t *testing.T) {
	for _, c := range []struct {
		name   string
		layout string // alpha when ""
		file   string // the layout's file: team.yaml when ""
		setup  func(f *fakeWorld)
		o      UpOptions
		want   []string // the log
		// What up says it did.
		started, respawned, kept, resumed, afresh []string
		note, err                                 string
		check                                     func(t *testing.T, f *fakeWorld, st *state.Team)
	}{{
		name: "a new team: the lead first, then the teammates split beside it, then every pane named",
		want: []string{
			"list-panes",
			startAlpha("${run lead}"),
			batch(decorateLead,
				"split-window -h -f -t %0 -c ${cwd} ${env worker} -P -F ${idf} ${run worker}", decorateWorker("@0"),
				"select-layout -t %0 main-vertical",
				"split-window -h -f -t %0 -c ${cwd} ${env sh} -P -F ${idf} ${run sh}", decorateSh("@0"),
				decorateSpread),
		},
		started: []string{"lead", "worker", "sh"},
		note:    "Claude Code does not trust ${cwd} yet: lead, worker will stop at its trust dialog",
		check: func(t *testing.T, f *fakeWorld, st *state.Team) {
			wantMembers(t, st, "lead %0 5000001", "worker %1 5000002", "sh %2 5000003")
			for _, m := range st.Members {
				if !m.StartedAt.Equal(f.clock.now) || m.Restarts != 0 || m.Origin != state.OriginLayout {
					t.Errorf("%s recorded as started %s (restarts %d, origin %s), want %s, 0, layout", m.Name, m.StartedAt, m.Restarts, m.Origin, f.clock.now)
				}
			}
			if got := inboxTexts(t, st, "worker"); !slices.Equal(got, []string{"look around"}) {
				t.Errorf("worker's inbox %q, want its prompt", got)
			}
		},
	}, {
		name:   "windows: a window each, no layout to spread",
		layout: "layout: windows\n" + alpha,
		want: []string{
			"list-panes",
			"start: " + batch("start-server", "set-option -g remain-on-exit on", "set-option -g pane-border-status top",
				`set-option -g pane-border-format " #{?@teamctl-member,#{@teamctl-member},#{pane_title}} "`,
				"new-session -d -s alpha -n lead -x 200 -y 50 -c ${cwd} ${env lead} -P -F ${idf} ${run lead}",
				"set-environment -t =alpha TEAMCTL_TEAM alpha",
				"set-environment -u -t =alpha CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS",
				"set-environment -u -t =alpha TEAMCTL_MEMBER"),
			batch(decorateLead,
				"new-window -t =alpha: -n worker -c ${cwd} ${env worker} -P -F ${idf} ${run worker}", decorateWorker("=alpha:"),
				"new-window -t =alpha: -n sh -c ${cwd} ${env sh} -P -F ${idf} ${run sh}", decorateSh("=alpha:"),
				"select-window -t %0 ; select-pane -t %0"),
		},
		started: []string{"lead", "worker", "sh"},
	}, {
		name:  "up again: every member runs, nothing is started",
		setup: func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		want: []string{
			"list-panes", "list-panes",
			batch(decorateLead, decorateWorker("%1"), decorateSh("%2"), decorateSpread),
		},
		kept: []string{"lead", "worker", "sh"},
	}, {
		name: "a member whose pane is gone gets a new one beside the lead",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").close("sh")
		},
		want: []string{
			"list-panes", "list-panes",
			batch(decorateLead, decorateWorker("%1"),
				"split-window -h -f -t %0 -c ${cwd} ${env sh} -P -F ${idf} ${run sh}", decorateSh("@0"),
				decorateSpread),
		},
		started: []string{"sh"},
		kept:    []string{"lead", "worker"},
		check: func(t *testing.T, f *fakeWorld, st *state.Team) {
			wantMembers(t, st, "lead %0 5000001", "worker %1 5000002", "sh %3 5000004")
		},
	}, {
		name: "a member that exited is relaunched in its pane, its last words kept first",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			srv := f.server("alpha")
			srv.exit("worker", 3)
			srv.history["%1"] = []string{"panic: no more tokens"}
		},
		want: []string{
			"list-panes", "list-panes",
			"capture-pane -p -J -S -200 -t %1",
			"replace-pane -t %1 -c ${cwd} -n worker ${env worker} -- ${run worker}",
			batch(decorateLead, decorateWorker("%3"), decorateSh("%2"), decorateSpread),
		},
		respawned: []string{"worker"},
		kept:      []string{"lead", "sh"},
		check: func(t *testing.T, f *fakeWorld, st *state.Team) {
			wantMembers(t, st, "lead %0 5000001", "worker %3 5000004", "sh %2 5000003")
			lw, err := state.ReadLastWords("alpha", "worker")
			if err != nil || lw == nil || lw.Pane != "%1" || lw.ExitCode == nil || *lw.ExitCode != 3 || !slices.Equal(lw.Lines, []string{"panic: no more tokens"}) {
				t.Errorf("worker's last words %+v (%v), want its pane %%1's line and exit 3", lw, err)
			}
			if m, _ := st.Member("worker"); m.Restarts != 0 {
				t.Errorf("up's relaunch counted as restart %d", m.Restarts)
			}
		},
	}, {
		name:   "a member whose launch changed keeps running without --recreate",
		setup:  func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		layout: alphaChanged,
		want: []string{
			"list-panes", "list-panes",
			batch(decorateLead, decorateWorker("%1"), decorateSh("%2"), decorateSpread),
		},
		kept: []string{"lead", "worker", "sh"},
		note: "sh changed in the layout and keeps running as it was; `teamctl up --recreate` restarts it",
	}, {
		name: "--recreate ends the changed member's run, then relaunches it in its pane",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").history["%2"] = []string{"tick"}
		},
		layout: alphaChanged,
		o:      UpOptions{Recreate: true},
		want: []string{
			"list-panes", "list-panes",
			"end group sh (grace 5s)",
			"capture-pane -p -J -S -200 -t %2",
			"replace-pane -t %2 -c ${cwd} -n sh ${env sh} -- ${run sh}",
			batch(decorateLead, decorateWorker("%1"), decorateSh("%3"), decorateSpread),
		},
		respawned: []string{"sh"},
		kept:      []string{"lead", "worker"},
		check: func(t *testing.T, f *fakeWorld, st *state.Team) {
			if m, _ := st.Member("sh"); !slices.Equal(m.Argv, []string{"/bin/sh", "-c", "sleep 2000"}) {
				t.Errorf("sh recorded as running %q", m.Argv)
			}
		},
	}, {
		name: "a copy of a member that its relaunch did not record is ended",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			srv := f.server("alpha")
			srv.add("$0", "alpha", "@0", "worker") // %3
		},
		want: []string{
			"list-panes", "list-panes",
			"end group worker (grace 5s)",
			"kill-pane -t %3",
			batch(decorateLead, decorateWorker("%1"), decorateSh("%2"), decorateSpread),
		},
		kept: []string{"lead", "worker", "sh"},
		note: "worker ran a second time, in pane %3, which teamctl did not record: ended",
	}, {
		name: "the copy of a member whose recorded pane is gone is taken as its pane",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			srv := f.server("alpha")
			srv.close("worker")
			srv.add("$0", "alpha", "@0", "worker") // %3
		},
		want: []string{
			"list-panes", "list-panes",
			batch(decorateLead, decorateWorker("%3"), decorateSh("%2"), decorateSpread),
		},
		kept: []string{"lead", "worker", "sh"},
		note: "worker runs in pane %3, which its relaunch did not record (%1 is gone): taken as its pane",
	}, {
		name: "a lost team comes back: the lead resumes its stored conversation, the teammate without one starts afresh",
		setup: func(f *fakeWorld) {
			st := f.up(f.layout("team.yaml", alpha))
			storeConversation(f.t, st.LeadSessionID)
			f.server("alpha").lose() // a reboot
		},
		want: []string{
			"list-panes",
			startAlpha("${resume lead}"),
			batch(decorateLead,
				"split-window -h -f -t %0 -c ${cwd} ${env worker} -P -F ${idf} ${run worker}", decorateWorker("@0"),
				"select-layout -t %0 main-vertical",
				"split-window -h -f -t %0 -c ${cwd} ${env sh} -P -F ${idf} ${run sh}", decorateSh("@0"),
				decorateSpread),
		},
		started: []string{"lead", "worker", "sh"},
		resumed: []string{"lead"},
		afresh:  []string{"worker"},
		note:    "worker: no conversation of session",
	}, {
		name: "refused: a server of the team's name that teamctl has no state for",
		setup: func(f *fakeWorld) {
			srv := f.server("alpha")
			srv.running = true
			srv.add("$0", "alpha", "", "")
		},
		want: []string{"list-panes"},
		err:  `team "alpha" has a tmux server (teamctl-alpha) that teamctl has no state for`,
	}, {
		name:  "refused: the team is up from another layout file",
		setup: func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		file:  "other.yaml",
		want:  []string{"list-panes"},
		err:   "team alpha is up from ${cwd}/team.yaml, not from ${cwd}/other.yaml",
	}, {
		name:   "refused, nothing run and no state made: a team with no member here (its supervisor follows it from here)",
		layout: "team: alpha\nhosts:\n  gpu1: {ssh: me@gpu1, root: /src/app}\nmembers:\n  - name: trainer\n    host: gpu1\n    command: [sleep, \"1\"]\n",
		want:   nil,
		err:    "every member is on another host: the team needs one member on this machine",
		check:  nil,
	}, {
		name:   "refused, nothing run and no state made: a Codex member on another host (never here instead)",
		layout: "team: alpha\nhosts:\n  gpu1: {ssh: me@gpu1, root: /src/app}\nlead: {}\nmembers:\n  - name: trainer\n    host: gpu1\n    agent: codex\n",
		want:   nil,
		err:    "trainer (host gpu1) is a codex member: on another host teamctl runs Claude Code and command: members only, yet",
		check:  nil,
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			if c.setup != nil {
				c.setup(f)
			}
			body, file := c.layout, c.file
			if body == "" {
				body = alpha
			}
			if file == "" {
				file = "team.yaml"
			}
			l := f.layout(file, body)
			o := c.o
			o.ClaudeOverride, o.Teamctl = f.claude, fakeTeamctl
			res, err := up(f.ctx, l, o, f.world())
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), f.expand(c.err)) {
					t.Errorf("up: %v, want an error saying %q", err, f.expand(c.err))
				}
			} else if err != nil {
				t.Fatalf("up: %v", err)
			}
			if res != nil && res.Team != nil {
				f.planned(l, res.Team.LeadSessionID)
			}
			f.wantLog(c.want...)
			if err != nil {
				return
			}
			for _, r := range []struct {
				what      string
				got, want []string
			}{{"started", res.Started, c.started}, {"relaunched", res.Respawned, c.respawned}, {"kept", res.Kept, c.kept},
				{"resumed", res.Resumed, c.resumed}, {"started afresh", res.Afresh, c.afresh}} {
				if !slices.Equal(r.got, r.want) {
					t.Errorf("%s %q, want %q", r.what, r.got, r.want)
				}
			}
			if c.note != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, f.expand(c.note)) }) {
				t.Errorf("notes %q, want one saying %q", res.Notes, f.expand(c.note))
			}
			st := f.state("alpha")
			if c.check != nil {
				c.check(t, f, st)
			}
		})
	}
}

// wantMembers checks the members recorded, each as "name pane pid".
func wantMembers(t *testing.T, st *state.Team, want ...string) {
	t.Helper()
	var got []string
	for _, m := range st.Members {
		got = append(got, m.Name+" "+m.Pane+" "+strconv.Itoa(m.PID))
	}
	if !slices.Equal(got, want) {
		t.Errorf("members recorded %q, want %q", got, want)
	}
}

// inboxTexts are the texts in member's mailbox.
func inboxTexts(t *testing.T, st *state.Team, member string) []string {
	t.Helper()
	p, err := claudecode.InboxPath(relaunch.ClaudeConfigDir(st), st.ClaudeTeam, member)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := claudecode.ReadMailbox(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

// storeConversation makes Claude Code have a stored conversation of
// session, which a launch then resumes.
func storeConversation(t *testing.T, session string) {
	t.Helper()
	dir, err := claudecode.ConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "projects", "-work", session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

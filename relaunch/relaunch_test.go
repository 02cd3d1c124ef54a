package relaunch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// fakeServer records what a relaunch asks of tmux.
type fakeServer struct {
	asked   []string
	capture string // what capture-pane prints
}

func (s *fakeServer) Run(_ context.Context, args ...string) (string, error) {
	s.asked = append(s.asked, strings.Join(args, " "))
	return s.capture, nil
}

func (s *fakeServer) RunBatch(_ context.Context, b *tmux.Batch) ([]string, error) {
	var cmds []string
	for _, c := range b.Commands() {
		cmds = append(cmds, strings.Join(c, " "))
	}
	s.asked = append(s.asked, strings.Join(cmds, " ; "))
	return nil, nil
}

func (s *fakeServer) ReplacePane(_ context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error) {
	s.asked = append(s.asked, "replace "+old+" in "+dir+" as "+member+": "+strings.Join(env, " ")+" -- "+strings.Join(argv, " "))
	return tmux.NewPane{ID: "%7", PID: 4242, Window: "@3"}, nil
}

// world is a team folder and a Claude Code folder in a temp folder, and a
// layout of a lead and a teammate with a prompt.
func world(t *testing.T) (*layouts.Layout, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("HOME", dir)
	claudeDir := filepath.Join(dir, ".claude")
	t.Setenv("CLAUDE_CONFIG_DIR", claudeDir)
	p := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(p, []byte("team: re\nmembers:\n  - name: worker\n    prompt: start here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := layouts.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	return l, claudeDir
}

// TestInPlaceThenDecorate: the new pane runs the launch (resuming when told)
// in the old one's place under the member's name, then is titled and
// coloured.
func TestInPlaceThenDecorate(t *testing.T) {
	srv := &fakeServer{}
	m := &state.Member{Name: "worker", Pane: "%2"}
	x := launch.Launch{Role: state.RoleTeammate, Cwd: "/w", Env: []string{"A=1"}, Argv: []string{"claude", "--session-id=abc", "--", "go"}}
	np, err := InPlace(context.Background(), srv, m, x, true)
	if err != nil || np.ID != "%7" {
		t.Fatal(np, err)
	}
	if err := Decorate(context.Background(), srv, np.ID, m.Name, "green"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"replace %2 in /w as worker: A=1 -- claude --resume=abc -- go",
		"select-pane -t %7 -T worker ; set-option -p -t %7 @teamctl-member worker ; set-option -p -t %7 pane-border-style fg=green ; set-option -p -t %7 pane-active-border-style fg=green,bold",
	}
	if !slices.Equal(srv.asked, want) {
		t.Errorf("asked %q, want %q", srv.asked, want)
	}
}

// TestRecord: the new run replaces the old in the member's record, counted
// as a restart.
func TestRecord(t *testing.T) {
	m := &state.Member{Name: "w", Pane: "%1", PID: 10, Restarts: 2, Argv: []string{"old"}, Role: state.RoleTeammate}
	x := launch.Launch{Cwd: "/w", Env: []string{"A=1"}, Argv: []string{"new"}, Digest: "d", SessionID: "s"}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	Record(m, x, tmux.NewPane{ID: "%4", PID: 11, Window: "@2"}, at)
	if m.Restarts != 3 || m.Pane != "%4" || m.PID != 11 || m.Window != "@2" || !m.StartedAt.Equal(at) || m.StartedAt.Location() != time.UTC ||
		!slices.Equal(m.Argv, x.Argv) || !slices.Equal(m.Env, x.Env) || m.Cwd != "/w" || m.Digest != "d" || m.SessionID != "s" || m.Role != state.RoleTeammate {
		t.Errorf("recorded %+v", m)
	}
}

// TestKeepWords: what the old pane shows is kept as the member's last words,
// without tmux's notice under a dead pane, with how it ended.
func TestKeepWords(t *testing.T) {
	world(t)
	srv := &fakeServer{capture: "compiling\nerror: no space left   \n\nPane is dead (status 2, Tue Dec  1 09:00:00 2026)\n\n"}
	code := 2
	if err := KeepWords(context.Background(), srv, "re", "worker", Ended{Pane: "%1", PID: 9, ExitCode: &code}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"capture-pane -p -J -S -200 -t %1"}; !slices.Equal(srv.asked, want) {
		t.Errorf("asked %q, want %q", srv.asked, want)
	}
	lw, err := state.ReadLastWords("re", "worker")
	if err != nil || lw == nil {
		t.Fatal(lw, err)
	}
	if !slices.Equal(lw.Lines, []string{"compiling", "error: no space left"}) || lw.Pane != "%1" || lw.PID != 9 || lw.ExitCode == nil || *lw.ExitCode != 2 {
		t.Errorf("last words %+v", lw)
	}
}

// TestGivePrompt: only a teammate with a prompt that does not resume its
// conversation is given it again.
func TestGivePrompt(t *testing.T) {
	for _, c := range []struct {
		name   string
		role   state.Role
		resume bool
		prompt string
		given  bool
	}{
		{"a teammate starting afresh", state.RoleTeammate, false, "start here", true},
		{"a teammate resuming", state.RoleTeammate, true, "start here", false},
		{"a teammate without a prompt", state.RoleTeammate, false, "", false},
		{"the lead", state.RoleLead, false, "start here", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, claudeDir := world(t)
			st := &state.Team{Team: "re", ClaudeTeam: "session-0123abcd", LeadSessionID: "0123abcd-0000-4000-8000-000000000000"}
			m := &state.Member{Name: "worker", Role: c.role, Cwd: "/w"}
			x := launch.Launch{Member: layouts.Member{Name: "worker", Prompt: c.prompt}}
			if err := GivePrompt(context.Background(), claudeDir, st, m, x, c.resume, time.Now()); err != nil {
				t.Fatal(err)
			}
			inbox, err := claudecode.InboxPath(claudeDir, st.ClaudeTeam, "worker")
			if err != nil {
				t.Fatal(err)
			}
			msgs, _ := claudecode.ReadMailbox(inbox)
			if given := len(msgs) == 1 && msgs[0].Text == "start here"; given != c.given || len(msgs) > 1 {
				t.Errorf("mailbox %+v, want the prompt given: %v", msgs, c.given)
			}
		})
	}
}

// TestPlan: the launch comes from the team's layout file, read again, with
// the programs given; a layout that cannot be read says so.
func TestPlan(t *testing.T) {
	l, _ := world(t)
	claude := filepath.Join(filepath.Dir(l.Path), "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	progs, err := launch.ResolvePrograms(l, claude)
	if err != nil {
		t.Fatal(err)
	}
	progs.Teamctl = "/bin/teamctl"
	const lead = "0123abcd-0000-4000-8000-000000000000"
	plan, err := launch.Plan(l, progs, lead)
	if err != nil {
		t.Fatal(err)
	}
	x := plan[1]
	st := &state.Team{Team: "re", LayoutPath: l.Path, LeadSessionID: lead,
		Members: []state.Member{{Name: "worker", Role: x.Role, Origin: state.OriginLayout, Digest: x.Digest, SessionID: x.SessionID, Cwd: x.Cwd}}}
	gotL, got, err := Plan(st, "worker", claude, "/bin/teamctl")
	if err != nil {
		t.Fatal(err)
	}
	if gotL.Team != "re" || !slices.Equal(got.Argv, x.Argv) || !slices.Equal(got.Env, x.Env) {
		t.Errorf("planned %q %q, want %q %q", got.Argv, got.Env, x.Argv, x.Env)
	}
	st.LayoutPath = filepath.Join(filepath.Dir(l.Path), "gone.yaml")
	if _, _, err := Plan(st, "worker", claude, "/bin/teamctl"); err == nil || !strings.HasPrefix(err.Error(), "the team's layout: ") {
		t.Errorf("a layout gone: %v", err)
	}
}

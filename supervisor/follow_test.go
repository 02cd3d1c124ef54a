package supervisor

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
	"github.com/teamctl/teamctl/state"
)

// TestLeadIsFollowedOnlyIntoATeamItClaimed: an agent of the team rewrites
// the team's own config.json (another leadSessionId, the placeholder's pid,
// so the lead seems to hold no team) and writes another team's config naming
// a process as its leadProcess. The daemon follows the lead there (team-moved,
// recorded in state, and so removed by clean later) only when the lead's own
// process claimed it: not for a config without the lead's start time, nor
// one naming a Claude Code the lead's tools started (a process under the
// lead), nor a folder another teamctl team records (now or in an earlier
// life), nor a name or session id of a shape Claude Code never gives.
func TestLeadIsFollowedOnlyIntoATeamItClaimed(t *testing.T) {
	const other = "session-77777777"
	for _, c := range []struct {
		name   string
		follow bool
		setup  func(t *testing.T, cfg *claudecode.TeamConfig, lead, child int)
	}{
		{"claimed by the lead", true, func(*testing.T, *claudecode.TeamConfig, int, int) {}},
		{"no start time", false, func(_ *testing.T, cfg *claudecode.TeamConfig, _, _ int) {
			cfg.LeadProcess.ProcStart = ""
		}},
		{"another start time", false, func(_ *testing.T, cfg *claudecode.TeamConfig, _, _ int) {
			cfg.LeadProcess.ProcStart = "1"
		}},
		{"a process under the lead", false, func(_ *testing.T, cfg *claudecode.TeamConfig, _, child int) {
			*cfg = claudecode.MinimalTeamConfig(other, cfg.LeadSessionID, "/", child, time.Now())
		}},
		{"another team's", false, func(t *testing.T, _ *claudecode.TeamConfig, _, _ int) {
			saveTeam(t, &state.Team{Team: "other", ClaudeTeam: other, LeadSessionID: "77777777-0000-4000-8000-000000000000"})
		}},
		{"another team's earlier life", false, func(t *testing.T, _ *claudecode.TeamConfig, _, _ int) {
			saveTeam(t, &state.Team{Team: "other", ClaudeTeam: "session-66666666", LeadSessionID: "66666666-0000-4000-8000-000000000000",
				Earlier: []state.Earlier{{ClaudeTeam: other, LeadSessionID: "77777777-0000-4000-8000-000000000000"}}})
		}},
		{"not a session id", false, func(_ *testing.T, cfg *claudecode.TeamConfig, _, _ int) {
			cfg.LeadSessionID = "--dangerously-skip-permissions"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The lead: a real process with one of its own under it, as a
			// Claude Code started by the lead's Bash tool would be.
			lead := exec.Command("sh", "-c", "sleep 1000 & wait")
			lead.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := lead.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-lead.Process.Pid, syscall.SIGKILL); lead.Wait() })
			var child int
			testenv.Eventually(t, 10*time.Second, "the lead's child", func() (bool, string) {
				tree := proc.Tree(lead.Process.Pid)
				if len(tree) > 1 {
					child = tree[1]
				}
				return child != 0, ""
			})

			w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
			m, _ := w.s.st.Member("lead")
			m.SessionID = w.s.st.LeadSessionID
			w.s.panes[w.paneOf("lead")].pid = lead.Process.Pid
			dir := os.Getenv("CLAUDE_CONFIG_DIR")
			write := func(team string, cfg claudecode.TeamConfig) {
				path, _ := claudecode.TeamConfigPath(dir, team)
				os.MkdirAll(filepath.Dir(path), 0o700)
				b, _ := json.Marshal(cfg)
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The team's own config, rewritten: the lead holds no team.
			write(w.s.st.ClaudeTeam, claudecode.PlaceholderTeamConfig(w.s.st.ClaudeTeam, "55555555-0000-4000-8000-000000000000", "/", w.clock.Now()))
			cfg := claudecode.MinimalTeamConfig(other, "77777777-0000-4000-8000-000000000000", "/", lead.Process.Pid, time.Now())
			c.setup(t, &cfg, lead.Process.Pid, child)
			write(other, cfg)

			w.changed("teams")
			for i := 0; i < 3; i++ {
				w.advance(teamSettle) // the lead holds that team this long
				w.changed("teams")
			}
			moved := len(w.events(state.EventTeamMoved, "lead"))
			st, err := state.Load("decide")
			if err != nil {
				t.Fatal(err)
			}
			if c.follow {
				if moved != 1 || st.ClaudeTeam != other || st.ClaudeTeamSession != cfg.LeadSessionID {
					t.Errorf("%d team-moved events, state's claude_team %q (%q): want the lead followed to %s", moved, st.ClaudeTeam, st.ClaudeTeamSession, other)
				}
				return
			}
			if moved != 0 || st.ClaudeTeam == other {
				t.Errorf("%d team-moved events, state's claude_team %q: followed into a team the lead did not claim", moved, st.ClaudeTeam)
			}
		})
	}
}

func saveTeam(t *testing.T, st *state.Team) {
	t.Helper()
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
}

// TestDaemonWritesOnlyInClaudeCodesFolder: with state.json's claude_config
// rewritten to another folder, the daemon still writes what it writes — the
// placeholder config a teammate needs once the lead's is gone — in Claude
// Code's folder of its environment, and nothing in the other folder.
func TestDaemonWritesOnlyInClaudeCodesFolder(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
	victim := filepath.Join(t.TempDir(), "victim")
	if err := w.s.updateTeam(w.ctx, func(st *state.Team) { st.ClaudeConfig = victim }); err != nil {
		t.Fatal(err)
	}
	own, _ := claudecode.TeamConfigPath(os.Getenv("CLAUDE_CONFIG_DIR"), w.s.st.ClaudeTeam)
	os.Remove(own) // the lead ended
	w.changed("config")
	if _, err := os.Stat(own); err != nil {
		t.Errorf("no placeholder config in Claude Code's folder: %v", err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the daemon wrote in the folder state.json names (%s): %v", victim, err)
	}
}

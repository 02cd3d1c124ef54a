package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpFromAnotherLayoutFile: a team up from one layout file is not taken
// over by another file naming the same team — refused, naming both files
// and --layout-change, the team as it was — while the same file by another
// path (a symlink) is the same team, and --layout-change makes the team
// follow the other file. (Moved here from cmd/teamctl's
// TestUpFromAnotherLayoutFileRefuses, which ran these ups through the built
// binary and tmux.)
func TestUpFromAnotherLayoutFile(t *testing.T) {
	f := newFakeWorld(t)
	first := f.layout("team.yaml", alpha)
	f.up(first)
	if err := os.Mkdir(filepath.Join(f.dir, "other"), 0o700); err != nil {
		t.Fatal(err)
	}
	other := f.layout("other/team.yaml", alpha+"  - name: extra\n    command: [sleep, \"601\"]\n")
	_, err := up(f.ctx, other, UpOptions{ClaudeOverride: f.claude, Teamctl: fakeTeamctl}, f.world())
	if err == nil || !strings.Contains(err.Error(), first.Path) || !strings.Contains(err.Error(), other.Path) || !strings.Contains(err.Error(), "--layout-change") {
		t.Errorf("up from another file: %v, want a refusal naming %s, %s and --layout-change", err, first.Path, other.Path)
	}
	if st := f.state("alpha"); st.LayoutPath != first.Path || len(st.Members) != 3 {
		t.Errorf("a refused up changed the team: layout %s, %d members", st.LayoutPath, len(st.Members))
	}
	f.wantLog("list-panes") // nothing started

	link := filepath.Join(f.dir, "link.yaml")
	if err := os.Symlink(first.Path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := up(f.ctx, f.parse("link.yaml"), UpOptions{ClaudeOverride: f.claude, Teamctl: fakeTeamctl}, f.world()); err != nil {
		t.Errorf("up through a link to the team's own file: %v", err)
	}
	if _, err := up(f.ctx, other, UpOptions{ClaudeOverride: f.claude, Teamctl: fakeTeamctl, LayoutChange: true}, f.world()); err != nil {
		t.Fatalf("up --layout-change: %v", err)
	}
	if st := f.state("alpha"); st.LayoutPath != other.Path || len(st.Members) != 4 {
		t.Errorf("up --layout-change: layout %s, %d members; want %s, 4", st.LayoutPath, len(st.Members), other.Path)
	}
}

// TestRestartOfAChangedLaunch: a member whose launch the layout changed
// since up is not restarted — nothing ended, nothing run, as TestRestart
// checks — and the refusal says how to relaunch it as the layout says now.
// (With TestRestart's case, what cmd/teamctl's
// TestRestartRefusesALaunchTheLayoutChanged checked through tmux.)
func TestRestartOfAChangedLaunch(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	f.layout("team.yaml", alphaChanged)
	before, _ := f.state("alpha").Member("sh")
	_, err := f.open("alpha").Restart(f.ctx, "sh")
	if err == nil || !strings.Contains(err.Error(), "not the one it was started with") || !strings.Contains(err.Error(), "--recreate") {
		t.Errorf("restart: %v, want a refusal pointing at up --recreate", err)
	}
	f.wantLog()
	if after, _ := f.state("alpha").Member("sh"); after.PID != before.PID || after.Pane != before.Pane {
		t.Errorf("sh after the refused restart: pid %d in %s, was %d in %s", after.PID, after.Pane, before.PID, before.Pane)
	}
}

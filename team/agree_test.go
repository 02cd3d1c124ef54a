package team

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/configs"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// validateCorpus are layouts validate is tested on: TestValidate's, the
// examples in configs/ (added by corpusFiles), and the shapes a team can
// take — a lead alone, Claude Code members with an implied lead, a team of
// plain processes, a lead that is a command.
var validateCorpus = map[string]string{
	"bad.yaml":         "team: wt\nmembers:\n  - name: a\n    worktree: fix/auth\nlayout: spiral\n",
	"wt.yaml":          "team: wt\nmembers:\n  - name: a\n    command: [/bin/sh]\n    worktree: {branch: fix/auth}\n",
	"good.yaml":        "team: fine\nmembers:\n  - name: a\n    command: [/bin/sh]\n",
	"alone.yaml":       "team: alone\n",
	"mixed.yaml":       "team: mixed\nmembers:\n  - name: a\n    prompt: hi\n  - name: web\n    command: [/bin/sh, -c, \"sleep 100\"]\n",
	"procs.yaml":       "team: procs\nmembers:\n  - name: web\n    command: [/bin/sh, -c, \"sleep 100\"]\n    restart: always\n  - name: lead\n    command: [/bin/sleep, \"100\"]\n",
	"procs-wd.yaml":    "team: procswd\nmembers:\n  - name: web\n    command: [/bin/sh]\nwatchdog: {quiet: 1s, notify: {command: [/bin/true]}}\n",
	"leadcmd.yaml":     "team: leadcmd\nlead:\n  command: [/bin/sh]\nmembers:\n  - name: web\n    command: [/bin/sh]\n",
	"nolead.yaml":      "team: nolead\nmembers:\n  - name: web\n    command: [/bin/sh]\nreview: {tellLead: true}\n",
	"noprog.yaml":      "team: noprog\nmembers:\n  - name: web\n    command: [no-such-program-teamctl]\n",
	"explicit.yaml":    "team: explicit\nlead:\n  name: boss\nmembers:\n  - name: web\n    command: [/bin/sh]\n",
	"badsettings.yaml": "team: badset\nlead:\n  args: [--settings, /nonexistent/settings.json]\n",
}

// corpusFiles writes validateCorpus and configs' examples into dir.
func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for name, body := range validateCorpus {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	examples, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("configs' examples: %v %v", examples, err)
	}
	for _, name := range examples {
		b, err := configs.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "configs-"+name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestValidateAndUpAgree runs validate and up over every layout of the
// corpus, with Claude Code installed and without it: a layout validate calls
// valid comes up, and one up refuses validate reports. A team of plain
// processes comes up without Claude Code (it was refused with `Claude Code
// program "claude" not found`, which validate never said).
func TestValidateAndUpAgree(t *testing.T) {
	for _, withClaude := range []bool{true, false} {
		name := "without Claude Code"
		if withClaude {
			name = "with Claude Code"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeWorld(t)
			t.Setenv("PATH", t.TempDir()) // nothing found by name: no claude
			claude := f.claude
			if !withClaude {
				claude = ""
			}
			t.Setenv("TEAMCTL_CLAUDE", claude)
			dir := filepath.Join(f.dir, "layouts")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			ups := 0
			for _, file := range corpusFiles(t, dir) {
				v := Validate(f.ctx, file)
				l, err := layouts.Parse(file)
				if err == nil {
					_, err = up(f.ctx, l, UpOptions{ClaudeOverride: claude, Teamctl: fakeTeamctl}, f.world())
				}
				if v.Valid != (err == nil) {
					t.Errorf("%s: validate says valid=%v %+v; up says %v", filepath.Base(file), v.Valid, v.Problems, err)
				}
				if err == nil {
					ups++
				}
			}
			// The teams of plain processes come up either way; the Claude Code
			// ones only with Claude Code.
			want := 3
			if withClaude {
				want = 8
			}
			if ups != want {
				t.Errorf("%d layouts came up, want %d", ups, want)
			}
		})
	}
}

// TestUpProcessTeam: a team of plain processes comes up without Claude Code
// and without Claude Code's team protocol — no Claude Code team on record,
// nothing written in Claude Code's folder — laid out around its first member.
func TestUpProcessTeam(t *testing.T) {
	f := newFakeWorld(t)
	t.Setenv("TEAMCTL_CLAUDE", "")
	t.Setenv("PATH", t.TempDir())
	l := f.layout("procs.yaml", validateCorpus["procs.yaml"])
	res, err := up(f.ctx, l, UpOptions{Teamctl: fakeTeamctl}, f.world())
	if err != nil {
		t.Fatal(err)
	}
	st := f.state("procs")
	if st.ClaudeTeam != "" {
		t.Errorf("a team of processes has Claude Code team %q on record", st.ClaudeTeam)
	}
	wantMembers(t, st, "web %0 5000001", "lead %1 5000002")
	for _, m := range st.Members {
		if m.Role != state.RoleProcess {
			t.Errorf("%s is a %s, want a process", m.Name, m.Role)
		}
	}
	if got := strings.Join(res.Started, " "); got != "web lead" {
		t.Errorf("started %q", got)
	}
	if !strings.Contains(strings.Join(f.log, "\n"), "split-window -h -f -t %0") {
		t.Errorf("the second process is not split beside the first:\n%s", showLog(f.log))
	}
	var written []string
	filepath.WalkDir(os.Getenv("CLAUDE_CONFIG_DIR"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("up wrote Claude Code files for a team of processes: %v", written)
	}
}

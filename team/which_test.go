package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolve: which team a command without --team means, rule by rule and
// in their order (issue 31), over teams made of real folders and layout
// files in a temp folder; tmux and the teams' state are the fakes here
// (candidates as which would make them of state and tmux).
func TestResolve(t *testing.T) {
	base := t.TempDir()
	dir := func(parts ...string) string {
		p := filepath.Join(append([]string{base}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := func(parts ...string) string {
		p := filepath.Join(dir(parts[:len(parts)-1]...), parts[len(parts)-1])
		if err := os.WriteFile(p, []byte("team: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// proj and proj2: a bare `up` in their folders (./teamctl.yaml); demo: a
	// layout elsewhere; wt: worktrees of the repository repo; wide: a team
	// whose folder is the whole base.
	proj := candidate{name: "proj", layout: file("proj", "teamctl.yaml"), folders: []folder{{dir("proj"), "folder"}}, members: []string{"lead", "alice", "bob"}}
	proj2 := candidate{name: "proj2", layout: file("proj2", "teamctl.yaml"), folders: []folder{{dir("proj2"), "folder"}}, members: []string{"lead", "carol"}}
	demo := candidate{name: "demo", layout: file("demo", "demo.yaml"), folders: []folder{{dir("demo"), "folder"}}, members: []string{"lead", "reader"}}
	wt := candidate{name: "wt", layout: file("layouts", "wt.yaml"), folders: []folder{
		{dir("layouts"), "folder"},
		{dir("repo"), "folder"},
		{dir("repo", ".teamctl", "worktrees", "wt", "alice"), "worktree"},
		{dir("repo"), "repository"},
	}, members: []string{"lead", "alice"}}
	wide := candidate{name: "wide", layout: file("wide.yaml"), folders: []folder{{base, "folder"}}, members: []string{"lead"}}
	wt2 := candidate{name: "wt2", layout: file("layouts", "wt2.yaml"), folders: []folder{{dir("repo"), "repository"}}, members: []string{"lead"}}
	file("proj", "nested", "teamctl.yaml") // a layout file no team was brought up from
	dir("proj", "sub", "deeper")
	dir("elsewhere")
	dir("repo", ".teamctl", "worktrees", "wt", "alice", "src")
	if err := os.Symlink(dir("proj2"), filepath.Join(base, "link2")); err != nil {
		t.Fatal(err)
	}
	up := func(c candidate) candidate { c.up = true; return c }

	for _, c := range []struct {
		name         string
		flag, member string
		env          map[string]string
		cwd          string // under base
		teams        []candidate
		want, note   string // note: what the stderr line says ("": none)
		err          string
	}{
		{name: "--team before all", flag: "demo", cwd: "proj2", teams: []candidate{up(proj), up(proj2), up(demo)}, want: "demo"},
		{name: "TEAMCTL_TEAM before the pane and the folder", env: map[string]string{"TEAMCTL_TEAM": "demo", "TMUX": "/tmp/tmux-1/teamctl-proj,1,0"}, cwd: "proj2", teams: []candidate{up(proj), up(proj2), up(demo)}, want: "demo"},
		{name: "the pane's tmux server before the folder", env: map[string]string{"TMUX": "/tmp/tmux-1/teamctl-demo,42,0", "TMUX_PANE": "%3"}, cwd: "proj2", teams: []candidate{up(proj2), up(demo)}, want: "demo", note: "this pane is on its tmux server"},
		{name: "a pane of another tmux server says nothing", env: map[string]string{"TMUX": "/tmp/tmux-1/default,42,0"}, cwd: "proj2", teams: []candidate{up(proj2), up(demo)}, want: "proj2", note: "its layout file is " + filepath.Join(base, "proj2", "teamctl.yaml")},
		{name: "a pane of a team without state says nothing", env: map[string]string{"TMUX": "/tmp/tmux-1/teamctl-gone,42,0"}, cwd: "proj2", teams: []candidate{up(proj2), up(demo)}, want: "proj2", note: "its layout file"},
		{name: "./teamctl.yaml, with two teams up (issue 31)", cwd: "proj2", teams: []candidate{up(demo), up(proj2)}, want: "proj2", note: "its layout file is"},
		{name: "teamctl.yaml up the folders", cwd: "proj/sub/deeper", teams: []candidate{up(proj), up(proj2)}, want: "proj", note: "its layout file is " + filepath.Join(base, "proj", "teamctl.yaml")},
		{name: "reached through a symlink", cwd: "link2", teams: []candidate{up(proj), up(proj2)}, want: "proj2", note: "its layout file"},
		{name: "a team that is down, in its folder (finish after down)", cwd: "proj", teams: []candidate{demo, proj}, want: "proj", note: "its layout file"},
		{name: "a team that is down, in its folder, another up", cwd: "proj", teams: []candidate{up(demo), proj}, want: "proj", note: "its layout file"},
		{name: "the nearest teamctl.yaml is no team's: the folder decides", cwd: "proj/nested", teams: []candidate{up(proj), up(proj2)}, want: "proj", note: "is in its folder " + filepath.Join(base, "proj")},
		{name: "in a worktree", cwd: "repo/.teamctl/worktrees/wt/alice/src", teams: []candidate{up(demo), wt, up(wide)}, want: "wt", note: "is in its worktree " + filepath.Join(base, "repo", ".teamctl", "worktrees", "wt", "alice")},
		{name: "in the repository", cwd: "repo", teams: []candidate{up(demo), up(wt)}, want: "wt", note: "is in its repository " + filepath.Join(base, "repo")},
		{name: "the deepest folder wins", cwd: "repo", teams: []candidate{up(wide), up(wt)}, want: "wt", note: "repository"},
		{name: "a wide folder is still a team's", cwd: "elsewhere", teams: []candidate{up(wide), up(demo)}, want: "wide", note: "is in its folder " + base},
		{name: "two teams' repository: the one up", cwd: "repo", teams: []candidate{wt, up(wt2), up(demo)}, want: "wt2", note: "repo is in teams wt, wt2; the only one up"},
		{name: "two teams' repository, both down", cwd: "repo", teams: []candidate{wt, wt2, up(demo)}, err: "repo is in teams wt, wt2: no team is up (teams with state: wt, wt2)"},
		{name: "two teams' repository, both up", cwd: "repo", teams: []candidate{up(wt), up(wt2), up(demo)}, err: "repo is in teams wt, wt2: 2 teams are up (wt, wt2)"},
		{name: "two teams' repository, both up, the one with the member", cwd: "repo", member: "alice", teams: []candidate{up(wt), up(wt2), up(demo)}, want: "wt", note: "repo is in teams wt, wt2; the only team up with a member alice"},
		{name: "the only team there is: no note", cwd: "proj2", teams: []candidate{up(proj2)}, want: "proj2"},
		{name: "outside every team: the one team up, no note", cwd: "elsewhere", teams: []candidate{up(proj), proj2}, want: "proj"},
		{name: "outside every team: two up", cwd: "elsewhere", teams: []candidate{up(proj), up(proj2)}, err: "2 teams are up (proj, proj2): name one with --team or TEAMCTL_TEAM, or run this in its folder"},
		{name: "outside every team: two up, the one with the member", cwd: "elsewhere", member: "carol", teams: []candidate{up(proj), up(proj2)}, want: "proj2", note: "the only team up with a member carol"},
		{name: "outside every team: two up, neither with the member", cwd: "elsewhere", member: "nobody", teams: []candidate{up(proj), up(proj2)}, err: "2 teams are up (proj, proj2) and none has a member nobody"},
		{name: "outside every team: none up, the only team with state", cwd: "elsewhere", teams: []candidate{proj}, want: "proj"},
		{name: "outside every team: the one up has no such member, one down has", cwd: "elsewhere", member: "bob", teams: []candidate{up(demo), proj, proj2}, want: "proj", note: "the only team with a member bob; demo, which is up, has none"},
		{name: "outside every team: the one up has the member", cwd: "elsewhere", member: "lead", teams: []candidate{up(demo), proj}, want: "demo"},
		{name: "outside every team: none up, two with state", cwd: "elsewhere", teams: []candidate{proj, proj2}, err: "no team is up (teams with state: proj, proj2)"},
		{name: "outside every team: none up, the one with the member", cwd: "elsewhere", member: "bob", teams: []candidate{proj, proj2}, want: "proj", note: "the only team with state with a member bob"},
		{name: "no team at all", cwd: "elsewhere", err: "no team is up: start one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := here{getenv: func(k string) string { return c.env[k] }, cwd: filepath.Join(base, c.cwd)}
			f, err := resolve(c.flag, c.member, h, c.teams)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("resolve: %+v, %v; want an error saying %q", f, err, c.err)
				}
				return
			}
			if err != nil || f.Name != c.want {
				t.Fatalf("resolve: %+v, %v; want %s", f, err, c.want)
			}
			switch note := f.Note(); {
			case c.note == "" && note != "":
				t.Errorf("note %q; want none", note)
			case c.note != "" && !strings.Contains(note, c.note):
				t.Errorf("note %q; want one saying %q", note, c.note)
			case c.note != "" && (strings.Contains(note, "\n") || !strings.HasPrefix(note, "teamctl: team "+c.want+" (")):
				t.Errorf("note %q: want one line naming team %s", note, c.want)
			}
		})
	}
}

// TestPaneTeam: $TMUX is SOCKET,PID,SESSION; the socket's path may hold
// commas itself.
func TestPaneTeam(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/tmux-1000/teamctl-demo,123,0":     "demo",
		"/tmp/a,b/tmux-1000/teamctl-proj2,1,$3": "proj2",
		"/tmp/tmux-1000/default,123,0":          "",
		"/tmp/tmux-1000/teamctl-,123,0":         "",
		"/tmp/tmux-1000/teamctl-Bad_Name,1,0":   "",
		"":                                      "",
		"teamctl-demo":                          "",
	} {
		if got := paneTeam(in); got != want {
			t.Errorf("paneTeam(%q) = %q; want %q", in, got, want)
		}
	}
}

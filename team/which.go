package team

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// The team a command without --team means, in one place for every command
// (issue 31: the team you are in is the team you mean). In order:
// TEAMCTL_TEAM (which teamctl sets in every member's pane); the team whose
// private tmux server the command runs on ($TMUX names its socket,
// teamctl-<team>); the team whose layout file is the nearest teamctl.yaml
// (or another of layouts.DefaultFiles) found from the current folder
// upwards, as git finds .git; the team whose folder, repository or worktree
// holds the current folder (the deepest such folder wins); and only then
// the one team that is up (with several up, the one with the member the
// command is about). Teams that are down count as much as teams that are up
// for the folder rules, so that `finish` after `down` works where the team
// lives.

// Found is the team a command is about, and how it was found.
type Found struct {
	Name string
	// Why says how it was found when another team could have been meant
	// ("" when it was named, or was the only one there was).
	Why string
}

// Note is the line a command says on stderr about the team it took, ""
// when there is nothing to say.
func (f Found) Note() string {
	if f.Why == "" {
		return ""
	}
	return fmt.Sprintf("teamctl: team %s (%s); --team names another", f.Name, f.Why)
}

// candidate is one team with state, as the resolution sees it.
type candidate struct {
	name    string
	up      bool
	layout  string   // its layout file
	folders []folder // where it works: its folder, repositories, worktrees
	members []string
}

// folder is one folder of a team, and what it is to the team.
type folder struct {
	path, what string // what: "folder", "repository", "worktree"
}

// here is where a command runs: its environment and its folder (absolute).
type here struct {
	getenv func(string) string
	cwd    string
}

// hereNow is the command's own environment and folder.
func hereNow() here {
	cwd, _ := os.Getwd()
	return here{getenv: os.Getenv, cwd: cwd}
}

// candidateOf is what the resolution needs of a team's state.
func candidateOf(st *state.Team, up bool) candidate {
	c := candidate{name: st.Team, up: up, layout: st.LayoutPath}
	if st.LayoutPath != "" {
		c.folders = append(c.folders, folder{filepath.Dir(st.LayoutPath), "folder"})
	}
	for _, m := range st.Members {
		c.members = append(c.members, m.Name)
	}
	for _, w := range st.Worktrees {
		c.folders = append(c.folders, folder{w.Path, "worktree"})
		if w.Main != "" {
			c.folders = append(c.folders, folder{w.Main, "repository"})
		}
		if w.Folder != "" {
			c.folders = append(c.folders, folder{filepath.Join(w.Folder, st.Team), "worktree folder"})
		}
	}
	for _, m := range st.Members {
		if m.Cwd != "" {
			c.folders = append(c.folders, folder{m.Cwd, "folder"})
		}
	}
	return c
}

// resolve decides which of teams a command means (see the top of this
// file); flag is --team, member the member the command is about ("": none).
func resolve(flag, member string, h here, teams []candidate) (Found, error) {
	if flag != "" {
		return Found{Name: flag}, nil
	}
	if env := h.getenv("TEAMCTL_TEAM"); env != "" {
		return Found{Name: env}, nil
	}
	// why is Why when another team has state, else "".
	why := func(name, s string) Found {
		if len(teams) > 1 {
			return Found{Name: name, Why: s}
		}
		return Found{Name: name}
	}
	if name := paneTeam(h.getenv("TMUX")); name != "" {
		for _, c := range teams {
			if c.name == name {
				return why(name, "this pane is on its tmux server"), nil
			}
		}
	}
	for _, rule := range []func(string, []candidate) ([]candidate, string){byLayoutFile, byFolder} {
		hits, what := rule(h.cwd, teams)
		switch len(hits) {
		case 0:
			continue
		case 1:
			return why(hits[0].name, what), nil
		}
		// Several teams there (two brought up from one file, or sharing a
		// repository): the rules after narrow it down among them.
		f, err := byUp(member, hits)
		if err != nil {
			return Found{}, fmt.Errorf("%s: %w", what, err)
		}
		if f.Why == "" {
			f.Why = "the only one up"
		}
		return why(f.Name, what+"; "+f.Why), nil
	}
	return byUp(member, teams)
}

// paneTeam is the team whose private tmux server $TMUX (SOCKET,PID,SESSION)
// names, "" when it names none.
func paneTeam(tmuxEnv string) string {
	i := strings.LastIndexByte(tmuxEnv, ',')
	if i < 0 {
		return ""
	}
	j := strings.LastIndexByte(tmuxEnv[:i], ',')
	if j < 0 {
		return ""
	}
	name, ok := strings.CutPrefix(filepath.Base(tmuxEnv[:j]), state.SocketName(""))
	if !ok || !state.ValidTeamName(name) {
		return ""
	}
	return name
}

// byLayoutFile is the teams whose layout file is the nearest layout file
// from dir upwards (none when that file is no team's, or there is none),
// and what says so.
func byLayoutFile(dir string, teams []candidate) ([]candidate, string) {
	if dir == "" {
		return nil, ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		var files []os.FileInfo
		var paths []string
		for _, name := range layouts.DefaultFiles {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				files, paths = append(files, fi), append(paths, p)
			}
		}
		if len(files) > 0 {
			var hits []candidate
			var which []string
			for _, c := range teams {
				if c.layout == "" {
					continue
				}
				fi, err := os.Stat(c.layout)
				if err != nil {
					continue
				}
				for i, f := range files {
					if os.SameFile(f, fi) {
						hits = append(hits, c)
						which = append(which, paths[i])
						break
					}
				}
			}
			switch len(hits) {
			case 0:
				return nil, ""
			case 1:
				return hits, "its layout file is " + which[0]
			}
			return hits, fmt.Sprintf("teams %s were brought up from %s", names(hits), which[0])
		}
		if up := filepath.Dir(d); up == d {
			return nil, ""
		}
	}
}

// byFolder is the teams with the deepest of their folders holding dir, and
// what says so.
func byFolder(dir string, teams []candidate) ([]candidate, string) {
	if dir == "" {
		return nil, ""
	}
	real := realPath(dir)
	best := -1
	var hits []candidate
	var whats []string
	for _, c := range teams {
		depth, what, kind := -1, "", ""
		for _, f := range c.folders {
			if !filepath.IsAbs(f.path) {
				continue
			}
			p := realPath(f.path)
			if !within(real, p) {
				continue
			}
			// The deepest folder says most; of two the same, a worktree or
			// repository says more than a member's folder.
			if d := len(p); d > depth || (d == depth && kind == "folder") {
				depth, what, kind = d, f.what+" "+f.path, f.what
			}
		}
		switch {
		case depth < 0 || depth < best:
		case depth > best:
			best, hits, whats = depth, []candidate{c}, []string{what}
		default:
			hits, whats = append(hits, c), append(whats, what)
		}
	}
	switch len(hits) {
	case 0:
		return nil, ""
	case 1:
		return hits, dir + " is in its " + whats[0]
	}
	return hits, fmt.Sprintf("%s is in teams %s", dir, names(hits))
}

// names are the teams' names, joined.
func names(teams []candidate) string {
	var out []string
	for _, c := range teams {
		out = append(out, c.name)
	}
	return strings.Join(out, ", ")
}

// byUp is the one team up; with several, the one with member; with none up,
// the one team with state.
func byUp(member string, teams []candidate) (Found, error) {
	var names, live, withMember []string
	liveHas := false
	for _, c := range teams {
		names = append(names, c.name)
		has := member != "" && slices.Contains(c.members, member)
		if has {
			withMember = append(withMember, c.name)
		}
		if c.up {
			live = append(live, c.name)
			liveHas = liveHas || has
		}
	}
	switch {
	case len(live) == 1 && member != "" && !liveHas && len(withMember) == 1:
		// The team up has no such member, and one team that is down has
		// (finish after down, run outside the team's folder).
		return Found{Name: withMember[0], Why: fmt.Sprintf("the only team with a member %s; %s, which is up, has none", member, live[0])}, nil
	case len(live) == 1:
		return Found{Name: live[0]}, nil
	case len(live) == 0 && len(names) == 1:
		// Down, but the only team there is: finish, diff and clean after
		// down mean it.
		return Found{Name: names[0]}, nil
	case len(live) == 0 && len(names) == 0:
		return Found{}, fmt.Errorf("%w: start one with `teamctl up LAYOUT`", ErrNoTeamUp)
	case len(live) == 0 && member == "":
		return Found{}, fmt.Errorf("%w (teams with state: %s); start one with `teamctl up LAYOUT`, run this in a team's folder, or name one with --team", ErrNoTeamUp, strings.Join(names, ", "))
	}
	among, which := live, "up"
	if len(live) == 0 {
		among, which = names, "with state"
	}
	if member == "" {
		return Found{}, fmt.Errorf("%d teams are up (%s): name one with --team or TEAMCTL_TEAM, or run this in its folder", len(live), strings.Join(live, ", "))
	}
	var with []string
	for _, c := range teams {
		if (c.up || len(live) == 0) && slices.Contains(c.members, member) {
			with = append(with, c.name)
		}
	}
	switch len(with) {
	case 1:
		return Found{Name: with[0], Why: fmt.Sprintf("the only team %s with a member %s", which, member)}, nil
	case 0:
		if len(live) == 0 {
			return Found{}, fmt.Errorf("%w (teams with state: %s) and none has a member %s: name the team with --team or TEAMCTL_TEAM", ErrNoTeamUp, strings.Join(names, ", "), member)
		}
		return Found{}, fmt.Errorf("%d teams are up (%s) and none has a member %s: name the team with --team or TEAMCTL_TEAM", len(among), strings.Join(among, ", "), member)
	default:
		return Found{}, fmt.Errorf("%d teams are %s with a member %s (%s): name one with --team or TEAMCTL_TEAM", len(with), which, member, strings.Join(with, ", "))
	}
}

// realPath is p with its symlinks resolved, to compare folders however
// they were reached (p cleaned when it cannot be resolved).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether dir is folder or inside it.
func within(dir, folder string) bool {
	if dir == folder {
		return true
	}
	rel, err := filepath.Rel(folder, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

package supervisor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
	"github.com/teamctl/teamctl/worktrees"
)

// fakeGit is the radar's git in memory: each member's work is the commit
// work says, and merging two commits conflicts in the files conflicts says;
// a member's base is the branch base says, moved on by behind commits.
type fakeGit struct {
	mu        sync.Mutex
	work      map[string]string
	conflicts map[string][]string // pairKey(commit, commit): the files
	base      string              // the commit of every member's base branch, "main"; "" for none
	behind    int
	old       error       // Check's answer
	checks    int         // passes
	reads     []string    // the members whose work was read, in order
	merges    [][2]string // the commits merged, in order
	refFiles  []string    // the members whose branch files were asked for
}

func (g *fakeGit) RefFiles(_ context.Context, wt state.Worktree) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refFiles = append(g.refFiles, wt.Member)
	return []string{"/repo/.git/worktrees/" + wt.Member + "/HEAD", "/repo/.git/refs/heads/" + wt.Branch}, nil
}

func (g *fakeGit) Check(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checks++
	return g.old
}

func (g *fakeGit) ReadWork(_ context.Context, wt state.Worktree) (worktrees.Side, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reads = append(g.reads, wt.Member)
	c, ok := g.work[wt.Member]
	if !ok {
		return worktrees.Side{}, errors.New("no such worktree")
	}
	return worktrees.Side{Name: wt.Member, Main: wt.Main, Head: c}, nil
}

func (g *fakeGit) ReadRemote(_ context.Context, _ string, h state.Host, rw state.RemoteWorktree, _ string) (worktrees.Side, worktrees.Side, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reads = append(g.reads, rw.Member+"@"+h.Name)
	c, ok := g.work[rw.Member]
	if !ok {
		return worktrees.Side{}, worktrees.Side{}, false, errors.New("not reached")
	}
	return worktrees.Side{Name: rw.Member, Main: "/repo", Head: c}, worktrees.Side{Name: "main", Main: "/repo", Head: g.base}, g.base != "", nil
}

func (g *fakeGit) Base(_ context.Context, wt state.Worktree) (worktrees.Side, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return worktrees.Side{Name: "main", Main: wt.Main, Head: g.base}, g.base != "", nil
}

func (g *fakeGit) Compare(_ context.Context, sides []worktrees.Side, pairs [][2]int) ([]worktrees.Compared, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []worktrees.Compared
	for _, p := range pairs {
		a, b := sides[p[0]].Head, sides[p[1]].Head
		g.merges = append(g.merges, [2]string{a, b})
		m := worktrees.Merge{Both: []string{}, Conflicts: []worktrees.Conflict{}}
		for _, f := range g.conflicts[pairKey(a, b)] {
			m.Both = append(m.Both, f)
			m.Conflicts = append(m.Conflicts, worktrees.Conflict{Path: f, Kind: "contents"})
		}
		behind := 0
		if b == g.base {
			behind = g.behind
		}
		out = append(out, worktrees.Compared{Pair: p, Merge: m, Ran: true, Behind: behind})
	}
	return out, nil
}

// radarWorld is a team of a lead and two teammates, alice (%1) and bob
// (%2), each in a worktree of /repo, whose radar asks g.
func radarWorld(t *testing.T, tellLead bool) (*world, *fakeGit) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"alice", state.RoleTeammate, ""}, member{"bob", state.RoleTeammate, ""})
	g := &fakeGit{work: map[string]string{"alice": "a1", "bob": "b1"}, conflicts: map[string][]string{}}
	w.s.radar.git = g
	for _, m := range []string{"alice", "bob"} {
		w.s.st.Worktrees = append(w.s.st.Worktrees, state.Worktree{Member: m, Main: "/repo", Path: "/repo/.teamctl/worktrees/decide/" + m, Branch: "teamctl/decide/" + m})
	}
	w.s.lay.Review.TellLead = tellLead
	return w, g
}

// told are the notifications for the lead about conflicts: waiting, or typed.
func (w *world) told() []string {
	var out []string
	for _, n := range w.s.notifier.toLead {
		out = append(out, n.text)
	}
	out = append(out, w.srv.typed...)
	return slices.DeleteFunc(out, func(s string) bool { return !strings.Contains(s, "<status>conflict") })
}

// TestConflictRadar: the radar's decisions. A turn end (a hook, idle on
// screen) looks after the debounce and not before; turn ends within it
// make one look; a pair whose work did not change is not merged again; a new
// conflict is one conflict event (and, with review.tellLead, one
// notification for the lead), the same conflict again none, its going away
// one conflict-resolved event.
func TestConflictRadar(t *testing.T) {
	conflicting := func(w *world, g *fakeGit) {
		g.conflicts[pairKey("a1", "b1")] = []string{"app.go"}
		w.hook("Stop", "alice", "%1")
		w.advance(radarDebounce)
	}
	for _, c := range []struct {
		name     string
		tellLead bool
		before   func(w *world, g *fakeGit) // the world as the case starts
		do       func(w *world, g *fakeGit)
		checks   int      // passes the case makes
		reads    []string // whose work they read
		merges   int      // pairs they merge
		want     []wantEvent
		told     int // notifications for the lead
	}{
		{name: "no turn ended, no look", do: func(w *world, g *fakeGit) { w.advance(time.Hour) }},
		{name: "a Stop hook looks after the debounce, not before", do: func(w *world, g *fakeGit) {
			w.hook("Stop", "alice", "%1")
			w.advance(radarDebounce - time.Millisecond)
			if g.checks != 0 {
				w.t.Errorf("looked %v after the turn ended, before the debounce", radarDebounce-time.Millisecond)
			}
			w.advance(time.Millisecond)
		}, checks: 1, reads: []string{"alice", "bob"}, merges: 1},
		{name: "idle on screen looks", do: func(w *world, g *fakeGit) {
			w.output("%2", screenFile(w.t, "claude-working.txt"))
			w.advance(quiet)
			w.output("%2", screenFile(w.t, "claude-idle.txt"))
			w.advance(quiet + radarDebounce)
		}, checks: 1, reads: []string{"alice", "bob"}, merges: 1},
		{name: "a branch moving looks at every member's work", before: conflicting, do: func(w *world, g *fakeGit) {
			g.work["bob"] = "b2"
			w.changed(filewatch.Refs)
			w.advance(radarDebounce)
		}, checks: 1, reads: []string{"alice", "bob"}, merges: 1,
			want: []wantEvent{{state.EventConflictResolved, "alice", "no longer conflict"}}},
		{name: "a TeammateIdle hook of a member without a worktree does not look", do: func(w *world, g *fakeGit) {
			w.hook("TeammateIdle", "lead", "%0")
			w.advance(time.Hour)
		}},
		{name: "turn ends within the debounce make one look", do: func(w *world, g *fakeGit) {
			w.hook("Stop", "alice", "%1")
			w.advance(radarDebounce / 2)
			w.hook("Stop", "bob", "%2")
			w.hook("TeammateIdle", "alice", "%1")
			w.advance(radarDebounce)
		}, checks: 1, reads: []string{"alice", "bob"}, merges: 1},
		{name: "work unchanged is not merged again", before: conflicting, do: func(w *world, g *fakeGit) {
			w.hook("Stop", "bob", "%2")
			w.advance(radarDebounce)
		}, checks: 1, reads: []string{"bob"}},
		{name: "a new conflict is one event", do: conflicting, checks: 1, reads: []string{"alice", "bob"}, merges: 1,
			want: []wantEvent{{state.EventConflict, "alice", "alice's and bob's work would conflict if merged, in app.go (contents)"}}},
		{name: "and is told to the lead with review.tellLead", tellLead: true, do: conflicting, checks: 1, reads: []string{"alice", "bob"}, merges: 1,
			want: []wantEvent{{state.EventConflict, "alice", "app.go"}}, told: 1},
		{name: "the same conflict again is none", tellLead: true, before: conflicting, do: func(w *world, g *fakeGit) {
			g.work["alice"] = "a2"
			g.conflicts[pairKey("a2", "b1")] = []string{"app.go"}
			w.hook("Stop", "alice", "%1")
			w.advance(radarDebounce)
		}, checks: 1, reads: []string{"alice"}, merges: 1},
		{name: "a conflict gone is one resolved event", tellLead: true, before: conflicting, do: func(w *world, g *fakeGit) {
			g.work["bob"] = "b2"
			w.hook("Stop", "bob", "%2")
			w.advance(radarDebounce)
		}, checks: 1, reads: []string{"bob"}, merges: 1,
			want: []wantEvent{{state.EventConflictResolved, "alice", "alice's and bob's work no longer conflict (they did in app.go)"}}, told: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, g := radarWorld(t, c.tellLead)
			if c.before != nil {
				c.before(w, g)
			}
			checks, reads, merges, told := g.checks, len(g.reads), len(g.merges), len(w.told())
			got := w.written(func() { c.do(w, g) })
			got = slices.DeleteFunc(got, func(e state.Event) bool {
				return e.Kind != state.EventConflict && e.Kind != state.EventConflictResolved
			})
			checkEvents(t, got, c.want)
			if n := g.checks - checks; n != c.checks {
				t.Errorf("%d looks, want %d", n, c.checks)
			}
			if r := g.reads[reads:]; !slices.Equal(r, c.reads) {
				t.Errorf("read the work of %q, want %q", r, c.reads)
			}
			if n := len(g.merges) - merges; n != c.merges {
				t.Errorf("%d merges, want %d", n, c.merges)
			}
			if n := len(w.told()) - told; n != c.told {
				t.Errorf("%d notifications for the lead, want %d: %q", n, c.told, w.told())
			}
		})
	}
}

// TestConflictRadarRecordsAndTells: a conflict names both members and the
// files in its event and in live.json (status and top read it there), the
// lead's notification is a <task-notification> naming them; gone, live.json
// has none; a supervisor started again over the same conflict reports it
// no more.
func TestConflictRadarRecordsAndTells(t *testing.T) {
	w, g := radarWorld(t, true)
	g.conflicts[pairKey("a1", "b1")] = []string{"app.go", "go.mod"}
	w.hook("Stop", "alice", "%1")
	w.advance(radarDebounce)
	evs := w.events(state.EventConflict, "alice")
	if len(evs) != 1 || evs[0].Other != "bob" || !slices.Equal(evs[0].Files, []string{"app.go", "go.mod"}) {
		t.Fatalf("conflict events: %+v", evs)
	}
	live, err := state.ReadLive("decide")
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Conflicts) != 1 || live.Conflicts[0].Members != [2]string{"alice", "bob"} || !slices.Equal(live.Conflicts[0].Files, []string{"app.go", "go.mod"}) {
		t.Errorf("live.json's conflicts: %+v", live.Conflicts)
	}
	if told := w.told(); len(told) != 1 || !strings.Contains(told[0], "<task-notification><members>alice, bob</members><status>conflict</status>") || !strings.Contains(told[0], "<files>app.go, go.mod</files>") {
		t.Errorf("told the lead: %q", told)
	}

	// A supervisor started again: it looks at every worktree once, and the
	// conflict it finds is the one live.json has.
	w.s.radar = newRadar(g)
	w.s.radarResume(live)
	before := len(g.merges)
	w.advance(radarDebounce)
	if len(g.merges) != before+1 || len(w.events(state.EventConflict, "alice")) != 1 {
		t.Errorf("started again: %d merges, conflict events %+v", len(g.merges)-before, w.events(state.EventConflict, "alice"))
	}

	g.work["alice"] = "a2"
	w.hook("Stop", "alice", "%1")
	w.advance(radarDebounce)
	if live, _ := state.ReadLive("decide"); len(live.Conflicts) != 0 {
		t.Errorf("live.json keeps a conflict gone: %+v", live.Conflicts)
	}
}

// TestConflictRadarFollowsBranches: the first pass finds each member's
// branch files and has the file watch follow them; later passes do not ask
// again.
func TestConflictRadarFollowsBranches(t *testing.T) {
	w, g := radarWorld(t, false)
	for range 3 {
		w.hook("Stop", "alice", "%1")
		w.advance(radarDebounce)
	}
	if !slices.Equal(g.refFiles, []string{"alice", "bob"}) || !w.s.radar.refsOf["alice"] || !w.s.radar.refsOf["bob"] {
		t.Errorf("asked for the branch files of %q; followed %v", g.refFiles, w.s.radar.refsOf)
	}
}

// TestConflictRadarWorktreeGone: a member whose worktree is no longer the
// team's (cleaned) ends its conflicts at the next look.
func TestConflictRadarWorktreeGone(t *testing.T) {
	w, g := radarWorld(t, false)
	g.conflicts[pairKey("a1", "b1")] = []string{"app.go"}
	w.hook("Stop", "alice", "%1")
	w.advance(radarDebounce)
	w.s.st.Worktrees = w.s.st.Worktrees[:1] // bob's is gone
	got := w.written(func() {
		w.hook("Stop", "alice", "%1")
		w.advance(radarDebounce)
	})
	got = slices.DeleteFunc(got, func(e state.Event) bool { return e.Kind != state.EventConflictResolved })
	checkEvents(t, got, []wantEvent{{state.EventConflictResolved, "alice", "compared no more: bob has no worktree now"}})
	if len(w.s.live.Conflicts) != 0 {
		t.Errorf("live keeps %+v", w.s.live.Conflicts)
	}
}

// TestConflictRadarOldGit: a git that cannot tell turns the radar off,
// said once.
func TestConflictRadarOldGit(t *testing.T) {
	w, g := radarWorld(t, false)
	g.old = &worktrees.OldGitError{Version: "2.30.0"}
	for range 3 {
		w.hook("Stop", "alice", "%1")
		w.advance(radarDebounce)
	}
	said := 0
	for _, e := range w.events(state.EventSupervisor, "") {
		if strings.Contains(e.Detail, "no conflict radar: git 2.30.0 is too old") {
			said++
		}
	}
	if said != 1 || g.checks != 1 {
		t.Errorf("said %d times, looked %d times", said, g.checks)
	}
}

// TestRealGitConflicts: the radar's git is worktrees': two worktrees
// editing the same line, uncommitted, conflict in that file.
func TestRealGitConflicts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	main, run, wts := twoMembersOnOneLine(t, "app.go", false)
	r := newRadar(realGit{})
	res := r.pass(ctx, radarJob{worktrees: wts, dirty: map[string]bool{"alice": true, "bob": true}})
	if res.err != nil || len(res.unread) != 0 || len(res.merged) != 3 {
		t.Fatalf("pass: %+v", res)
	}
	if refs := res.refs["bob"]; len(refs) != 3 || refs[1] != filepath.Join(main, ".git", "refs", "heads", "teamctl", "t", "bob") {
		t.Errorf("bob's branch files: %q", refs)
	}
	p := res.merged[0]
	if p.err != nil || p.a != "alice" || p.b != "bob" || len(p.merge.Conflicts) != 1 || p.merge.Conflicts[0].Path != "app.go" {
		t.Errorf("merged: %+v", p)
	}
	for _, b := range res.merged[1:] {
		if !b.base || b.b != "main" || b.moved != 0 || len(b.merge.Conflicts) != 0 {
			t.Errorf("against a base that did not move: %+v", b)
		}
	}

	// A person's commit on main, on the line both changed: each conflicts
	// with its base now.
	for i := range wts {
		wts[i].Base = "main"
	}
	os.WriteFile(filepath.Join(main, "app.go"), []byte("1\n2 on main\n3\n"), 0o644)
	run(main, "commit", "-q", "-am", "main moves on")
	res = r.pass(ctx, radarJob{worktrees: wts, dirty: map[string]bool{"alice": true, "bob": true}})
	for _, b := range res.merged[1:] {
		if !b.base || b.moved != 1 || len(b.merge.Conflicts) != 1 || b.merge.Conflicts[0].Path != "app.go" {
			t.Errorf("against main moved on: %+v", b)
		}
	}
}

// TestConflictRadarAgainstTheBase: each member's work is merged with its
// base branch too. A base that did not move on (in the member's history) is
// no conflict whatever git says; moved on and conflicting, it is a conflict
// event naming the member and the base, in live.json as a base conflict
// (status and top say "its base"); the base moving again to where it no
// longer conflicts is a conflict-resolved event.
func TestConflictRadarAgainstTheBase(t *testing.T) {
	w, g := radarWorld(t, true)
	g.base, g.behind = "m1", 0
	g.conflicts[pairKey("a1", "m1")] = []string{"app.go"}
	w.hook("Stop", "alice", "%1")
	w.advance(radarDebounce)
	if evs := w.events(state.EventConflict, "alice"); len(evs) != 0 {
		t.Fatalf("a base not moved on conflicts: %+v", evs)
	}

	g.base, g.behind = "m1", 2 // the same commit, but (say) the member's branch was rebased off it
	g.conflicts[pairKey("a2", "m1")] = []string{"app.go"}
	g.work["alice"] = "a2"
	w.hook("Stop", "alice", "%1")
	w.advance(radarDebounce)
	evs := w.events(state.EventConflict, "alice")
	if len(evs) != 1 || evs[0].Other != "main" || !slices.Equal(evs[0].Files, []string{"app.go"}) || !strings.Contains(evs[0].Detail, "its base main") {
		t.Fatalf("conflict events: %+v", evs)
	}
	live, err := state.ReadLive("decide")
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Conflicts) != 1 || live.Conflicts[0].Members != [2]string{"alice", "main"} || !live.Conflicts[0].Base {
		t.Errorf("live.json's conflicts: %+v", live.Conflicts)
	}
	if told := w.told(); len(told) != 1 || !strings.Contains(told[0], "<members>alice</members>") || !strings.Contains(told[0], "its base main") {
		t.Errorf("told the lead: %q", told)
	}

	g.base, g.behind = "m2", 3 // a person's commit on main that takes the conflict away
	w.s.branchMoved()
	w.advance(radarDebounce)
	res := w.events(state.EventConflictResolved, "alice")
	if len(res) != 1 || res[0].Other != "main" {
		t.Errorf("resolved events: %+v", res)
	}
	if live, _ := state.ReadLive("decide"); len(live.Conflicts) != 0 {
		t.Errorf("live.json keeps a base conflict gone: %+v", live.Conflicts)
	}
}

// twoMembersOnOneLine makes a repository (main, on branch main, file holding
// three lines) and worktrees of alice and bob on teamctl/t/<member>, each
// with its own second line in file: committed on its branch with commit,
// else left uncommitted. run runs git in a folder, as the test's author.
func twoMembersOnOneLine(t *testing.T, file string, commit bool) (main string, run func(in string, args ...string), wts []state.Worktree) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	main = filepath.Join(dir, "repo")
	run = func(in string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", in}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(main, 0o755)
	run(main, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(main, file), []byte("1\n2\n3\n"), 0o644)
	run(main, "add", file)
	run(main, "commit", "-q", "-m", file)
	for _, m := range []string{"alice", "bob"} {
		path := filepath.Join(dir, m)
		run(main, "worktree", "add", "-q", "-b", "teamctl/t/"+m, path)
		os.WriteFile(filepath.Join(path, file), []byte("1\n2 by "+m+"\n3\n"), 0o644)
		w := state.Worktree{Member: m, Main: main, Path: path, Branch: "teamctl/t/" + m}
		if commit {
			run(path, "commit", "-q", "-am", m+"'s two")
			w.Base = "main"
		}
		wts = append(wts, w)
	}
	return main, run, wts
}

// TestRadarWithAMemberOnAnotherHost: a member's worktree on another host is
// in the radar's pairs (its work fetched, read only when marked), and the
// heartbeat marks it, no file watch following its branch there.
func TestRadarWithAMemberOnAnotherHost(t *testing.T) {
	w, g := radarWorld(t, false)
	g.work["far"] = "f1"
	w.s.st.Hosts = []state.Host{{Name: "gpu1", SSH: "me@gpu1", Dir: "/src/app"}}
	w.s.st.RemoteWorktrees = []state.RemoteWorktree{{Member: "far", Host: "gpu1", Path: "/src/app/.teamctl/worktrees/decide/far", Main: "/src/app", Branch: "teamctl/decide/far", Base: "main"}}
	g.conflicts[pairKey("a1", "f1")] = []string{"model.py"}
	w.s.turnEnded("far")
	w.advance(radarDebounce)
	evs := w.events(state.EventConflict, "")
	if len(evs) != 1 || !slices.Contains([]string{evs[0].Member, evs[0].Other}, "far") || !slices.Contains(evs[0].Files, "model.py") {
		t.Fatalf("conflict events %+v, want alice's and far's in model.py", evs)
	}
	if !slices.Contains(g.reads, "far@gpu1") {
		t.Errorf("far's work was not fetched: reads %v", g.reads)
	}
	// No turn of far's ends: the heartbeat looks at it again.
	n := len(g.reads)
	g.work["far"] = "f2" // resolved there
	w.advance(heartbeatEvery + radarDebounce)
	if !slices.Contains(g.reads[n:], "far@gpu1") {
		t.Fatalf("the heartbeat did not fetch far's work again: reads %v", g.reads[n:])
	}
	if evs := w.events(state.EventConflictResolved, ""); len(evs) != 1 {
		t.Errorf("conflict-resolved events %+v, want one", evs)
	}
}

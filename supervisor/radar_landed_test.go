package supervisor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestRadarLandedMemberIsInNoPair: alice and bob change the same line;
// alice's work is merged into main, their base. The radar then has no
// conflict between alice and bob (alice is out of every pair: top's mark
// on it goes), and one between bob and main: the same conflict, named by
// the pair that meets it when bob lands.
func TestRadarLandedMemberIsInNoPair(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	main := filepath.Join(dir, "repo")
	run := func(in string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", in}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(main, 0o755)
	run(main, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(main, "calc.py"), []byte("1\n2\n3\n"), 0o644)
	run(main, "add", "calc.py")
	run(main, "commit", "-q", "-m", "calc")
	var wts []state.Worktree
	for _, m := range []string{"alice", "bob"} {
		path := filepath.Join(dir, m)
		run(main, "worktree", "add", "-q", "-b", "teamctl/t/"+m, path)
		os.WriteFile(filepath.Join(path, "calc.py"), []byte("1\n2 by "+m+"\n3\n"), 0o644)
		run(path, "commit", "-q", "-am", m+"'s two")
		wts = append(wts, state.Worktree{Member: m, Main: main, Path: path, Branch: "teamctl/t/" + m, Base: "main"})
	}
	r := newRadar(realGit{})
	conflicts := func(res radarResult) map[string]int {
		out := map[string]int{}
		for _, m := range res.merged {
			if m.err != nil {
				t.Fatalf("%s and %s: %v", m.a, m.b, m.err)
			}
			out[m.a+" "+m.b] = len(m.merge.Conflicts)
		}
		return out
	}
	res := r.pass(ctx, radarJob{worktrees: wts, dirty: map[string]bool{"alice": true, "bob": true}})
	if got := conflicts(res); got["alice bob"] != 1 || got["alice main"] != 0 || got["bob main"] != 0 {
		t.Fatalf("before alice lands: %v", got)
	}

	run(main, "merge", "-q", "--no-ff", "-m", "merge alice", "teamctl/t/alice")
	// The radar's seen pairs, as the daemon keeps them: unchanged work is
	// not compared again unless its base moved.
	seen := map[string][2]string{}
	for _, m := range res.merged {
		key := pairKey(m.a, m.b)
		if m.base {
			key = baseKey(m.a)
		}
		seen[key] = m.keys
	}
	res = r.pass(ctx, radarJob{worktrees: wts, works: res.works, seen: seen})
	got := conflicts(res)
	if got["alice bob"] != 0 || got["alice main"] != 0 || got["bob main"] != 1 {
		t.Errorf("after alice landed: %v, want bob and main's conflict alone", got)
	}
	if _, ok := got["alice bob"]; !ok {
		t.Errorf("alice and bob were not compared again once main moved: %v", got)
	}
}

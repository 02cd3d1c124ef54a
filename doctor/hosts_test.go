package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testhost"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/sshconn"
)

// TestHostChecks: doctor reaches each host of a layout with ssh in batch
// mode (a real sshd in a network namespace, its key trusted in a test
// known_hosts) and checks tmux, git and the repository at its root there;
// a root with no repository fails, saying where, and a host ssh cannot
// reach fails once, with how to fix it.
func TestHostChecks(t *testing.T) {
	h := testhost.Start(t) // skipped under -short and without namespaces; required when CI=true
	t.Setenv(sshconn.ConfigEnv, h.ConfigFile)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	// A root under the remote home: ~ is the host's (its user's home in
	// its password database), expanded there, the rest one word however
	// it is spelt. (Nothing is made there: that home is this machine's.)
	src := fmt.Sprintf(`team: t
hosts:
  home: {ssh: %[1]s, root: "~/it's here"}
  a: {ssh: %[1]s, root: %[2]s}
  b: {ssh: %[1]s, root: /nonexistent/repo}
  gone: {ssh: nosuchhost.invalid, root: /x}
members:
  - name: m
    host: a
    command: [sleep, "1"]
`, h.Dest, repo)
	l, err := layouts.ParseBytes("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got := map[string]Check{}
	var names []string
	for _, c := range Hosts(ctx, l) {
		got[c.Name] = c
		names = append(names, c.Name)
		t.Logf("%s ok=%v: %s (fix: %s)", c.Name, c.OK, c.Detail, c.Fix)
	}
	for _, n := range []string{"host a", "host a tmux", "host a git", "host a repository", "host b", "host b tmux", "host b git"} {
		if !got[n].OK {
			t.Errorf("%s: %+v, want ok", n, got[n])
		}
	}
	if c := got["host b repository"]; c.OK || !strings.Contains(c.Detail, "no git repository at /nonexistent/repo on b") {
		t.Errorf("host b repository: %+v", c)
	}
	if c := got["host home repository"]; c.OK || !strings.Contains(c.Detail, "cannot change to '/") || !strings.Contains(c.Detail, "/it's here'") {
		t.Errorf("host home repository (~/it's here, expanded on the host): %+v", c)
	}
	if c := got["host gone"]; c.OK || !strings.Contains(c.Detail, "not reached with ssh") || !strings.Contains(c.Fix, "BatchMode=yes") {
		t.Errorf("host gone: %+v", c)
	}
	if _, ok := got["host gone tmux"]; ok {
		t.Errorf("an unreached host's other checks were made: %q", names)
	}
	if _, ok := got["host a claude"]; ok {
		t.Errorf("claude checked on a host with no Claude Code member: %q", names)
	}
}

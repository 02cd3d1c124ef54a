package team

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidate: what validate reports of a layout file — its own problems by
// line and column, else a worktree up could not make, else valid with its
// team, lead and members — and a file that cannot be read as one problem at
// no line.
func TestValidate(t *testing.T) {
	dir := t.TempDir() // in no git repository
	t.Setenv("TMUX_TMPDIR", dir)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.yaml", "team: wt\nmembers:\n  - name: a\n    worktree: fix/auth\nlayout: spiral\n")
	v := Validate(context.Background(), bad)
	if v.Valid || len(v.Problems) != 2 {
		t.Fatalf("a bad layout: %+v", v)
	}
	if p := v.Problems[0]; p.File != bad || p.Line != 4 || p.Col != 15 || p.Path != "members[0].worktree" {
		t.Errorf("first problem: %+v", p)
	}
	if p := v.Problems[1]; p.Line != 5 || p.Path != "layout" || !strings.Contains(p.Message, "spiral") {
		t.Errorf("second problem: %+v", p)
	}

	wt := write("wt.yaml", "team: wt\nmembers:\n  - name: a\n    command: [sh]\n    worktree: {branch: fix/auth}\n")
	v = Validate(context.Background(), wt)
	if v.Valid || v.Team != "wt" || len(v.Problems) != 1 || v.Problems[0].Line != 0 || v.Problems[0].File != wt {
		t.Errorf("a worktree outside a repository: %+v", v)
	}

	good := write("good.yaml", "team: fine\nmembers:\n  - name: a\n    command: [sh]\n")
	v = Validate(context.Background(), good)
	if !v.Valid || v.Team != "fine" || v.Lead != "" || v.Members != 1 || v.Problems == nil || len(v.Problems) != 0 {
		t.Errorf("a good layout: %+v", v)
	}

	missing := filepath.Join(dir, "missing.yaml")
	v = Validate(context.Background(), missing)
	if v.Valid || len(v.Problems) != 1 || v.Problems[0].Line != 0 || v.Problems[0].File != missing {
		t.Errorf("a missing file: %+v", v)
	}
}

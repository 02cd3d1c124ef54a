package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/doctor"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdDoctor: argv becomes the options (the layout, --json), and
// nothing is done but the run function.
func TestNewCmdDoctor(t *testing.T) {
	for _, c := range []struct {
		args   []string
		layout string
		json   bool
	}{
		{nil, "", false},
		{[]string{"layout.yaml", "--json"}, "layout.yaml", true},
	} {
		var got *doctorOptions
		cmd := newDoctorCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), &globals{}, func(_ context.Context, o *doctorOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Layout != c.layout || got.JSON != c.json {
			t.Errorf("%q: options %+v", c.args, got)
		}
	}
	cmd := newDoctorCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), &globals{}, func(context.Context, *doctorOptions) error { return nil })
	cmd.SetArgs([]string{"a.yaml", "b.yaml"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("doctor of two layouts: no error")
	}
}

// TestDoctorRun: the report of the layout named, a line a check (its fix
// under it), or JSON; exit code 1 when a check failed, not for a warning;
// a layout that cannot be read is the error, with nothing printed.
func TestDoctorRun(t *testing.T) {
	ok := []doctor.Check{{Name: "tmux", OK: true, Detail: "tmux 3.3a"},
		{Name: "trust lead", OK: true, Warn: true, Detail: "/src is not trusted by Claude Code", Fix: "start claude once in /src"}}
	failed := append([]doctor.Check{{Name: "claude", Detail: "claude: not found", Fix: "install Claude Code"}}, ok...)
	for _, c := range []struct {
		name   string
		checks []doctor.Check
		err    error
		json   bool
		want   string
		code   int
	}{
		{name: "ok", checks: ok, want: "ok    tmux           tmux 3.3a\n" +
			"warn  trust lead     /src is not trusted by Claude Code\n" +
			"                     fix: start claude once in /src\n"},
		{name: "failed", checks: failed, code: 1, want: "FAIL  claude         claude: not found\n" +
			"                     fix: install Claude Code\n" +
			"ok    tmux           tmux 3.3a\n" +
			"warn  trust lead     /src is not trusted by Claude Code\n" +
			"                     fix: start claude once in /src\n"},
		{name: "json", checks: failed[:1], json: true, code: 1, want: `[
  {
    "name": "claude",
    "ok": false,
    "detail": "claude: not found",
    "fix": "install Claude Code"
  }
]
`},
		{name: "no layout", err: errors.New("layout.yaml:1:7: did not find expected node content")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var asked []string
			err := doctorRun(context.Background(), &doctorOptions{
				IO:     iostreams.Test(nil, &out, new(bytes.Buffer)),
				Layout: "layout.yaml",
				JSON:   c.json,
				Check: func(_ context.Context, layout string) ([]doctor.Check, error) {
					asked = append(asked, layout)
					return c.checks, c.err
				},
			})
			var ee exitError
			switch {
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Errorf("error %v, want %v", err, c.err)
				}
			case c.code != 0:
				if !errors.As(err, &ee) || ee.code != c.code {
					t.Errorf("error %v, want exit code %d", err, c.code)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			if len(asked) != 1 || asked[0] != "layout.yaml" {
				t.Errorf("checked %q", asked)
			}
			if out.String() != c.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), c.want)
			}
		})
	}
}

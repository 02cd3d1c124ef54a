package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/teamctl/teamctl/team"
)

// TestNewCmdValidate: argv becomes the options (the layout, --json), and
// nothing is done but the run function; without LAYOUT the folder's own
// layout file, said on stderr unless --json, and none there is a usage
// error.
func TestNewCmdValidate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct {
		args         []string
		defaultFile  bool
		file, errOut string
		json         bool
		err          string
	}{
		{args: []string{"l.yaml"}, file: "l.yaml"},
		{args: []string{"l.yaml", "--json"}, file: "l.yaml", json: true},
		{args: nil, err: "no layout file given, and " + dir + " has none of teamctl.yaml, teamctl.yml, .teamctl.yaml, .teamctl.yml: give its LAYOUT file (teamctl validate LAYOUT)"},
		{args: nil, defaultFile: true, file: "teamctl.yaml", errOut: "using teamctl.yaml\n"},
		{args: []string{"--json"}, defaultFile: true, file: "teamctl.yaml", json: true},
	} {
		if c.defaultFile {
			if err := os.WriteFile("teamctl.yaml", []byte("team: here\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var got *validateOptions
		ios, _, errOut := bufIO("")
		cmd := newValidateCmd(ios, func(_ context.Context, o *validateOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || err.Error() != c.err || got != nil {
				t.Errorf("%q: error %v, run %v; want the error %q", c.args, err, got != nil, c.err)
			}
			continue
		}
		if err != nil || got == nil || got.File != c.file || got.JSON != c.json || errOut.String() != c.errOut {
			t.Errorf("%q: %v, options %+v, stderr %q", c.args, err, got, errOut.String())
		}
	}
}

// TestValidateRun: a valid layout is one line on stdout; an invalid one its
// problems on stderr, each FILE:LINE:COL: path: what (FILE: what at no
// line), and exit 1; --json the report either way.
func TestValidateRun(t *testing.T) {
	valid := team.Validation{File: "l.yaml", Valid: true, Team: "auth", Lead: "lead", Members: 2, Problems: []team.ValidationProblem{}}
	invalid := team.Validation{File: "l.yaml", Team: "auth", Problems: []team.ValidationProblem{
		{File: "l.yaml", Line: 2, Col: 9, Path: "layout", Message: "spiral is not a layout"},
		{File: "l.yaml", Message: "settings.json:\x1b[2J not readable"},
	}}
	for _, c := range []struct {
		name        string
		json        bool
		v           team.Validation
		out, errOut string
		exit        bool
	}{
		{name: "valid", v: valid, out: "l.yaml: team auth, lead lead and 2 member(s): valid\n"},
		{name: "invalid", v: invalid, exit: true,
			errOut: "l.yaml:2:9: layout: spiral is not a layout\nl.yaml: settings.json:\\x1b[2J not readable\n"},
		{name: "valid as JSON", json: true, v: valid,
			out: "{\n  \"file\": \"l.yaml\",\n  \"valid\": true,\n  \"team\": \"auth\",\n  \"lead\": \"lead\",\n  \"members\": 2,\n  \"problems\": []\n}\n"},
		{name: "invalid as JSON", json: true, v: team.Validation{File: "l.yaml", Problems: invalid.Problems[:1]}, exit: true,
			out: "{\n  \"file\": \"l.yaml\",\n  \"valid\": false,\n  \"members\": 0,\n  \"problems\": [\n    {\n      \"file\": \"l.yaml\",\n      \"line\": 2,\n      \"col\": 9,\n      \"path\": \"layout\",\n      \"message\": \"spiral is not a layout\"\n    }\n  ]\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			var checked string
			err := validateRun(context.Background(), &validateOptions{IO: ios, File: "l.yaml", JSON: c.json,
				Validate: func(_ context.Context, file string) team.Validation { checked = file; return c.v }})
			if c.exit && err != (exitError{1}) || !c.exit && err != nil {
				t.Errorf("error %v, want exit 1: %v", err, c.exit)
			}
			if checked != "l.yaml" || out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("checked %q, printed %q, on stderr %q; want %q and %q", checked, out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}

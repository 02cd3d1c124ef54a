package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/worktrees"
)

// TestNewCmdRestore: argv becomes the options (the snapshot, its path,
// --json), and nothing is done but the run function; an empty PATH is a
// usage error.
func TestNewCmdRestore(t *testing.T) {
	for _, c := range []struct {
		args       []string
		name, path string
		json       bool
		err        string
	}{
		{args: []string{"auth/alice"}, name: "auth/alice"},
		{args: []string{"auth/alice", "../work", "--json"}, name: "auth/alice", path: "../work", json: true},
		{args: []string{"auth/alice", ""}, err: "PATH is empty"},
		{args: nil, err: "accepts between 1 and 2 arg(s), received 0"},
	} {
		var got *restoreOptions
		ios, _, _ := bufIO("")
		cmd := newRestoreCmd(ios, func(_ context.Context, o *restoreOptions) error {
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
		if err != nil || got == nil || got.Snapshot != c.name || got.Path != c.path || got.JSON != c.json {
			t.Errorf("%q: %v, options %+v", c.args, err, got)
		}
	}
}

// TestRestoreRun: the snapshot named is restored where asked, and the line
// (or the JSON) says where and on which branch; an error is clean's, with
// nothing printed.
func TestRestoreRun(t *testing.T) {
	r := worktrees.Restored{SnapshotInfo: worktrees.SnapshotInfo{Name: "auth/alice/20261201T154700Z", Commit: "0123456789abcdef0123"},
		Path: "/src/work", Branch: "teamctl-restored/auth/alice/20261201T154700Z"}
	for _, c := range []struct {
		name string
		json bool
		err  error
		out  string
	}{
		{name: "the line", out: "restored auth/alice/20261201T154700Z (commit 0123456789ab) at /src/work, on branch teamctl-restored/auth/alice/20261201T154700Z\n"},
		{name: "JSON", json: true, out: "{\n  \"name\": \"auth/alice/20261201T154700Z\",\n"},
		{name: "refused", err: errors.New("/src/work exists")},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, _ := bufIO("")
			var asked string
			err := restoreRun(context.Background(), &restoreOptions{IO: ios, Snapshot: "auth/alice", Path: "../work", JSON: c.json,
				Restore: func(_ context.Context, name, path string) (worktrees.Restored, error) {
					asked = name + " at " + path
					return r, c.err
				}})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if asked != "auth/alice at ../work" {
				t.Errorf("restored %q", asked)
			}
			if got := out.String(); c.json && !bytes.HasPrefix(out.Bytes(), []byte(c.out)) || !c.json && got != c.out {
				t.Errorf("printed %q, want %q", got, c.out)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/teamctl/teamctl/worktrees"
)

// TestNewCmdSnapshots: argv becomes the options (--json, --team), and
// nothing is done but the run function; a --team that is no team's name is
// a usage error.
func TestNewCmdSnapshots(t *testing.T) {
	for _, c := range []struct {
		args []string
		json bool
		team string
		err  string
	}{
		{args: nil},
		{args: []string{"--json", "--team", "auth-fix"}, json: true, team: "auth-fix"},
		{args: []string{"--team", "../x"}, err: `--team "../x" is not a team name`},
	} {
		var got *snapshotsOptions
		ios, _, _ := bufIO("")
		cmd := newSnapshotsCmd(ios, &globals{}, func(_ context.Context, o *snapshotsOptions) error {
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
		if err != nil || got == nil || got.JSON != c.json || got.Team != c.team {
			t.Errorf("%q: %v, options %+v", c.args, err, got)
		}
	}
}

// TestSnapshotsRun: the snapshots of the team asked for as a table (time in
// UTC, the commit cut to 12), or JSON ([] for none); a repository that could
// not be read is a note on stderr.
func TestSnapshotsRun(t *testing.T) {
	list := []worktrees.SnapshotInfo{
		{Name: "auth/alice/20261201T154700Z", Team: "auth", Member: "alice", Time: time.Date(2026, 12, 1, 15, 47, 0, 0, time.UTC),
			Commit: "0123456789abcdef0123", Summary: "teamctl snapshot of alice", Repo: "/src/app"},
		{Name: "auth/bob/odd", Team: "auth", Member: "bob", Commit: "fedcba9876543210fedc", Summary: "wip\x1b[2J", Repo: "/src/app"},
	}
	notes := []string{"/src/gone: not a git repository"}
	for _, c := range []struct {
		name        string
		json        bool
		list        []worktrees.SnapshotInfo
		out, errOut string
	}{
		{name: "the table", list: list,
			out: "NAME                         TIME                  COMMIT        SUMMARY                    REPOSITORY\n" +
				"auth/alice/20261201T154700Z  2026-12-01 15:47:00Z  0123456789ab  teamctl snapshot of alice  /src/app\n" +
				"auth/bob/odd                 -                     fedcba987654  wip\\x1b[2J                 /src/app\n",
			errOut: "teamctl: /src/gone: not a git repository\n"},
		{name: "none", out: "no snapshots\n", errOut: "teamctl: /src/gone: not a git repository\n"},
		{name: "none as JSON", json: true, out: "[]\n", errOut: "teamctl: /src/gone: not a git repository\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			var asked []string
			err := snapshotsRun(context.Background(), &snapshotsOptions{IO: ios, Team: "auth", JSON: c.json,
				List: func(_ context.Context, team string) ([]worktrees.SnapshotInfo, []string) {
					asked = append(asked, team)
					return c.list, notes
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0] != "auth" {
				t.Errorf("listed the snapshots of %q, want auth's", asked)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed:\n%s\non stderr:\n%s\nwant:\n%s\non stderr:\n%s", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}

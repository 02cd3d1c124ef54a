package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/usage"
)

// TestNewCmdUsage: argv becomes the options (members, --since, --json,
// --team); a bad --since is a usage error; nothing is done but the run
// function.
func TestNewCmdUsage(t *testing.T) {
	for _, c := range []struct {
		args    []string
		members []string
		json    bool
		since   bool
		team    string
		err     string
	}{
		{args: nil},
		{args: []string{"lead", "alice", "--json", "--team", "auth-fix"}, members: []string{"lead", "alice"}, json: true, team: "auth-fix"},
		{args: []string{"--since", "2h"}, since: true},
		{args: []string{"--since", "2026-12-01T09:00:00Z"}, since: true},
		{args: []string{"--since", "yesterday"}, err: `--since "yesterday": want a duration`},
	} {
		var got *usageOptions
		g := &globals{}
		cmd := newUsageCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *usageOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		err := cmd.Execute()
		var ue *usageError
		switch {
		case c.err != "":
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.err) || got != nil {
				t.Errorf("%q: error %v, run %v; want the usage error %q", c.args, err, got != nil, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.args, err)
		case !slices.Equal(got.Members, c.members) && len(c.members) > 0 || got.JSON != c.json || got.Since.IsZero() == c.since || g.team != c.team:
			t.Errorf("%q: options %+v, team %q", c.args, got, g.team)
		}
	}
}

func fakeReport() *usage.Report {
	priced := usage.Model{Tokens: usage.Tokens{Input: 1200, Output: 34_500, CacheWrite: 120_300, CacheRead: 2_100_000}, Turns: 12, Cost: 1.234, Priced: true}
	lead := usage.Totals{Tokens: priced.Tokens, Turns: 12, Cost: 1.234, ByModel: map[string]usage.Model{"claude-opus-5-5": priced}}
	free := usage.Model{Tokens: usage.Tokens{Input: 5, Output: 50}, Turns: 1}
	mate := usage.Totals{Tokens: free.Tokens, Turns: 1, ByModel: map[string]usage.Model{"claude-new-9": free}}
	r := &usage.Report{Team: "auth-fix", Up: false, PricesDate: "2026-12-02", PriceSource: "shipped",
		Members: []usage.Member{{Name: "lead", Role: state.RoleLead, Totals: lead}, {Name: "helper", Role: state.RoleTeammate, Origin: state.OriginLead, Gone: true, Totals: mate}},
		Notes:   []string{"/c/projects/-w/x.jsonl: line 3: malformed (12 bytes): skipped"}, PriceFileError: "price file not used, the shipped prices are: p.yaml:1:1: unknown key \"x\""}
	r.Total.Add(lead)
	r.Total.Add(mate)
	return r
}

// TestUsageRun: a row per member and the team's, tokens shortened, the cost
// or "no price"; notes and a refused price file on stderr; --json the report
// as it is.
func TestUsageRun(t *testing.T) {
	var asked team.UsageOptions
	read := func(_ context.Context, o team.UsageOptions) (*usage.Report, error) {
		asked = o
		return fakeReport(), nil
	}
	var out, errOut bytes.Buffer
	since := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	err := usageRun(context.Background(), &usageOptions{IO: iostreams.Test(nil, &out, &errOut), Read: read, Members: []string{"lead"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if !asked.Since.Equal(since) || !slices.Equal(asked.Members, []string{"lead"}) {
		t.Errorf("asked %+v", asked)
	}
	for _, want := range []string{"team auth-fix (down)", "MEMBER", "lead", "1.2k", "34.5k", "120.3k", "2.10M", "$1.23", "claude-opus-5-5",
		"helper (gone)", "no price", "TEAM", "$1.23 + no price", "prices of 2026-12-02 (shipped); no price for claude-new-9"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"line 3: malformed", "p.yaml:1:1: unknown key"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	out.Reset()
	if err := usageRun(context.Background(), &usageOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Read: read, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var back usage.Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Total.Turns != 13 || back.Members[0].Cost != 1.234 || back.Members[1].ByModel["claude-new-9"].Priced {
		t.Errorf("--json: %v\n%s", err, out.String())
	}
	wantErr := errors.New("no team is up")
	if err := usageRun(context.Background(), &usageOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Read: func(context.Context, team.UsageOptions) (*usage.Report, error) { return nil, wantErr }}); err != wantErr {
		t.Errorf("error %v", err)
	}
}

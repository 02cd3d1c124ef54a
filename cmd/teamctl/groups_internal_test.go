package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestHelpGroupsCommands (issue 31): `teamctl --help` lists the commands
// under headings (team, members, review and land, watch, set-up), as gh
// does, not in one alphabetical list; every command is under one, so a new
// command must be given its place.
func TestHelpGroupsCommands(t *testing.T) {
	out := new(bytes.Buffer)
	root := newRootCmd(iostreams.Test(nil, out, new(bytes.Buffer)))
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			if c.GroupID == "" || !root.ContainsGroup(c.GroupID) {
				t.Errorf("command %s is under no heading of teamctl --help: give it one in commandGroups", c.Name())
			}
		}
	}
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	last := -1
	for _, g := range commandGroups {
		at := strings.Index(help, "\n"+g.title+"\n")
		if at < 0 || at < last {
			t.Errorf("heading %q missing or out of order in:\n%s", g.title, help)
		}
		last = at
	}
	if strings.Contains(help, "Available Commands:") || strings.Contains(help, "Additional Commands:") {
		t.Errorf("commands outside the headings:\n%s", help)
	}
	team := help[strings.Index(help, "Team commands:"):strings.Index(help, "Member commands:")]
	if !strings.Contains(team, "\n  up ") || strings.Contains(team, "\n  diff ") {
		t.Errorf("Team commands:\n%s", team)
	}
}

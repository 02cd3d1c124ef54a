package team

import (
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestBy: a verb run from the command line reads as it always did; one from
// the web says so, and from which address, in its detail and its fields.
func TestBy(t *testing.T) {
	var cli actor
	web := actor{By{Via: "web", From: "192.0.2.7:5555"}}
	for _, c := range []struct{ got, want string }{
		{cli.detail("teamctl answer"), "by a person (teamctl answer)"},
		{web.detail("teamctl answer"), "by a person (teamctl serve, from 192.0.2.7:5555)"},
		{cli.sent(), "from teamctl send: "},
		{web.sent(), "from teamctl serve (192.0.2.7:5555): "},
		{cli.restarted(42), "(by a person) pid 42"},
		{web.restarted(42), "(by a person, teamctl serve from 192.0.2.7:5555) pid 42"},
		{"approved" + cli.suffix(), "approved"},
		{"approved" + web.suffix(), "approved (teamctl serve, from 192.0.2.7:5555)"},
		{web.commandOr("teamctl deny"), "teamctl serve"},
		{cli.commandOr("teamctl deny"), "teamctl deny"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	if e := web.mark(state.Event{Kind: state.EventAnswer}); e.Via != "web" || e.From != "192.0.2.7:5555" {
		t.Errorf("marked %+v", e)
	}
	if e := cli.mark(state.Event{Kind: state.EventAnswer}); e.Via != "" || e.From != "" {
		t.Errorf("a command's event marked %+v", e)
	}
}

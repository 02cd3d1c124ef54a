package team

import (
	"strings"
	"testing"
)

// TestAttachRefusals: attaching to a name no member has says which members
// there are, to a team that is down or whose server is gone says how to
// bring it back, and selects nothing but what it tries. (Moved here from
// cmd/teamctl's TestAttachUnknownMemberListsMembers, which brought a team up
// in tmux for the first of them.)
func TestAttachRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(f *fakeWorld)
		member string
		want   []string // the log
		err    string
	}{{
		name:   "no such member: the members named",
		member: "nobody",
		err:    `team alpha has no member "nobody" (members: lead, worker, sh)`,
	}, {
		name:   "the team down",
		setup:  func(f *fakeWorld) { f.stop() },
		member: "worker",
		err:    "team alpha is down: `teamctl up ${cwd}/team.yaml` first",
	}, {
		name:   "its server gone",
		setup:  func(f *fakeWorld) { f.server("alpha").lose() },
		member: "worker",
		want:   []string{"select-window -t %1 ; select-pane -t %1"},
		err:    "team alpha's tmux server is gone: `teamctl up ${cwd}/team.yaml` brings it back",
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("team.yaml", alpha))
			if c.setup != nil {
				c.setup(f)
			}
			f.log = nil
			a, err := f.open("alpha").Attach(f.ctx, c.member)
			f.wantLog(c.want...)
			if want := f.expand(c.err); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("attach: %+v, %v; want an error saying %q", a, err, want)
			}
		})
	}
}

package team

import (
	"reflect"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestStatusConflicts: the radar's conflicts in live.json are on both members
// of each pair, each naming the other.
func TestStatusConflicts(t *testing.T) {
	s := &Status{Members: []MemberStatus{{Name: "alice", State: state.StateRunning}, {Name: "bob", State: state.StateRunning}, {Name: "carol", State: state.StateRunning}}}
	applyLive(s, &state.Live{Conflicts: []state.Conflict{{Members: [2]string{"alice", "bob"}, Files: []string{"app.go"}}}})
	want := [][]MemberConflict{{{With: "bob", Files: []string{"app.go"}}}, {{With: "alice", Files: []string{"app.go"}}}, nil}
	for i, m := range s.Members {
		if !reflect.DeepEqual(m.Conflicts, want[i]) {
			t.Errorf("%s: conflicts %+v, want %+v", m.Name, m.Conflicts, want[i])
		}
	}
}

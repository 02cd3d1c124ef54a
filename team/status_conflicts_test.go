package team

import (
	"reflect"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestStatusConflicts: the radar's conflicts in live.json are on both members
// of each pair, each naming the other; a conflict with a member's base branch
// is on that member alone, even when the branch has a member's name.
func TestStatusConflicts(t *testing.T) {
	s := &Status{Members: []MemberStatus{{Name: "alice", State: state.StateRunning}, {Name: "bob", State: state.StateRunning}, {Name: "carol", State: state.StateRunning}}}
	applyLive(s, &state.Live{Conflicts: []state.Conflict{{Members: [2]string{"alice", "bob"}, Files: []string{"app.go"}},
		{Members: [2]string{"carol", "alice"}, Files: []string{"go.mod"}, Base: true}}}) // carol's base branch, named as alice is
	want := [][]MemberConflict{{{With: "bob", Files: []string{"app.go"}}}, {{With: "alice", Files: []string{"app.go"}}}, {{With: "alice", Files: []string{"go.mod"}, Base: true}}}
	for i, m := range s.Members {
		if !reflect.DeepEqual(m.Conflicts, want[i]) {
			t.Errorf("%s: conflicts %+v, want %+v", m.Name, m.Conflicts, want[i])
		}
	}
}

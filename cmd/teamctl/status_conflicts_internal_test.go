package main

import (
	"testing"
	"time"

	"github.com/teamctl/teamctl/team"
)

// TestMemberDetailConflicts: status's DETAIL says whose work a member's
// would conflict with, and where.
func TestMemberDetailConflicts(t *testing.T) {
	m := team.MemberStatus{Name: "alice", Conflicts: []team.MemberConflict{{With: "bob", Files: []string{"app.go", "go.mod"}}}, Restarts: 1}
	if got, want := memberDetail(m, time.Now()), "conflicts with bob in app.go, go.mod (1 restart)"; got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
}

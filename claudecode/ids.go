package claudecode

import "strings"

// What teamctl takes from its own state.json (which anyone running as the
// user can edit) is checked to have the shape Claude Code gives it before it
// names a folder: a session id is a UUID, the lead's team is
// session-<8 hex>.

// ValidSessionID reports whether id is a session id as Claude Code and
// teamctl make them: a UUID in its lowercase 8-4-4-4-12 hex form.
func ValidSessionID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch i {
		case 8, 13, 18, 23:
			if id[i] != '-' {
				return false
			}
		default:
			if !isLowerHex(id[i]) {
				return false
			}
		}
	}
	return true
}

// IsLeadTeamName reports whether name is a lead's implicit team as Claude
// Code names them (LeadTeamName of a session id, and the other team it claims
// when its own is taken): "session-" and 8 lowercase hex digits.
func IsLeadTeamName(name string) bool {
	rest, ok := strings.CutPrefix(name, "session-")
	if !ok || len(rest) != 8 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isLowerHex(rest[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

package claudecode

import (
	"encoding/json"
	"strings"
)

// Hook is what Claude Code hands a hook on its standard input, as far as
// teamctl reads it.
type Hook struct {
	Event   string `json:"hook_event_name"`   // Stop, Notification, …
	Type    string `json:"notification_type"` // a Notification's
	Message string `json:"message"`
}

// ParseHook reads a hook's JSON; ok is false when it names no event (not
// JSON, or not a hook's).
func ParseHook(data []byte) (h Hook, ok bool) {
	json.Unmarshal(data, &h) // what could be read of it counts
	return h, h.Event != ""
}

// Detail is the hook in a line: its event, then its type and message.
func (h Hook) Detail() string {
	return strings.TrimSpace(strings.Join([]string{h.Event, h.Type, h.Message}, " "))
}

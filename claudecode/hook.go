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
	// Error is a StopFailure's: what API error ended the turn
	// ("rate_limit", "authentication_failed", …).
	Error string `json:"error"`
}

// ParseHook reads a hook's JSON; ok is false when it names no event (not
// JSON, or not a hook's).
func ParseHook(data []byte) (h Hook, ok bool) {
	json.Unmarshal(data, &h) // what could be read of it counts
	return h, h.Event != ""
}

// Detail is the hook in a line: its event, then its type, its error (a
// StopFailure's) and message.
func (h Hook) Detail() string {
	parts := []string{h.Event, h.Type}
	if h.Error != "" {
		parts = append(parts, h.Error)
	}
	return strings.TrimSpace(strings.Join(append(parts, h.Message), " "))
}

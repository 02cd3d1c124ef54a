package claudecode

import "testing"

// TestParseHook: a hook's event, type and message, whatever else its JSON
// holds; no event (not JSON, not a hook's) is not a hook.
func TestParseHook(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, detail string
		ok         bool
	}{
		{`{"hook_event_name":"Stop","session_id":"abc"}`, "Stop", true},
		// A turn ended by a 429 (the fields Claude Code 2.1.332 declares for StopFailure).
		{`{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429","last_assistant_message":"API Error: Request rejected (429)"}`, "StopFailure  rate_limit", true},
		{`{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`,
			"Notification permission_prompt Claude needs your permission to use Bash", true},
		{`{"hook_event_name":"Notification","message":"waiting","session_id":7}`, "Notification  waiting", true},
		{`{"session_id":"abc"}`, "", false},
		{`not json`, "", false},
		{``, "", false},
	} {
		h, ok := ParseHook([]byte(c.in))
		if ok != c.ok || h.Detail() != c.detail {
			t.Errorf("ParseHook(%s) = %+v (detail %q), %v; want %q, %v", c.in, h, h.Detail(), ok, c.detail, c.ok)
		}
	}
}

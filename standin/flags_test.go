package standin

import (
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want options
	}{
		{nil, options{}},
		{[]string{"--session-id", "S", "--teammate-mode", "tmux", "--model=opus", "--permission-mode", "manual", "--", "-p x"},
			options{sessionID: "S", teammateMode: "tmux", model: "opus", permissionMode: "manual", prompt: "-p x"}},
		{[]string{"--agent-id", "r@T", "--agent-name", "r", "--team-name=T", "--agent-color", "blue",
			"--parent-session-id", "P", "--plan-mode-required", "--agent-type", "Explore", "--resume", "R", "--settings", "{}"},
			options{agentID: "r@T", agentName: "r", teamName: "T", agentColor: "blue", parentSessionID: "P",
				planModeRequired: true, agentType: "Explore", resume: "R", settings: "{}"}},
		{[]string{"--verbose", "--plugin-dir", "/p", "--dangerously-skip-permissions", "hello", "world"},
			options{prompt: "hello"}},
		{[]string{"--add-dir=/x", "-c", "--", "--", "later"}, options{prompt: "--"}},
		{[]string{"--model"}, options{}},
	} {
		if got := parseFlags(tc.args); got != tc.want {
			t.Errorf("parseFlags(%q) =\n %+v\nwant\n %+v", tc.args, got, tc.want)
		}
	}
}

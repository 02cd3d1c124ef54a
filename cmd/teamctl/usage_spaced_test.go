package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestUsageReadsSpacedTranscripts (issue 31: usage read a transcript
// written with spaces after the colons, valid JSON, as zero without a
// word): such lines count as compact ones do, and a line skipped is said on
// stderr.
func TestUsageReadsSpacedTranscripts(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: spaced\nlead:\n  env: {TEAMCTL_STANDIN_SCRIPT: \"sleep:1h\"}\n"))
	e.MustRun("down", "--team", "spaced", "--now")
	st, _ := readState(t, e, "spaced")
	dir := filepath.Join(e.ClaudeDir, "projects", "-work")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"type": "assistant", "sessionId": "` + st.LeadSessionID + `", "message": {"id": "msg_1", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 10, "output_tokens": 1000}}}
{"type":"assistant","sessionId":"` + st.LeadSessionID + `","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":5,"output_tokens":500}}}
{"type": "assistant", "message": {"id": "msg_3",
`
	if err := os.WriteFile(filepath.Join(dir, st.LeadSessionID+".jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.MustRun("usage", "--json", "--team", "spaced")
	var rep struct {
		Total struct {
			Turns  int   `json:"turns"`
			Output int64 `json:"output"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, r.Stdout)
	}
	if rep.Total.Turns != 2 || rep.Total.Output != 1500 {
		t.Errorf("usage counted %d turns, %d output tokens; want 2 and 1500 (the spaced line too)\n%s", rep.Total.Turns, rep.Total.Output, r.Stdout)
	}
	if !strings.Contains(r.Stderr, "line 3: malformed") {
		t.Errorf("the line skipped is not said on stderr: %q", r.Stderr)
	}
}

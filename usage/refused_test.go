package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestForgedTranscriptsCountForNobody: `teamctl usage` charges the lead and
// a layout teammate only what their recorded sessions spent. Transcripts a
// member wrote that name them (teamName and agentName, as a teammate's do)
// are ignored and said in the report's notes, one each; a teammate the lead
// spawned is still found by its transcript, and one gone from the state too.
func TestForgedTranscriptsCountForNobody(t *testing.T) {
	cfg := t.TempDir()
	lead := "0123abcd-0000-4000-8000-000000000000"
	alice := claudecode.TeammateSessionID(lead, "alice")
	st := &state.Team{Team: "t", ClaudeTeam: "session-0123abcd", LeadSessionID: lead, CreatedAt: time.Now().Add(-time.Hour),
		Members: []state.Member{
			{Name: "lead", Role: state.RoleLead, Origin: state.OriginLayout, SessionID: lead},
			{Name: "alice", Role: state.RoleTeammate, Origin: state.OriginLayout, SessionID: alice},
			{Name: "helper", Role: state.RoleTeammate, Origin: state.OriginLead},
			{Name: "web", Role: state.RoleProcess, Origin: state.OriginLayout},
		}}
	n := 0
	write := func(session, agent string, output int) string {
		t.Helper()
		n++
		dir := filepath.Join(cfg, "projects", "-tmp-x")
		os.MkdirAll(dir, 0o700)
		p := filepath.Join(dir, session+".jsonl")
		team := ""
		if agent != "" {
			team = fmt.Sprintf(`"teamName":"session-0123abcd","agentName":"%s",`, agent)
		}
		line := fmt.Sprintf(`{"type":"assistant",%s"sessionId":"%s","timestamp":"2026-12-01T09:00:00.000Z","message":{"id":"msg_%d","model":"claude-sonnet-4-5","usage":{"input_tokens":0,"output_tokens":%d}}}`+"\n", team, session, n, output)
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(lead, "", 10)
	write(alice, "alice", 20) // a layout teammate's own file names it: counted, by its session
	write("1123abcd-0000-4000-8000-000000000000", "helper", 30)
	write("2123abcd-0000-4000-8000-000000000000", "gone", 40)
	forged := []string{
		write("f123abcd-0000-4000-8000-000000000001", "lead", 100_000),
		write("f123abcd-0000-4000-8000-000000000002", "alice", 100_000),
		write("f123abcd-0000-4000-8000-000000000003", "team-lead", 100_000),
		write("f123abcd-0000-4000-8000-000000000004", "web", 100_000),
	}
	r, err := ForTeam(st, Options{ClaudeDir: cfg})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, m := range r.Members {
		got[m.Name] = m.Output
	}
	want := map[string]int64{"lead": 10, "alice": 20, "helper": 30, "gone": 40}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("output tokens by member %v, want %v", got, want)
	}
	if r.Total.Output != 100 {
		t.Errorf("team's output tokens %d, want 100", r.Total.Output)
	}
	if len(r.Notes) != len(forged) {
		t.Fatalf("notes %q, want one for each of %d forged files", r.Notes, len(forged))
	}
	notes := strings.Join(r.Notes, "\n")
	for _, p := range forged {
		if !strings.Contains(notes, p+" says it is") {
			t.Errorf("notes %q, want one of %s", r.Notes, p)
		}
	}
}

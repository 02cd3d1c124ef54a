package team

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/internal/transcriptgen"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/usage"
)

// TestUsage: what a team spent is read from the transcript of the session
// its state records for the lead, in the team's Claude Code folder: the
// lead's totals and the team's are what that transcript holds, each response
// once and priced; a member without a transcript spent nothing. A price file
// with mistakes is said in the report, and the shipped prices used. (Which
// transcripts count for whom is usage's business, tested there.)
func TestUsage(t *testing.T) {
	for _, badPrices := range []bool{false, true} {
		name := "shipped prices"
		if badPrices {
			name = "a price file with mistakes"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeWorld(t)
			config := filepath.Join(f.dir, "config")
			t.Setenv("XDG_CONFIG_HOME", config)
			if badPrices {
				if err := os.MkdirAll(filepath.Join(config, "teamctl"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(config, "teamctl", usage.PriceFileName), []byte("models: [\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			st := f.up(f.layout("team.yaml", alpha))
			ss, err := transcriptgen.Write(relaunch.ClaudeConfigDir(st), transcriptgen.Options{Seed: 3, Sessions: 1, Turns: 6,
				Cwd: f.dir, FixedSessions: []string{st.LeadSessionID}, Models: []string{"claude-sonnet-4-5"}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := f.open("alpha").Usage(UsageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			f.wantLog() // read from files: tmux is not asked
			want := ss[0]
			spent := map[string]usage.Totals{}
			for _, m := range r.Members {
				spent[m.Name] = m.Totals
			}
			lead := spent["lead"]
			if !tokensEqual(lead.Tokens, want.Total) || lead.Turns != want.Responses || lead.Cost <= 0 {
				t.Errorf("the lead spent %+v (%d responses, $%f), want %+v (%d responses), priced", lead.Tokens, lead.Turns, lead.Cost, want.Total, want.Responses)
			}
			if !tokensEqual(r.Total.Tokens, want.Total) || r.Total.Turns != want.Responses || r.Total.Cost != lead.Cost {
				t.Errorf("the team spent %+v (%d responses, $%f), want the lead's", r.Total.Tokens, r.Total.Turns, r.Total.Cost)
			}
			if w, ok := spent["worker"]; !ok || w.Turns != 0 || w.Cost != 0 {
				t.Errorf("worker spent %+v (listed: %v), want nothing", w, ok)
			}
			if _, ok := spent["sh"]; ok {
				t.Error("the plain process sh is in the report")
			}
			if (r.PriceFileError != "") != badPrices {
				t.Errorf("price file error %q", r.PriceFileError)
			}
		})
	}
}

func tokensEqual(a usage.Tokens, b transcriptgen.Tokens) bool {
	return a.Input == b.Input && a.Output == b.Output && a.CacheWrite == b.CacheWrite && a.CacheWrite1h == b.CacheWrite1h && a.CacheRead == b.CacheRead
}

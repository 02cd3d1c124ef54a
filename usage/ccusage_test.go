package usage

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/transcriptgen"
)

// ccusageVar names the ccusage binary the correctness anchor runs (.ci/run
// installs ccusage@20.0.24 and sets it).
const ccusageVar = "TEAMCTL_CCUSAGE"

// ccusage returns the ccusage binary, or skips the test; in CI (CI=true) a
// missing ccusage fails it.
func ccusage(t *testing.T) string {
	t.Helper()
	p := os.Getenv(ccusageVar)
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run the ccusage comparison (.ci/run installs ccusage)", ccusageVar)
		}
		t.Skipf("set %s=/path/to/ccusage (npm install --prefix DIR ccusage@20.0.24; DIR/node_modules/.bin/ccusage) to compare with ccusage", ccusageVar)
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		t.Fatalf("%s=%s: not a file (%v)", ccusageVar, p, err)
	}
	return p
}

// ccSession is one session of `ccusage claude session --json`.
type ccSession struct {
	SessionID           string  `json:"sessionId"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	TotalCost           float64 `json:"totalCost"`
	ModelBreakdowns     []struct {
		ModelName      string  `json:"modelName"`
		Cost           float64 `json:"cost"`
		MissingPricing bool    `json:"missingPricing"`
		InputTokens    int64   `json:"inputTokens"`
	} `json:"modelBreakdowns"`
}

// runCCUsage runs ccusage on Claude Code's folder cfg, offline, with a home
// of its own, and returns its sessions by id.
func runCCUsage(t *testing.T, bin, cfg string) map[string]ccSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "claude", "session", "--json", "--offline")
	home := t.TempDir()
	cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + cfg, "HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "NO_COLOR=1"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage: %v\n%s", err, out)
	}
	var r struct{ Sessions []ccSession }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("ccusage's JSON: %v\n%.2000s", err, out)
	}
	byID := map[string]ccSession{}
	for _, s := range r.Sessions {
		byID[s.SessionID] = s
	}
	return byID
}

// TestEqualsCCUsage is the correctness anchor: on the same generated
// transcripts (responses on several lines, subagents, several models, one of
// them unpriced by both, other line types, cut last lines), the token totals
// per session equal ccusage's exactly, and the cost agrees within 1% for
// every model both have a price for.
func TestEqualsCCUsage(t *testing.T) {
	bin := ccusage(t)
	cfg := t.TempDir()
	models := []string{"claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-opus-5-5", "claude-made-up-1"}
	ss, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 42, Sessions: 6, Turns: 60, Subagents: 2, TruncateLast: true, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	// And sessions whose responses carry no requestId (a gateway that sends
	// no request-id header): both count each response once by message id.
	more, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 43, Sessions: 2, Turns: 30, NoRequestID: true, Cwd: "/work/other", Models: models})
	if err != nil {
		t.Fatal(err)
	}
	ss = append(ss, more...)
	cc := runCCUsage(t, bin, cfg)
	for _, s := range ss {
		m, _ := NewMeter(cfg, []string{s.ID}, nil, time.Time{})
		got, _ := m.Update()
		c, ok := cc[s.ID]
		if !ok {
			t.Errorf("ccusage has no session %s", s.ID)
			continue
		}
		if got.Input != c.InputTokens || got.Output != c.OutputTokens || got.CacheWrite != c.CacheCreationTokens || got.CacheRead != c.CacheReadTokens {
			t.Errorf("session %s: teamctl %+v, ccusage in %d out %d cache write %d cache read %d",
				s.ID, got.Tokens, c.InputTokens, c.OutputTokens, c.CacheCreationTokens, c.CacheReadTokens)
		}
		for _, mb := range c.ModelBreakdowns {
			ours := got.ByModel[mb.ModelName]
			if mb.MissingPricing || !ours.Priced {
				if mb.MissingPricing != !ours.Priced {
					t.Logf("%s: priced by only one of teamctl (%v) and ccusage (%v)", mb.ModelName, ours.Priced, !mb.MissingPricing)
				}
				continue
			}
			if math.Abs(ours.Cost-mb.Cost) > 0.01*math.Max(mb.Cost, 1e-9) {
				t.Errorf("session %s, %s: cost %.6f, ccusage %.6f", s.ID, mb.ModelName, ours.Cost, mb.Cost)
			}
		}
	}
}

// TestWhereCCUsageDiffers documents where teamctl prices differently on
// purpose: a request whose input (uncached + cache writes + cache reads) is
// over 200k tokens, on a model with a long-context tier (Sonnet 4.5), is
// priced whole at the long-context rates, as Anthropic's price list says;
// ccusage 20.0.24 prices only each kind's tokens above 200k at those rates
// (here: none of the input, 50k of the cache reads). The tokens agree.
func TestWhereCCUsageDiffers(t *testing.T) {
	bin := ccusage(t)
	cfg := t.TempDir()
	id := "0123abcd-0000-4000-8000-000000000000"
	line := `{"parentUuid":null,"isSidechain":false,"message":{"content":[{"text":"x","type":"text"}],"id":"msg_long1","model":"claude-sonnet-4-5","role":"assistant","stop_reason":"end_turn","stop_sequence":null,"type":"message","usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":250000,"output_tokens":100,"cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}}},"requestId":"req_1","type":"assistant","uuid":"5e8a5d27-4c39-4a4b-9a51-2f3f1b8f7a10","timestamp":"2026-12-02T04:06:37.311Z","sessionId":"` + id + `","version":"2.1.332"}` + "\n"
	dir := filepath.Join(cfg, "projects", "-w")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := NewMeter(cfg, []string{id}, nil, time.Time{})
	got, _ := m.Update()
	c := runCCUsage(t, bin, cfg)[id]
	ours := (10*6 + 250_000*0.6 + 100*22.5) / 1e6
	theirs := (10*3 + 200_000*0.3 + 50_000*0.6 + 100*15) / 1e6
	if got.CacheRead != c.CacheReadTokens || got.Input != c.InputTokens || got.Output != c.OutputTokens {
		t.Errorf("tokens differ: teamctl %+v, ccusage %+v", got.Tokens, c)
	}
	if math.Abs(got.Cost-ours) > 1e-9 {
		t.Errorf("teamctl's cost %.6f, want %.6f (the whole request at long-context rates)", got.Cost, ours)
	}
	if math.Abs(c.TotalCost-theirs) > 1e-6 {
		t.Logf("ccusage's cost is now %.6f, not %.6f: see whether the README's difference still holds", c.TotalCost, theirs)
	}
}

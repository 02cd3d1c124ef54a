package e2e

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestProbeRateLimit is a probe, not a test (it checks nothing): with
// TEAMCTL_PROBE_LIMIT=MODE it answers the lead's turns with a 429 and logs
// every screen Claude Code shows (sampled twice a second), when each
// request came, and the transcript, which is how docs/claude-code.md "Usage
// and rate limits" was written and how a new version is probed again.
// Modes: plain (retry-after and anthropic-ratelimit-requests-* only),
// unified (a subscription's 5-hour limit, anthropic-ratelimit-unified-*),
// unified7d (its weekly limit, a day ahead). TEAMCTL_PROBE_RESET is the
// reset in seconds (40), TEAMCTL_PROBE_RETRY the retry-after (3),
// TEAMCTL_PROBE_COUNT how many 429s before the fake answers, TEAMCTL_PROBE_SECS
// how long to watch (75), TEAMCTL_PROBE_ENV more NAME=VALUE for the team
// (CLAUDE_CODE_MAX_RETRIES=1), TEAMCTL_PROBE_OUT a file for the last screen,
// TEAMCTL_PROBE_RAW one for the pane's raw output.
func TestProbeRateLimit(t *testing.T) {
	mode := os.Getenv("TEAMCTL_PROBE_LIMIT")
	if mode == "" {
		t.Skip("probe")
	}
	start := time.Now()
	resetIn, _ := strconv.Atoi(os.Getenv("TEAMCTL_PROBE_RESET"))
	if resetIn == 0 {
		resetIn = 40
	}
	reset := start.Add(time.Duration(resetIn) * time.Second)
	var mu sync.Mutex // the script runs on the fake's request goroutines
	limited := 0
	maxLimited, _ := strconv.Atoi(os.Getenv("TEAMCTL_PROBE_COUNT"))
	if maxLimited == 0 {
		maxLimited = 1000
	}
	script := func(r fakeapi.Request) fakeapi.Reply {
		mu.Lock()
		defer mu.Unlock()
		if !r.IsTurn() || !r.Stream || limited >= maxLimited || !r.UserTextContains("LIMIT-PROBE") {
			return fakeapi.Text("ok, continuing")
		}
		limited++
		h := http.Header{}
		retry := os.Getenv("TEAMCTL_PROBE_RETRY")
		if retry == "" {
			retry = "3"
		}
		h.Set("retry-after", retry)
		switch mode {
		case "plain":
			h.Set("anthropic-ratelimit-requests-limit", "50")
			h.Set("anthropic-ratelimit-requests-remaining", "0")
			h.Set("anthropic-ratelimit-requests-reset", reset.UTC().Format(time.RFC3339))
			h.Set("anthropic-ratelimit-tokens-reset", reset.UTC().Format(time.RFC3339))
		case "unified":
			u := strconv.FormatInt(reset.Unix(), 10)
			h.Set("anthropic-ratelimit-unified-status", "rejected")
			h.Set("anthropic-ratelimit-unified-reset", u)
			h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
			h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
			h.Set("anthropic-ratelimit-unified-5h-reset", u)
			h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
			h.Set("anthropic-ratelimit-unified-fallback", "unavailable")
			h.Set("anthropic-ratelimit-unified-overage-status", "rejected")
			h.Set("anthropic-ratelimit-unified-overage-disabled-reason", "org_level_disabled")
		case "unified7d":
			u := strconv.FormatInt(reset.Add(26*time.Hour).Unix(), 10)
			h.Set("anthropic-ratelimit-unified-status", "rejected")
			h.Set("anthropic-ratelimit-unified-reset", u)
			h.Set("anthropic-ratelimit-unified-representative-claim", "seven_day")
			h.Set("anthropic-ratelimit-unified-7d-status", "rejected")
			h.Set("anthropic-ratelimit-unified-7d-reset", u)
			h.Set("anthropic-ratelimit-unified-7d-utilization", "1.0")
		}
		rep := fakeapi.Error(429, "rate_limit_error", "This request would exceed your account's rate limit. Please try again later.")
		rep.Header = h
		return rep
	}
	w := newWorld(t, "e2e-probe", true, script)
	if kv := os.Getenv("TEAMCTL_PROBE_ENV"); kv != "" {
		w.e.Extra = append(w.e.Extra, strings.Fields(kv)...)
	}
	w.e.MustRun("up", w.layout("Say hi; token LIMIT-PROBE."))
	pane := w.paneOf("lead")
	if raw := os.Getenv("TEAMCTL_PROBE_RAW"); raw != "" {
		w.e.Tmux(w.socket(), "pipe-pane", "-o", "-t", pane, "cat >> "+raw)
	}
	last := ""
	secs, _ := strconv.Atoi(os.Getenv("TEAMCTL_PROBE_SECS"))
	if secs == 0 {
		secs = 75
	}
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	tick := time.NewTicker(500 * time.Millisecond) // sampling what it shows, not waiting for it
	defer tick.Stop()
	for time.Now().Before(deadline) {
		s := w.screen(pane)
		if s != last {
			t.Logf("=== screen at +%s:\n%s", time.Since(start).Round(100*time.Millisecond), s)
			last = s
		}
		<-tick.C
	}
	for _, r := range w.api.Requests() {
		t.Logf("request at +%s %s retry=%v", r.Time.Sub(start).Round(10*time.Millisecond), r, r.Header["X-Stainless-Retry-Count"])
	}
	if out := os.Getenv("TEAMCTL_PROBE_OUT"); out != "" {
		os.WriteFile(out, []byte(last), 0o644)
	}
	filepath.WalkDir(filepath.Join(w.e.ClaudeDir, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			t.Logf("--- transcript %s:\n%s", p, b)
		}
		return nil
	})
	t.Logf("status: %+v", w.status())
}

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// limitZone is the team's time zone in the limit test: half an hour off
// UTC, so a reset time read in the wrong zone, or cut to the hour, shows.
const limitZone = "Asia/Kolkata"

// limitScript answers every turn with a 429 of a subscription's 5-hour limit
// (Anthropic's rate_limit_error and the anthropic-ratelimit-unified-*
// headers Claude Code reads) until its reset time, then with text. The
// reset is set at the first 429: one second before a minute ends, at least
// 8 seconds ahead, so the minute Claude Code shows ends soon after it.
type limitScript struct {
	mu    sync.Mutex
	reset time.Time
}

func (l *limitScript) resetAt() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reset
}

func (l *limitScript) answer(r fakeapi.Request) fakeapi.Reply {
	if !r.IsTurn() || !r.Stream {
		return fakeapi.Text("ok")
	}
	l.mu.Lock()
	now := time.Now()
	if l.reset.IsZero() {
		l.reset = now.Truncate(time.Minute).Add(time.Minute - time.Second)
		if l.reset.Sub(now) < 8*time.Second {
			l.reset = l.reset.Add(time.Minute)
		}
	}
	reset := l.reset
	l.mu.Unlock()
	if !now.Before(reset) {
		return fakeapi.Text("Continuing after the limit; token LIMIT-AFTER.")
	}
	h := http.Header{}
	u := strconv.FormatInt(reset.Unix(), 10)
	// A retry-after up to the reset makes Claude Code wait it out itself
	// (seen: "retrying in 51s (10:44am)", then the retry answered); a short
	// one has it retry before the reset, and give up.
	h.Set("retry-after", "3")
	h.Set("anthropic-ratelimit-unified-status", "rejected")
	h.Set("anthropic-ratelimit-unified-reset", u)
	h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
	h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
	h.Set("anthropic-ratelimit-unified-5h-reset", u)
	h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
	rep := fakeapi.Error(http.StatusTooManyRequests, "rate_limit_error", "This request would exceed your account's rate limit. Please try again later.")
	rep.Header = h
	return rep
}

// limitStatus is what `teamctl status --json` says of a limited member.
type limitStatus struct {
	Members []struct {
		Name  string
		State string
		Limit *struct {
			Line       string
			Reset      time.Time
			ResetShown string `json:"reset_shown"`
		}
	}
}

// TestLimitedThenResumed: the fake API answers the lead's turn with a 429
// of a 5-hour limit whose reset is seconds away; Claude Code (told to retry
// once, CLAUDE_CODE_MAX_RETRIES=1) shows the reset time in its retry spinner
// and gives up. The lead becomes limited with that reset time in status;
// with limits: {resume: true} the supervisor types the continuation once
// the minute shown is over, and that request reaches the fake API and is
// answered: the lead goes on by itself.
func TestLimitedThenResumed(t *testing.T) {
	t.Parallel()
	zone, err := time.LoadLocation(limitZone)
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	sc := &limitScript{}
	w := newWorld(t, "e2e-limits", true, sc.answer)
	layout := w.e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude:
  command: claude
env:
  TZ: %s
  CLAUDE_CODE_MAX_RETRIES: "1"
lead:
  name: lead
  prompt: "Say hi; token LIMIT-FIRST."
watchdog:
  quiet: 500ms
limits:
  resume: true
  margin: 1s
`, w.team, limitZone))
	w.e.MustRun("up", layout)
	w.waitRequest("the first turn, refused", func(r fakeapi.Request) bool {
		return r.IsTurn() && r.Status == http.StatusTooManyRequests && r.UserTextContains("LIMIT-FIRST")
	})
	reset := sc.resetAt()
	// What Claude Code shows: the reset to the minute, in the zone.
	wantReset := reset.Truncate(time.Minute)
	wantShown := strings.ToLower(strings.Replace(reset.In(zone).Format("3:04PM"), ":00", "", 1))
	if reset.In(zone).Minute() != 0 {
		wantShown = strings.ToLower(reset.In(zone).Format("3:04PM"))
	}
	var st limitStatus
	poll(t, wait, "the lead limited, with the reset time, in status", func() (bool, string) {
		r := w.e.MustRun("status", "--json", "--team", w.team)
		if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
			return false, err.Error()
		}
		for _, m := range st.Members {
			if m.Name == "lead" && m.State == "limited" && m.Limit != nil && !m.Limit.Reset.IsZero() {
				return true, ""
			}
		}
		return false, r.Stdout + "\n" + w.screen(w.paneOf("lead"))
	})
	lim := st.Members[0].Limit
	if !lim.Reset.Equal(wantReset) || lim.ResetShown != wantShown || !strings.Contains(lim.Line, "5-hour limit reached") {
		t.Errorf("status says the limit %+v; want reset %v shown %q (the fake's reset %v)", lim, wantReset, wantShown, reset)
	}
	if out := w.e.MustRun("status", "--team", w.team).Stdout; !strings.Contains(out, "limited") || !strings.Contains(out, "resets "+wantShown) {
		t.Errorf("teamctl status does not show the limit and its reset:\n%s", out)
	}
	// Nothing is typed before the minute shown is over (+ the margin): the
	// continuation is the first request after the reset, and is answered.
	r := w.waitRequest("the continuation, answered", func(r fakeapi.Request) bool {
		return r.IsTurn() && lastText(r) == "continue"
	})
	if r.Status != http.StatusOK || r.Time.Before(wantReset.Add(time.Minute)) {
		t.Errorf("the continuation came at %v with status %d; the minute shown ended at %v", r.Time, r.Status, wantReset.Add(time.Minute))
	}
	// The refused prompt is still the model's to answer: Claude Code sends
	// it again, in the same user turn as the continuation.
	if !r.UserTextContains("LIMIT-FIRST") {
		t.Errorf("the continuation's request lost the refused prompt: %q", r.UserTexts())
	}
	poll(t, wait, "the lead no longer limited", func() (bool, string) {
		s := w.status()
		m, _ := s.member("lead")
		return m.State == "idle" || m.State == "working", m.State
	})
	var kinds []string
	for _, e := range w.events() {
		if e.Member == "lead" && strings.HasPrefix(e.Kind, "limit") {
			kinds = append(kinds, e.Kind)
		}
	}
	if strings.Count(strings.Join(kinds, " "), "limit-resume") != 1 || len(kinds) == 0 || kinds[0] != "limited" {
		t.Errorf("limit events of the lead: %v; want limited first and one limit-resume", kinds)
	}
	t.Logf("reset %v (shown %s), continuation at %v, events %v", reset, wantShown, r.Time, kinds)
	if t.Failed() {
		w.dump()
	}
}

// lastText is the last text block of a request's last user turn: what was
// typed last (Claude Code puts its reminders in blocks before it).
func lastText(r fakeapi.Request) string {
	blocks := r.LastUser().Content
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == "text" {
			return strings.TrimSpace(blocks[i].Text)
		}
	}
	return ""
}

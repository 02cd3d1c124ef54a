package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
)

// Usage limits. A member the Messages API refuses with a 429 (a usage or
// rate limit) becomes limited, from three signals: its screen (Claude Code's
// retry spinner names the limit and its reset time while it retries by
// itself, its last message says so once it gave up: stallwatch.ReadLimit),
// its StopFailure hook ("rate_limit"), and its transcript (the API error
// Claude Code records when it gives up). With `limits: {resume: true}` the
// supervisor types the layout's continuation prompt into it once the limit
// reset: at the end of the minute Claude Code showed, plus the margin; once
// per reset time; without a known one, at a backoff of 1, 2, 4 … minutes,
// capped at 30. A continuation that meets the limit again counts toward the
// backoff until the member does work again. A reset time that was shown gets
// one continuation and no backoff after it: only a new reset time shown, or
// the limit ending, plans another. Only Claude Code members are watched for
// limits: a `command:` member is a plain process, and what it prints ("You've
// hit your limit · resets 9:30pm", from a log tail or an agent's echo) is
// its own text, never a reason to type a prompt into what reads its stdin
// (a shell would run it).

// limitState is what the supervisor keeps of one member's limits. It lives
// on the member's watch, so it follows a relaunch.
type limitState struct {
	retrying bool      // the screen shows Claude Code retrying by itself
	resumeAt time.Time // when the continuation is due; zero when none is planned
	timer    timer
	typedFor time.Time // the reset time a continuation was typed for: each reset gets one
	tries    int       // continuations typed since the member last did work
	lastTry  time.Time
	// lastLimit: the last response of the member's session on the main
	// thread, as its meter read it (transcriptSaid), was a limit's API
	// error.
	lastLimit bool
	// hookSaid: a StopFailure hook said rate_limit since the member last
	// showed work.
	hookSaid bool
}

// Backoff of continuations without a known reset time; limitCheck is the
// longest a planned continuation's timer waits before it looks at the wall
// clock again, so a clock set forward past the reset is noticed within it
// (a timer measures elapsed time, not the wall clock).
const (
	limitFirstTry = time.Minute
	limitMaxTry   = 30 * time.Minute
	limitCheck    = time.Minute
	// resetPrecision: Claude Code shows a reset time to the minute (cut,
	// not rounded): the reset falls within the minute shown.
	resetPrecision = time.Minute
)

// limitMarkers are in a pane's output when Claude Code draws a limit: such
// output has its screen looked at now, not after the quiet period (a retry
// spinner counts down every second, so the pane is never quiet while it
// shows the reset time).
var limitMarkers = [][]byte{[]byte("limit reached"), []byte("hit your"), []byte("(429)"), []byte("rate limit"), []byte("usage limit")}

// claudeCode reports whether w's member runs Claude Code (the lead, a
// teammate): the only members whose hooks and transcripts say limits.
func (s *daemon) claudeCode(w *paneWatch) bool {
	m, ok := s.st.Member(w.member)
	return ok && (m.Role == state.RoleLead || m.Role == state.RoleTeammate)
}

// limitsWatched reports whether w's member says its limits on its screen in
// forms teamctl reads (stallwatch.ReadLimit): Claude Code, and a member
// running Codex or Gemini CLI (Gemini's quota dialog: limited while it is
// up). A plain process never is: typing a continuation into whatever reads
// its stdin would run it.
func (s *daemon) limitsWatched(w *paneWatch) bool {
	m, ok := s.st.Member(w.member)
	return ok && (m.Role == state.RoleLead || m.Role == state.RoleTeammate || m.Agent != "")
}

// limitOutput looks at w's screen now when its new output draws a limit.
func (s *daemon) limitOutput(w *paneWatch, data []byte) {
	if w.live.State == state.StateExited || w.live.State == state.StateFailed || !s.limitsWatched(w) {
		return
	}
	for _, m := range limitMarkers {
		if bytes.Contains(data, m) {
			s.requestCapture(w)
			return
		}
	}
}

// judgeLimit decides, on a captured screen whose verdict is v, whether w is
// limited; true when it is (and its state is handled here). A screen that no
// longer shows the limit ends it.
func (s *daemon) judgeLimit(w *paneWatch, screen string, v stallwatch.Verdict) bool {
	if !s.limitsWatched(w) {
		return false
	}
	now := s.clock.Now()
	var l stallwatch.Limit
	ok := false
	if v.Kind != stallwatch.Stalled || v.Pattern == stallwatch.GeminiQuota {
		// Gemini CLI's limit is a dialog (its quota's): a limit, not a
		// stall, though it waits for an answer (limitFired gives it).
		l, ok = stallwatch.ReadLimit(screen, now, s.memberZone(w.member))
	}
	if v.Kind == stallwatch.Busy {
		w.limit.hookSaid = false
	}
	if !ok && v.Kind == stallwatch.Idle {
		switch {
		case s.transcriptLimited(w):
			l, ok = stallwatch.Limit{Line: "the last answer in its transcript is a rate-limit error (429)"}, true
		case w.limit.hookSaid:
			l, ok = stallwatch.Limit{Line: "StopFailure hook: rate_limit"}, true
		}
	}
	if !ok {
		if v.Kind == stallwatch.Idle {
			w.limit.tries = 0 // it did work: a later limit starts the backoff afresh
		}
		if w.live.State == state.StateLimited {
			s.limitEnded(w, "its screen no longer shows the limit")
		}
		return false
	}
	s.limited(w, l, "screen")
	return true
}

// limited makes w limited by l (from: what said so), or updates its limit.
func (s *daemon) limited(w *paneWatch, l stallwatch.Limit, from string) {
	now := s.clock.Now().UTC()
	prev := *w.live
	w.limit.retrying = l.Retrying
	if prev.State == state.StateLimited {
		// The same time shown again is the same reset, however it reads
		// now (a banner still saying "resets 3am" at 4am).
		changed := !l.Reset.IsZero() && !l.Reset.Equal(prev.Reset) && l.Shown != prev.ResetShown
		if changed {
			w.live.Reset, w.live.ResetShown = l.Reset.UTC(), l.Shown
			s.event(state.Event{Kind: state.EventLimited, Member: w.member, Pane: w.id, Line: l.Line, Reset: w.live.Reset,
				Detail: "the reset time is now known: " + resetText(w.live.Reset, w.live.ResetShown)})
		}
		if l.Line != "" && l.Line != w.live.Line && !strings.HasPrefix(l.Line, "the last answer") && !strings.HasPrefix(l.Line, "StopFailure") {
			w.live.Line = l.Line
			changed = true
		}
		s.planResume(w)
		if changed {
			s.saveLive()
		}
		return
	}
	if prev.State == state.StateStalled {
		s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
	}
	w.live = &state.LiveMember{Pane: w.id, State: state.StateLimited, Since: now, Line: l.Line}
	if !l.Reset.IsZero() {
		w.live.Reset, w.live.ResetShown = l.Reset.UTC(), l.Shown
	}
	w.rechecked = false
	s.live.Members[w.member] = w.live
	s.event(state.Event{Kind: state.EventLimited, Member: w.member, Pane: w.id, Line: l.Line, Reset: w.live.Reset, Origin: w.origin,
		Detail: fmt.Sprintf("a usage or rate limit (seen on its %s); %s", from, resetText(w.live.Reset, w.live.ResetShown))})
	s.planResume(w)
	s.saveLive()
}

// limitEnded ends w's limit (its state is set by the caller's verdict).
func (s *daemon) limitEnded(w *paneWatch, why string) {
	s.stopResume(w)
	s.event(state.Event{Kind: state.EventLimitCleared, Member: w.member, Pane: w.id, Line: w.live.Line, Detail: why})
}

func resetText(reset time.Time, shown string) string {
	switch {
	case reset.IsZero():
		return "its reset time was not shown"
	case shown != "":
		return "resets " + shown + " (" + reset.Format(time.RFC3339) + ")"
	}
	return "resets " + reset.Format(time.RFC3339)
}

// limitHook takes a StopFailure hook: its error "rate_limit" makes the
// member limited (its screen, looked at now, may know when it resets).
func (s *daemon) limitHook(w *paneWatch, e state.Event) {
	if !strings.Contains(e.Detail, "rate_limit") || !s.claudeCode(w) {
		return
	}
	w.limit.hookSaid = true
	if w.live.State != state.StateLimited && w.live.State != state.StateWaitingApproval {
		s.limited(w, stallwatch.Limit{Line: "StopFailure hook: rate_limit"}, "StopFailure hook")
	}
	s.requestCapture(w)
}

// limitTurnEnded: a Stop hook, a turn that ended without an API error.
func (s *daemon) limitTurnEnded(w *paneWatch) { w.limit.hookSaid = false }

// transcriptLimited reads what w's transcripts gained since the last look
// and says whether the last response in its session's is a limit's API
// error. They are read by the member's meter, which budgets read too
// (transcriptSaid): one reader, one offset, per transcript.
func (s *daemon) transcriptLimited(w *paneWatch) bool {
	m, ok := s.st.Member(w.member)
	if !ok || m.SessionID == "" || s.claudeDir == "" {
		return false
	}
	s.readTranscripts(w.member, m.SessionID)
	return w.limit.lastLimit
}

// transcriptSaid takes a response a meter read from a main transcript of
// member name's session: the last one of its current session on the main
// thread (not a subagent's) says whether it met a usage limit.
func (s *daemon) transcriptSaid(name, session string, r transcript.Response) {
	if r.Sidechain {
		return
	}
	m, ok := s.st.Member(name)
	if !ok || m.SessionID != session {
		return
	}
	if w := s.watchOf(name); w != nil {
		w.limit.lastLimit = r.APIError.RateLimit()
	}
}

// memberZone is the time zone the member's Claude Code shows times in: the
// TZ its launch set, else the supervisor's (which up's environment gave it,
// as it gave the members theirs).
func (s *daemon) memberZone(member string) *time.Location {
	if m, ok := s.st.Member(member); ok {
		for _, kv := range m.Env {
			if tz, found := strings.CutPrefix(kv, "TZ="); found {
				if loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":")); err == nil {
					return loc
				}
			}
		}
	}
	return time.Local
}

// limitsOf is the layout's limits: settings (defaults when it did not parse).
func (s *daemon) limitsOf() layouts.UsageLimits {
	if s.lay == nil {
		return layouts.UsageLimits{Margin: layouts.DefaultLimitMargin, Prompt: layouts.DefaultLimitPrompt}
	}
	return s.lay.Limits
}

// planResume plans w's continuation, when the layout asks for it: at the
// end of the reset minute plus the margin, unless a continuation was typed
// for that reset already (then none: one continuation per reset, and the
// backoff is for limits whose reset time was never shown); without a reset
// time, at the backoff from the last try (or from when the limit began).
func (s *daemon) planResume(w *paneWatch) {
	lim := s.limitsOf()
	if !lim.Resume || !s.limitsWatched(w) {
		return
	}
	var at time.Time
	if r := w.live.Reset; !r.IsZero() {
		if !r.After(w.limit.typedFor) {
			s.stopResume(w) // typed for this reset: the next is a new reset shown
			return
		}
		at = r.Add(resetPrecision + lim.Margin)
	} else {
		d := limitMaxTry
		if w.limit.tries < 5 {
			d = min(limitFirstTry<<w.limit.tries, limitMaxTry)
		}
		from := w.live.Since
		if w.limit.lastTry.After(from) {
			from = w.limit.lastTry
		}
		at = from.Add(d)
	}
	if at.Equal(w.limit.resumeAt) && w.limit.timer != nil {
		return
	}
	w.limit.resumeAt = at
	s.armResume(w)
}

// armResume sets w's continuation timer for when it is due, or for
// limitCheck, whichever is sooner.
func (s *daemon) armResume(w *paneWatch) {
	d := min(max(w.limit.resumeAt.Sub(s.clock.Now()), 0), limitCheck)
	if w.limit.timer != nil {
		w.limit.timer.Stop()
	}
	w.limit.timer = s.clock.AfterFunc(d, func() { s.limitFire <- w })
}

func (s *daemon) stopResume(w *paneWatch) {
	if w.limit.timer != nil {
		w.limit.timer.Stop()
		w.limit.timer = nil
	}
	w.limit.resumeAt = time.Time{}
}

// limitFired: w's continuation timer ran. It types the continuation when it
// is due by the wall clock (a clock set back waits on), the member is still
// limited and Claude Code no longer retries by itself; once: the plan is
// dropped before typing, and a reset typed for is never planned again.
func (s *daemon) limitFired(ctx context.Context, w *paneWatch) {
	if !s.watched(w) || w.limit.resumeAt.IsZero() || !s.limitsWatched(w) {
		return
	}
	w.limit.timer = nil
	if w.live.State != state.StateLimited {
		w.limit.resumeAt = time.Time{}
		return
	}
	now := s.clock.Now()
	if now.Before(w.limit.resumeAt) || w.limit.retrying {
		if w.limit.retrying && !now.Before(w.limit.resumeAt) {
			w.limit.resumeAt = now.Add(limitCheck) // Claude Code is still at it: its own retries may do
		}
		s.armResume(w)
		return
	}
	lim := s.limitsOf()
	if !lim.Resume {
		w.limit.resumeAt = time.Time{}
		return
	}
	reset := w.live.Reset
	w.limit.resumeAt = time.Time{}
	if !reset.IsZero() {
		w.limit.typedFor = reset
	}
	w.limit.tries++
	w.limit.lastTry = now
	// A new turn: only what it meets says it is limited again.
	w.limit.hookSaid, w.limit.lastLimit = false, false
	if m, ok := s.st.Member(w.member); ok && m.Agent != "" {
		// Codex and Gemini take text as `teamctl send` types it (the text,
		// Enter once it shows, again while it is unsent), which waits on
		// their screen: off the loop. Gemini's limit is its quota dialog:
		// answered first (continueAgent).
		s.typeAgent(w.member, m.Agent, typable(lim.Prompt))
	} else if err := s.srv.Type(ctx, w.id, typable(lim.Prompt)); err != nil {
		s.log.Warn("type the continuation", "member", w.member, "err", err)
		s.planResume(w) // the next try, at the backoff
		return
	}
	why := "its limit reset: " + resetText(reset, w.live.ResetShown)
	if reset.IsZero() {
		why = fmt.Sprintf("its reset time is not known: try %d", w.limit.tries)
	}
	s.event(state.Event{Kind: state.EventLimitResume, Member: w.member, Pane: w.id, Reset: reset,
		Detail: "typed " + textsafe.Short(lim.Prompt, 100) + ": " + why})
}

// continueAgent continues member, a Codex or Gemini member of kind, after
// its limit, as a person would, in processes of this teamctl's own (their
// waits on its screen keep off the loop); what went wrong is logged. Codex:
// `teamctl send` of text. Gemini, at its quota dialog: its "Keep trying"
// (the request again, as it was), or where the dialog offers none (it
// offers a switch to another model then, which is the user's to choose)
// its Stop, then text as for Codex.
func (s *daemon) continueAgent(member, kind, text string) {
	if s.o.Teamctl == "" {
		s.log.Warn("type the continuation: teamctl's own path is not known", "member", member)
		return
	}
	run := func(ctx context.Context, args ...string) error {
		out, err := exec.CommandContext(ctx, s.o.Teamctl, append(args, "--team", s.team)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("teamctl %s: %w: %s", args[0], err, textsafe.Short(string(out), 300))
		}
		return nil
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if kind == layouts.AgentGemini {
			if run(ctx, "answer", member, "--option", "Keep trying") == nil {
				return
			}
			if err := run(ctx, "answer", member, "--option", "Stop"); err != nil {
				s.log.Warn("continue after the limit", "member", member, "err", err)
				return
			}
		}
		if err := run(ctx, "send", member, text); err != nil {
			s.log.Warn("type the continuation", "member", member, "err", err)
		}
	}()
}

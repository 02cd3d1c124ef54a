package stallwatch

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// What Claude Code shows when the Messages API refuses it for a usage or
// rate limit (429), as seen on 2.1.328 and 2.1.332 (docs/claude-code.md,
// "Usage and rate limits"), and as its tracker reports it for subscriptions:
//
//   - while it retries by itself, its spinner line: "✻ 5-hour limit reached ·
//     retrying in 4s (5:01am) · attempt 1/10", "✻ Weekly limit reached ·
//     retrying in 3s (Dec 3, 6:59am) · attempt 1/10" (the reset time of the
//     anthropic-ratelimit-unified-reset header, to the minute, in its local
//     time), or without a subscription's headers "✻ 429 This request would
//     exceed your account's rate limit. … · retrying in 3s · attempt 3/10";
//   - once it gave up, above its input box: "● API Error: Request rejected
//     (429) · This request would exceed your account's rate limit. Please try
//     again later." (no reset time);
//   - for a subscription (not seen here: reported): "You've hit your limit ·
//     resets 2pm (America/Toronto)", "You've hit your session limit · resets
//     3am", "Claude usage limit reached. Your limit will reset at 3pm
//     (America/Bogota)".

// Limit is what ReadLimit found: the member is held back by a limit.
type Limit struct {
	Line     string    // the line that says so, trimmed
	Retrying bool      // Claude Code is still retrying by itself (its spinner says so)
	Reset    time.Time // when the limit resets, as shown (to the minute); zero when not shown
	Shown    string    // the reset time as the screen shows it ("5:01am", "Dec 3, 6:59am")
}

var (
	// A line saying a limit holds the member back is in one of Claude
	// Code's own forms, so that a model's answer about limits is not one:
	// its retry spinner naming a limit, its API error of a 429, or a
	// subscription's banner with the reset.
	limitRetry  = regexp.MustCompile(`(?i)(\blimit reached\b|\b429\b|rate limit).*· retrying in \d+`)
	limitError  = regexp.MustCompile(`(?i)^\W*API Error\b.*(\(429\)|rate limit|rate_limit)`)
	limitBanner = regexp.MustCompile(`(?i)(hit your (\w+ )*limit|limit reached|usage limit).*\b(resets?|will reset)\b`)
	// notALimit: limits that no wait lifts ("Context limit reached ·
	// /compact or /clear to continue").
	notALimit = regexp.MustCompile(`(?i)context (window )?limit|too long`)
	// retryingIn: Claude Code's own retry spinner.
	retryingIn = regexp.MustCompile(`(?i)retrying in \d+`)
	// resetTime is the reset time after "resets", "reset at", or in the
	// retry spinner's brackets: "3am", "2:30pm", "Dec 3, 6:59am",
	// "Jan 2, 2027, 3am", each maybe followed by "(Zone/Name)".
	resetTime = regexp.MustCompile(`(?i)(?:\bresets?(?: at)?|retrying in \d+s \()\s*` +
		`((?:(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* (\d{1,2}),? (?:(\d{4}),? )?(?:at )?)?` +
		`(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\.?)` +
		`(?:\)?\s*\(([A-Za-z_]+(?:/[A-Za-z_+\-0-9]+)*)\))?`)
)

// resetPassed is how long ago a reset time without a date may be and still
// be today's (passed) rather than tomorrow's.
const resetPassed = 30 * time.Minute

// limitLookUp is how many non-blank lines above Claude Code's input box ReadLimit
// reads: the last message or the spinner line are right above it.
const limitLookUp = 8

// ReadLimit reads a screen of Claude Code (or Codex, Gemini: agents_limit.go)
// for a usage or rate limit: the
// lines right above its input box (the spinner while it retries, the last
// message once it gave up), back to the prompt typed last; a limit quoted
// further up the conversation is not one now. now is when the screen was
// seen, loc the member's time zone (a zone the screen names wins): a time
// without a date is the next one at or after now's minute (across midnight
// to tomorrow), as Claude Code shows a reset within 24 hours, unless it is
// at most resetPassed before now (a reset just passed, still on screen);
// one with a date is that date. ok is false when the screen shows no limit.
func ReadLimit(screen string, now time.Time, loc *time.Location) (Limit, bool) {
	if strings.ContainsRune(screen, 0x1b) || strings.ContainsRune(screen, '\r') {
		screen = Strip([]byte(screen))
	}
	lines := strings.Split(screen, "\n")
	top := inputBoxTop(lines)
	if top < 0 {
		return readAgentLimit(lines, now, loc)
	}
	read := 0
	for i := top - 1; i >= 0 && read < limitLookUp; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue // a tall pane keeps the box at its bottom, the conversation at its top
		}
		read++
		if strings.HasPrefix(t, "❯ ") || strings.HasPrefix(t, "> ") {
			break // the prompt typed last: what is above is older
		}
		if !isLimitLine(t) {
			continue
		}
		l := Limit{Line: t, Retrying: retryingIn.MatchString(t)}
		l.Reset, l.Shown = parseReset(t, now, loc)
		return l, true
	}
	return Limit{}, false
}

func isLimitLine(t string) bool {
	if notALimit.MatchString(t) {
		return false
	}
	return limitRetry.MatchString(t) || limitError.MatchString(t) || limitBanner.MatchString(t)
}

// inputBoxTop is the index of the rule above Claude Code's input box (a
// rule, a line starting with "❯", a rule), the lowest on the screen; -1
// when there is none.
func inputBoxTop(lines []string) int {
	for i := len(lines) - 1; i >= 2; i-- {
		if isRule(lines[i]) && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "❯") && isRule(lines[i-2]) {
			return i - 2
		}
	}
	return -1
}

var months = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// parseReset reads the reset time in line (zero when there is none, or it
// is no time: "13pm").
func parseReset(line string, now time.Time, loc *time.Location) (time.Time, string) {
	m := resetTime.FindStringSubmatchIndex(line)
	if m == nil {
		return time.Time{}, ""
	}
	group := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return line[m[2*i]:m[2*i+1]]
	}
	if loc == nil {
		loc = time.Local
	}
	if z := group(8); z != "" {
		if zl, err := time.LoadLocation(z); err == nil {
			loc = zl
		}
	}
	hour, _ := strconv.Atoi(group(5))
	minute := 0
	if s := group(6); s != "" {
		minute, _ = strconv.Atoi(s)
	}
	if hour < 1 || hour > 12 || minute > 59 {
		return time.Time{}, ""
	}
	hour %= 12
	if strings.EqualFold(group(7), "p") {
		hour += 12
	}
	shown := group(1)
	now = now.In(loc)
	if mon := group(2); mon != "" {
		day, _ := strconv.Atoi(group(3))
		year := now.Year()
		if y := group(4); y != "" {
			year, _ = strconv.Atoi(y)
		}
		t := time.Date(year, months[strings.ToLower(mon[:3])], day, hour, minute, 0, 0, loc)
		if t.Day() != day {
			return time.Time{}, "" // Feb 30
		}
		if group(4) == "" && t.Before(now.AddDate(0, -6, 0)) {
			t = t.AddDate(1, 0, 0) // "Jan 2" seen on Dec 30: next year's (Claude Code names the year only when it is not this one)
		}
		return t, shown
	}
	// Claude Code shows a time without a date only within 24 hours ahead:
	// it is the first at that time of day from resetPassed before now (a
	// reset just passed is still in the retry spinner that waited for it),
	// yesterday's, today's or tomorrow's.
	from := now.Truncate(time.Minute).Add(-resetPassed)
	for d := -1; d <= 1; d++ {
		t := time.Date(now.Year(), now.Month(), now.Day()+d, hour, minute, 0, 0, loc)
		if !t.Before(from) {
			return t, shown
		}
	}
	return time.Time{}, ""
}

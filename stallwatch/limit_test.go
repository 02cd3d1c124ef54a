package stallwatch

import (
	"strings"
	"testing"
	"time"
)

// TestReadLimit reads the limit screens captured from the real Claude Code
// (2.1.328 and 2.1.332 against the fake Messages API answering 429, in a UTC
// pane: testdata/claude-*-limit-*.txt) and the subscription banners its
// tracker reports, with the reset time in the member's zone.
func TestReadLimit(t *testing.T) {
	utc := time.UTC
	toronto, err := time.LoadLocation("America/Toronto")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	seen := time.Date(2026, 12, 2, 4, 55, 20, 0, utc) // when the 5-hour screens were taken
	box := "\n────────\n❯\u00a0\n────────\n  ⏵⏵ auto mode on (shift+tab to cycle)\n"
	at := func(y int, mo time.Month, d, h, mi int, loc *time.Location) time.Time {
		return time.Date(y, mo, d, h, mi, 0, 0, loc)
	}
	for _, c := range []struct {
		name     string
		screen   string
		now      time.Time
		loc      *time.Location
		ok       bool
		retrying bool
		reset    time.Time // zero: none shown
		shown    string
	}{
		{"2.1.328 retrying, 5-hour", screenFile(t, "claude-2.1.328-limit-retrying.txt"), seen, utc, true, true, at(2026, 12, 2, 4, 56, utc), "4:56am"},
		{"2.1.332 retrying, 5-hour", screenFile(t, "claude-2.1.332-limit-retrying.txt"), seen, utc, true, true, at(2026, 12, 2, 4, 56, utc), "4:56am"},
		{"2.1.328 retrying, weekly with a date", screenFile(t, "claude-2.1.328-limit-weekly-retrying.txt"), seen, utc, true, true, at(2026, 12, 3, 6, 59, utc), "Dec 3, 6:59am"},
		{"2.1.332 retrying, weekly with a date", screenFile(t, "claude-2.1.332-limit-weekly-retrying.txt"), seen, utc, true, true, at(2026, 12, 3, 6, 59, utc), "Dec 3, 6:59am"},
		{"2.1.328 gave up", screenFile(t, "claude-2.1.328-limit-gave-up.txt"), seen, utc, true, false, time.Time{}, ""},
		{"2.1.332 gave up", screenFile(t, "claude-2.1.332-limit-gave-up.txt"), seen, utc, true, false, time.Time{}, ""},
		{"2.1.328 rate limit without a subscription's headers", screenFile(t, "claude-2.1.328-ratelimit-retrying.txt"), seen, utc, true, true, time.Time{}, ""},
		// The minute shown is now's: the reset falls within it, today.
		{"reset within this minute", "✻ 5-hour limit reached · retrying in 4s (4:55am) · attempt 1/10" + box, seen, utc, true, true, at(2026, 12, 2, 4, 55, utc), "4:55am"},
		// Across midnight: 11:58pm, a reset at 12:30am is tomorrow's.
		{"across midnight", "● You've hit your limit · resets 12:30am" + box, at(2026, 12, 31, 23, 58, utc), utc, true, false, at(2027, 1, 1, 0, 30, utc), "12:30am"},
		{"a reset just passed, still in the spinner, is today's", "✻ 5-hour limit reached · retrying in 1s (8:58am) · attempt 1/1" + box, at(2026, 12, 2, 9, 0, utc), utc, true, true, at(2026, 12, 2, 8, 58, utc), "8:58am"},
		{"across midnight, passed", "✻ 5-hour limit reached · retrying in 1s (11:59pm) · attempt 1/1" + box, at(2026, 12, 3, 0, 1, utc), utc, true, true, at(2026, 12, 2, 23, 59, utc), "11:59pm"},
		{"earlier time is tomorrow's", "● You've hit your session limit · resets 3am" + box, at(2026, 12, 2, 9, 0, utc), utc, true, false, at(2026, 12, 3, 3, 0, utc), "3am"},
		{"noon", "● You've hit your limit · resets 12pm" + box, at(2026, 12, 2, 9, 0, utc), utc, true, false, at(2026, 12, 2, 12, 0, utc), "12pm"},
		{"in the member's zone", "● You've hit your limit · resets 2:30pm" + box, at(2026, 12, 2, 12, 0, toronto), toronto, true, false, at(2026, 12, 2, 14, 30, toronto), "2:30pm"},
		{"a zone the screen names wins", "● You've hit your limit · resets 2pm (America/Toronto)" + box, at(2026, 12, 2, 12, 0, utc), kolkata, true, false, at(2026, 12, 2, 14, 0, toronto), "2pm"},
		{"an unknown zone is the member's", "● You've hit your limit · resets 2pm (Mars/Olympus)" + box, at(2026, 12, 2, 12, 0, utc), utc, true, false, at(2026, 12, 2, 14, 0, utc), "2pm"},
		{"older banner", "● Claude usage limit reached. Your limit will reset at 3pm (America/Bogota)." + box, at(2026, 6, 14, 17, 0, utc), utc, true, false, at(2026, 6, 14, 15, 0, mustZone(t, "America/Bogota")), "3pm"},
		{"subscription banner with a bullet", "  5-hour limit reached ∙ resets 3am" + box, at(2026, 12, 2, 1, 0, utc), utc, true, false, at(2026, 12, 2, 3, 0, utc), "3am"},
		{"date of next year", "● Weekly limit reached · resets Jan 2, 5am" + box, at(2026, 12, 30, 10, 0, utc), utc, true, false, at(2027, 1, 2, 5, 0, utc), "Jan 2, 5am"},
		{"date with its year", "● Weekly limit reached · resets Jan 2, 2027, 5:15pm" + box, at(2026, 12, 30, 10, 0, utc), utc, true, false, at(2027, 1, 2, 17, 15, utc), "Jan 2, 2027, 5:15pm"},
		{"no such hour", "● You've hit your limit · resets 13pm" + box, seen, utc, true, false, time.Time{}, ""},
		{"no such day", "● Weekly limit reached · resets Feb 30, 5am" + box, seen, utc, true, false, time.Time{}, ""},
		// Not limits.
		{"idle after an answer", screenFile(t, "claude-2.1.332-idle.txt"), seen, utc, false, false, time.Time{}, ""},
		{"working", screenFile(t, "claude-working.txt"), seen, utc, false, false, time.Time{}, ""},
		{"a dialog", screenFile(t, "claude-2.1.332-permission.txt"), seen, utc, false, false, time.Time{}, ""},
		{"limit answered, then continued", "● API Error: Request rejected (429) · rate limit\n\n❯ continue\n\n● ok, continuing" + box, seen, utc, false, false, time.Time{}, ""},
		{"limit quoted by the model further up", "● the log said: 5-hour limit reached\n" + strings.Repeat("● more\n", 10) + box, seen, utc, false, false, time.Time{}, ""},
		{"context limit is no usage limit", "● Context limit reached · /compact or /clear to continue" + box, seen, utc, false, false, time.Time{}, ""},
		{"generic API error retry", "✻ API error · retrying in 3s · attempt 1/10" + box, seen, utc, false, false, time.Time{}, ""},
		{"a model's answer about a limit", "● Done: the retry limit reached its maximum, and the API answered (429) once." + box, seen, utc, false, false, time.Time{}, ""},
		{"a model's answer quoting an API error", "● The log says: API Error 429 from the upstream." + box, seen, utc, false, false, time.Time{}, ""},
		{"no input box", "5-hour limit reached · resets 3am\n", seen, utc, false, false, time.Time{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, ok := ReadLimit(c.screen, c.now, c.loc)
			if ok != c.ok || l.Retrying != c.retrying || !l.Reset.Equal(c.reset) || l.Shown != c.shown {
				t.Errorf("got %v %+v, want ok %v retrying %v reset %v shown %q", ok, l, c.ok, c.retrying, c.reset, c.shown)
			}
			if ok && l.Line == "" {
				t.Error("no line")
			}
		})
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Skip(err)
	}
	return l
}

func FuzzReadLimit(f *testing.F) {
	f.Add("● You've hit your limit · resets Jan 2, 2027, 5:15pm (America/Toronto)\n──\n❯ \n──")
	f.Add("✻ 5-hour limit reached · retrying in 4s (4:55am) · attempt 1/10\n──\n❯ \n──")
	now := time.Date(2026, 12, 2, 4, 55, 20, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := ReadLimit(s, now, time.UTC)
		if ok && !l.Reset.IsZero() && (l.Reset.Before(now.Add(-370*24*time.Hour)) || l.Reset.After(now.Add(3*370*24*time.Hour))) {
			t.Fatalf("reset %v far from now", l.Reset)
		}
	})
}

package stallwatch

import (
	"regexp"
	"strings"
	"time"
)

// The usage-limit screens of Codex 0.171.0 and Gemini CLI 0.61.0, each
// shown against the fake APIs' 429 (docs/codex.md, docs/gemini.md):
//
//   - Codex, above its composer once the turn failed, wrapped over lines:
//     "■ You’ve hit your usage limit. Upgrade to Pro (…), visit … to purchase
//     more credits or try again at 1:30 AM." — a reset more than a day ahead
//     with its date: "try again at Dec 8th, 2026 3:00 AM." (local time).
//   - Gemini, a dialog in a box: "Usage limit reached for all Pro models.",
//     "Access resets at 2:04 AM UTC." (when the API gave a retry delay),
//     then "1. Keep trying" or "1. Switch to <model>", and "2. Stop". Once
//     answered, nothing of it stays on the screen.

var (
	codexLimit   = regexp.MustCompile(`(?i)^■ You.ve hit your usage limit\b`)
	codexAgain   = regexp.MustCompile(`(?i)\btry again at (.+?)\.?$`)
	geminiLimit  = regexp.MustCompile(`^(Usage limit reached for |We are currently experiencing high demand for )`)
	geminiResets = regexp.MustCompile(`^Access resets at (.+?)\.?$`)
	ordinal      = regexp.MustCompile(`\b(\d{1,2})(st|nd|rd|th)\b`)
	zoneAbbrev   = regexp.MustCompile(`\s(UTC|GMT)$`)
	// codexMarks start Codex's transcript entries; a line without one
	// continues the entry above (Codex wraps its text itself).
	codexMarks = []string{"› ", "■ ", "• ", "✗ ", "└ ", "⚠ "}
)

// readAgentLimit is ReadLimit for the screens of Codex and Gemini.
func readAgentLimit(lines []string, now time.Time, loc *time.Location) (Limit, bool) {
	last := lastNonBlank(lines)
	if last < 0 {
		return Limit{}, false
	}
	if l, ok := readGeminiLimit(lines, last, now, loc); ok {
		return l, true
	}
	return readCodexLimit(lines, last, now, loc)
}

// readGeminiLimit reads Gemini's quota dialog at the bottom of the screen.
func readGeminiLimit(lines []string, last int, now time.Time, loc *time.Location) (Limit, bool) {
	from := max(0, last-tailLines)
	if _, ok := readGeminiMenu(lines, from, last); !ok {
		return Limit{}, false
	}
	for i := from; i <= last; i++ {
		t := unbox(lines[i])
		if !geminiLimit.MatchString(t) {
			continue
		}
		l := Limit{Line: t}
		for j := i + 1; j <= min(last, i+3); j++ {
			if m := geminiResets.FindStringSubmatch(unbox(lines[j])); m != nil {
				l.Shown = m[1]
				l.Reset, _ = parseReset("resets "+zoneAbbrev.ReplaceAllString(m[1], " ($1)"), now, loc)
			}
		}
		return l, true
	}
	return Limit{}, false
}

// readCodexLimit reads Codex's limit message right above its composer, back
// to the prompt typed last.
func readCodexLimit(lines []string, last int, now time.Time, loc *time.Location) (Limit, bool) {
	composer := -1
	for i := last; i >= max(0, last-4); i-- {
		if strings.HasPrefix(lines[i], "› ") {
			composer = i
			break
		}
	}
	if composer < 0 || !isAgentIdle(lines, last) {
		return Limit{}, false
	}
	var entry []string // the lines of one entry, bottom up
	read := 0
	for i := composer - 1; i >= 0 && read < limitLookUp; i-- {
		t := strings.TrimRight(lines[i], " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		read++
		if strings.HasPrefix(t, "› ") {
			break // the prompt typed last
		}
		entry = append(entry, strings.TrimSpace(t))
		marked := false
		for _, m := range codexMarks {
			marked = marked || strings.HasPrefix(t, m)
		}
		if !marked {
			continue
		}
		var b strings.Builder
		for k := len(entry) - 1; k >= 0; k-- {
			b.WriteString(entry[k])
			if k > 0 && !strings.HasSuffix(entry[k], "/") {
				b.WriteString(" ") // a wrapped word; a URL wraps without one
			}
		}
		entry = entry[:0]
		line := b.String()
		if !codexLimit.MatchString(line) {
			continue
		}
		l := Limit{Line: line}
		if m := codexAgain.FindStringSubmatch(line); m != nil {
			l.Shown = m[1]
			l.Reset, _ = parseReset("resets "+ordinal.ReplaceAllString(m[1], "$1"), now, loc)
		}
		return l, true
	}
	return Limit{}, false
}

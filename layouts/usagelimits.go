package layouts

import (
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

// UsageLimits says what the supervisor does when a member is held back by
// a usage or rate limit: the `limits:` mapping.
type UsageLimits struct {
	// Resume: type Prompt into the member once its limit reset (plus
	// Margin), once per limit; at a capped backoff when the reset time is
	// not known.
	Resume bool
	Margin time.Duration
	Prompt string
}

// Usage limits' defaults and bounds.
const (
	DefaultLimitMargin = 15 * time.Second
	DefaultLimitPrompt = "continue"
	maxLimitMargin     = time.Hour
	maxLimitPrompt     = 1000
)

// usageLimits reads the limits: mapping, which may be absent.
func (w *walker) usageLimits(n *yaml.Node) UsageLimits {
	u := UsageLimits{Margin: DefaultLimitMargin, Prompt: DefaultLimitPrompt}
	if n == nil || !w.isMapping(n, "limits") {
		return u
	}
	f := w.fields(n, "limits", usageLimitKeys)
	u.Resume = w.boolean(f.get("resume"), "limits.resume")
	if v := f.get("margin"); v != nil {
		if s, ok := w.text(v, "limits.margin"); ok {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 || d > maxLimitMargin {
				w.add(v, "limits.margin", "must be a duration like 15s or 1m, between 0s and 1h (got %q)", s)
			} else {
				u.Margin = d
			}
		}
	}
	if v := f.get("prompt"); v != nil {
		if s, ok := w.text(v, "limits.prompt"); ok {
			switch {
			case strings.TrimSpace(s) == "":
				w.add(v, "limits.prompt", "must not be empty")
			case len([]rune(s)) > maxLimitPrompt:
				w.add(v, "limits.prompt", "is %d characters; at most %d", len([]rune(s)), maxLimitPrompt)
			case strings.ContainsFunc(s, unicode.IsControl):
				w.add(v, "limits.prompt", "must be one line of text, without control characters (it is typed into the member, then Enter)")
			default:
				u.Prompt = s
			}
		}
	}
	return u
}

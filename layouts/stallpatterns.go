package layouts

import "github.com/teamctl/teamctl/stallwatch"

// StallPatterns are what the watchdog looks for: the layout's own patterns
// first, then stallwatch's defaults they do not replace (by name).
func (w Watchdog) StallPatterns() []stallwatch.Pattern {
	var out []stallwatch.Pattern
	own := map[string]bool{}
	for _, p := range w.Patterns {
		cp, err := stallwatch.Compile(p.Name, p.Regex, stallwatch.Scope(p.Scope))
		if err == nil {
			out = append(out, cp)
			own[p.Name] = true
		}
	}
	if w.Defaults {
		for _, p := range stallwatch.DefaultPatterns() {
			if !own[p.Name] {
				out = append(out, p)
			}
		}
	}
	return out
}

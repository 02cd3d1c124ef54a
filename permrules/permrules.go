// Package permrules matches a Claude Code tool call against permission rules in
// Claude Code's own syntax — `Bash(git status:*)`, `Read`, `Edit(src/**)` — so
// the supervisor can answer a teammate's permission request by rule. Deny rules
// win over allow rules; a call no rule matches waits for a person.
package permrules

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
)

// Rule is one parsed rule: a tool name and an optional pattern.
type Rule struct {
	Text    string // as written, for events
	Tool    string
	Pattern string // "" matches every call of Tool
}

var ruleRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)(?:\((.+)\))?$`)

// Parse reads a rule as written in a layout; ok is false when it is not one.
func Parse(text string) (Rule, bool) {
	m := ruleRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return Rule{}, false
	}
	return Rule{Text: text, Tool: m[1], Pattern: m[2]}, true
}

// Call is a tool call awaiting permission.
type Call struct {
	Tool  string
	Input json.RawMessage
	Cwd   string // the member's folder, for relative path patterns
}

// Decision is what the rules say about a call.
type Decision int

const (
	// Ask: no rule matched; a person decides.
	Ask Decision = iota
	// Allow: an allow rule matched and no deny rule did.
	Allow
	// Deny: a deny rule matched.
	Deny
)

// Decide applies deny rules first, then allow rules, and returns the rule that
// decided (zero Rule for Ask).
func Decide(c Call, allow, deny []Rule) (Decision, Rule) {
	for _, r := range deny {
		if r.Matches(c) {
			return Deny, r
		}
	}
	for _, r := range allow {
		if r.Matches(c) {
			return Allow, r
		}
	}
	return Ask, Rule{}
}

// Matches reports whether the rule covers the call.
func (r Rule) Matches(c Call) bool {
	if r.Tool != c.Tool {
		return false
	}
	if r.Pattern == "" {
		return true
	}
	var in map[string]any
	json.Unmarshal(c.Input, &in)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := in[k].(string); ok {
				return s
			}
		}
		return ""
	}
	switch c.Tool {
	case "Bash":
		return matchCommand(r.Pattern, strings.TrimSpace(str("command")))
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep":
		p := str("file_path", "notebook_path", "path")
		return p != "" && matchPath(r.Pattern, p, c.Cwd)
	case "WebFetch":
		if d, ok := strings.CutPrefix(r.Pattern, "domain:"); ok {
			return matchDomain(d, str("url"))
		}
	}
	return glob(r.Pattern, str("command", "file_path", "path", "url", "pattern", "query"))
}

// matchCommand: "cmd:*" matches cmd and anything after it (a prefix at a word
// boundary); a pattern without ":*" matches the command exactly, or as a glob.
func matchCommand(pattern, cmd string) bool {
	if prefix, ok := strings.CutSuffix(pattern, ":*"); ok {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	return cmd == pattern || (strings.ContainsAny(pattern, "*?") && glob(pattern, cmd))
}

// matchPath matches a gitignore-style pattern against the file, relative to the
// member's folder when the file is inside it.
func matchPath(pattern, file, cwd string) bool {
	if cwd != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(cwd, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	pattern = strings.TrimPrefix(pattern, "./")
	return glob(pattern, file)
}

func matchDomain(domain, url string) bool {
	rest, ok := strings.CutPrefix(url, "https://")
	if !ok {
		rest, _ = strings.CutPrefix(url, "http://")
	}
	host, _, _ := strings.Cut(rest, "/")
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// glob matches s against pattern: "**" any characters, "*" any but "/", "?" one.
func glob(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

// Package permrules matches a Claude Code tool call against permission rules in
// Claude Code's own syntax — `Bash(git status:*)`, `Read`, `Edit(src/**)` — so
// the supervisor can answer a teammate's permission request by rule. Deny rules
// win over allow rules; a call no rule matches, or one the rules cannot be
// matched against with certainty, waits for a person. It does no I/O: what it
// knows of the member (folder, home) comes in the Call.
package permrules

import (
	"encoding/json"
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
	Home  string // the member's home folder, for ~/ path patterns
}

// Decision is what the rules say about a call.
type Decision int

const (
	// Ask: no rule decides; a person does.
	Ask Decision = iota
	// Allow: allow rules cover the whole call and no deny rule matches.
	Allow
	// Deny: a deny rule matches.
	Deny
)

// Decide applies deny rules first, then allow rules, and returns the rule that
// decided (zero Rule for Ask). A Bash command is allowed only when every
// simple command in it is, possibly by different rules: the returned Rule then
// names them all in its Text ("Bash(a:*) and Bash(b)"). Anything the rules
// cannot be matched against with certainty is Ask, unless a deny rule clearly
// matches.
func Decide(c Call, allow, deny []Rule) (Decision, Rule) {
	var in map[string]any
	inOK := json.Unmarshal(c.Input, &in) == nil
	if c.Tool == "Bash" {
		return decideBash(c, in, allow, deny)
	}
	doubt := !inOK
	for _, r := range deny {
		if !covers(r.Tool, c.Tool, true) {
			continue
		}
		switch r.match(c, in, true) {
		case yes:
			return Deny, r
		case unsure:
			doubt = true
		}
	}
	if doubt {
		return Ask, Rule{}
	}
	for _, r := range allow {
		if r.Tool == c.Tool && r.match(c, in, false) == yes {
			return Allow, r
		}
	}
	return Ask, Rule{}
}

// match matches a rule against a call of a tool other than Bash.
func (r Rule) match(c Call, in map[string]any, deny bool) tri {
	if r.Pattern == "" {
		return yes
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := in[k].(string); ok {
				return s
			}
		}
		return ""
	}
	switch {
	case fileTools[c.Tool]:
		file, ok := callPath(c, in)
		if !ok {
			return unsure
		}
		return matchFile(r.Pattern, file, c, deny, c.Tool == "Glob" || c.Tool == "Grep")
	case c.Tool == "WebFetch":
		return matchDomain(r.Pattern, str("url"))
	}
	// Other tools (WebSearch, Agent, MCP tools…): the pattern as a glob of
	// the call's main field.
	if glob(r.Pattern, str("command", "file_path", "path", "url", "pattern", "query")) {
		return yes
	}
	return no
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
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

package layouts

import (
	"regexp"

	"gopkg.in/yaml.v3"
)

// ruleRE is a Claude Code permission rule: a tool name, optionally followed by
// a pattern in parentheses, e.g. Bash(git status:*), Read or Edit(src/**).
var ruleRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)(\((.*)\))?$`)

// permissions reads a permissions: mapping at path (the team's, the lead's or
// a member's), which may be absent.
func (w *walker) permissions(n *yaml.Node, path string) Permissions {
	var p Permissions
	if n == nil || !w.isMapping(n, path) {
		return p
	}
	f := w.fields(n, path, permissionsKeys)
	p.Allow = w.rules(f.get("allow"), join(path, "allow"))
	p.Deny = w.rules(f.get("deny"), join(path, "deny"))
	return p
}

// rules returns the valid rules of list n, reporting each invalid one.
func (w *walker) rules(n *yaml.Node, path string) []Rule {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		w.add(n, path, "must be a list of strings")
		return nil
	}
	var rules []Rule
	for i, item := range n.Content {
		item, p := w.resolve(item), index(path, i)
		if isNull(item) {
			w.add(item, p, "must be a string")
			continue
		}
		s, ok := w.text(item, p)
		if !ok {
			continue
		}
		m := ruleRE.FindStringSubmatch(s)
		if m == nil || (m[2] != "" && m[3] == "") {
			w.add(item, p, "invalid rule %q: want Tool or Tool(pattern), e.g. Bash(git status:*), Read, Edit(src/**)", s)
			continue
		}
		rules = append(rules, Rule{Text: s, Tool: m[1], Pattern: m[3], Line: item.Line, Column: item.Column})
	}
	return rules
}

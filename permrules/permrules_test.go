package permrules

import (
	"encoding/json"
	"testing"
)

func call(tool string, input map[string]any) Call {
	b, _ := json.Marshal(input)
	return Call{Tool: tool, Input: b, Cwd: "/work"}
}

func rules(texts ...string) []Rule {
	var out []Rule
	for _, t := range texts {
		r, ok := Parse(t)
		if !ok {
			panic(t)
		}
		out = append(out, r)
	}
	return out
}

func TestDecide(t *testing.T) {
	allow := rules("Bash(git status:*)", "Read", "Edit(src/**)", "WebFetch(domain:example.com)", "Bash(make test)")
	deny := rules("Bash(rm:*)", "Edit(src/secrets/**)")
	for _, c := range []struct {
		name string
		call Call
		want Decision
		rule string
	}{
		{"prefix rule", call("Bash", map[string]any{"command": "git status --short"}), Allow, "Bash(git status:*)"},
		{"prefix rule, exact", call("Bash", map[string]any{"command": "git status"}), Allow, "Bash(git status:*)"},
		{"prefix is a word", call("Bash", map[string]any{"command": "git statusx"}), Ask, ""},
		{"exact rule", call("Bash", map[string]any{"command": "make test"}), Allow, "Bash(make test)"},
		{"exact rule, more args", call("Bash", map[string]any{"command": "make test all"}), Ask, ""},
		{"deny wins", call("Bash", map[string]any{"command": "rm -rf build"}), Deny, "Bash(rm:*)"},
		{"tool without pattern", call("Read", map[string]any{"file_path": "/etc/passwd"}), Allow, "Read"},
		{"path glob", call("Edit", map[string]any{"file_path": "/work/src/a/b.go"}), Allow, "Edit(src/**)"},
		{"path deny inside allow", call("Edit", map[string]any{"file_path": "/work/src/secrets/k.pem"}), Deny, "Edit(src/secrets/**)"},
		{"path outside", call("Edit", map[string]any{"file_path": "/work/docs/a.md"}), Ask, ""},
		{"other tool", call("Write", map[string]any{"file_path": "/work/src/a.go"}), Ask, ""},
		{"domain", call("WebFetch", map[string]any{"url": "https://docs.example.com/x"}), Allow, "WebFetch(domain:example.com)"},
		{"other domain", call("WebFetch", map[string]any{"url": "https://example.org/x"}), Ask, ""},
	} {
		got, r := Decide(c.call, allow, deny)
		if got != c.want || r.Text != c.rule {
			t.Errorf("%s: got %v by %q, want %v by %q", c.name, got, r.Text, c.want, c.rule)
		}
	}
}

func TestParse(t *testing.T) {
	for text, want := range map[string]Rule{
		"Read":               {Tool: "Read"},
		"Bash(git status:*)": {Tool: "Bash", Pattern: "git status:*"},
		"mcp__srv__tool":     {Tool: "mcp__srv__tool"},
	} {
		got, ok := Parse(text)
		if !ok || got.Tool != want.Tool || got.Pattern != want.Pattern {
			t.Errorf("Parse(%q) = %+v %v", text, got, ok)
		}
	}
	for _, bad := range []string{"", "Bash()", "(x)", "Bash(x", "1Read"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

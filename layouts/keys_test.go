package layouts

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/configs"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"team", "team", 0},
		{"permisionMode", "permissionMode", 1},
		{"modle", "model", 1}, // a swap is one edit
		{"foo", "root", 2},
		{"", "env", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct{ word, want string }{
		{"permisionMode", `; did you mean "permissionMode"?`},
		{"Team", `; did you mean "team"?`},
		{"memebrs", `; did you mean "members"?`},
		{"foo", ""}, // two edits from "root", but too short to be a typo of it
		{"workers", ""},
	}
	known := slices.Concat(topKeys, memberKeys)
	for _, tt := range tests {
		if got := didYouMean(tt.word, known); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

// schemaObject is the part of a JSON Schema object the sync test reads.
type schemaObject struct {
	Properties map[string]struct {
		Enum []string `json:"enum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// TestSchemaInSync checks that configs/layout.schema.json knows the same keys
// and choices as the parser, so editors and teamctl agree on what is valid.
func TestSchemaInSync(t *testing.T) {
	var schema struct {
		schemaObject
		Defs map[string]schemaObject `json:"$defs"`
	}
	if err := json.Unmarshal(configs.Schema, &schema); err != nil {
		t.Fatalf("layout.schema.json is not valid JSON: %v", err)
	}
	claude := schemaObject{}
	if err := json.Unmarshal(mustSub(t, configs.Schema, "properties", "claude"), &claude); err != nil {
		t.Fatal(err)
	}
	limits := schemaObject{}
	if err := json.Unmarshal(mustSub(t, configs.Schema, "properties", "limits"), &limits); err != nil {
		t.Fatal(err)
	}
	without := func(keys []string, drop string) []string {
		return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == drop })
	}
	keyChecks := []struct {
		what string
		obj  schemaObject
		want []string
	}{
		{"top level", schema.schemaObject, topKeys},
		{"claude", claude, claudeKeys},
		{"limits", limits, usageLimitKeys},
		{"$defs.lead", schema.Defs["lead"], without(memberKeys, "command")},
		{"$defs.member", schema.Defs["member"], without(memberKeys, "teammateMode")},
		{"$defs.permissions", schema.Defs["permissions"], permissionsKeys},
		{"$defs.watchdog", schema.Defs["watchdog"], watchdogKeys},
		{"$defs.watchPattern", schema.Defs["watchPattern"], watchPatternKeys},
		{"$defs.notify", schema.Defs["notify"], notifyKeys},
		{"$defs.answer", schema.Defs["answer"], answerKeys},
	}
	for _, c := range keyChecks {
		got := make([]string, 0, len(c.obj.Properties))
		for k := range c.obj.Properties {
			got = append(got, k)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("schema %s properties = %v, parser keys = %v", c.what, got, want)
		}
	}
	requiredChecks := []struct {
		what      string
		got, want []string
	}{
		{"top level", schema.Required, []string{"team"}},
		{"$defs.member", schema.Defs["member"].Required, []string{"name"}},
		{"$defs.watchPattern", schema.Defs["watchPattern"].Required, []string{"name", "regex"}},
		{"$defs.answer", schema.Defs["answer"].Required, []string{"pattern"}},
	}
	for _, c := range requiredChecks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("schema %s required = %v, want %v", c.what, c.got, c.want)
		}
	}
	// The sub-schemas checked above must be the ones in use.
	refChecks := []struct {
		at   []string
		want string
	}{
		{[]string{"properties", "permissions"}, "#/$defs/permissions"},
		{[]string{"$defs", "lead", "properties", "permissions"}, "#/$defs/permissions"},
		{[]string{"$defs", "member", "properties", "permissions"}, "#/$defs/permissions"},
		{[]string{"$defs", "permissions", "properties", "allow", "items"}, "#/$defs/rule"},
		{[]string{"$defs", "permissions", "properties", "deny", "items"}, "#/$defs/rule"},
		{[]string{"properties", "watchdog"}, "#/$defs/watchdog"},
		{[]string{"$defs", "watchdog", "properties", "patterns", "items"}, "#/$defs/watchPattern"},
		{[]string{"$defs", "watchdog", "properties", "notify"}, "#/$defs/notify"},
		{[]string{"$defs", "watchdog", "properties", "answer", "items"}, "#/$defs/answer"},
	}
	for _, c := range refChecks {
		var ref struct {
			Ref string `json:"$ref"`
		}
		if err := json.Unmarshal(mustSub(t, configs.Schema, c.at...), &ref); err != nil || ref.Ref != c.want {
			t.Errorf("schema %v: $ref = %q (%v), want %q", c.at, ref.Ref, err, c.want)
		}
	}

	enumChecks := []struct {
		what string
		got  []string
		want []string
	}{
		{"layout", schema.Properties["layout"].Enum, Arrangements},
		{"member color", schema.Defs["member"].Properties["color"].Enum, Colors},
		{"lead color", schema.Defs["lead"].Properties["color"].Enum, Colors},
		{"member permissionMode", schema.Defs["member"].Properties["permissionMode"].Enum, PermissionModes},
		{"lead permissionMode", schema.Defs["lead"].Properties["permissionMode"].Enum, PermissionModes},
		{"teammateMode", schema.Defs["lead"].Properties["teammateMode"].Enum, TeammateModes},
		{"member restart", schema.Defs["member"].Properties["restart"].Enum, RestartPolicies},
		{"lead restart", schema.Defs["lead"].Properties["restart"].Enum, RestartPolicies},
		{"pattern scope", schema.Defs["watchPattern"].Properties["scope"].Enum, watchScopes},
	}
	for _, c := range enumChecks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("schema %s enum = %v, parser = %v", c.what, c.got, c.want)
		}
	}
}

// TestSchemaClaudeOnlyKeys checks that the schema forbids the same keys next
// to a member's command as the parser does.
func TestSchemaClaudeOnlyKeys(t *testing.T) {
	var not struct {
		AnyOf []struct {
			Required []string `json:"required"`
		} `json:"anyOf"`
	}
	if err := json.Unmarshal(mustSub(t, configs.Schema, "$defs", "member", "dependentSchemas", "command", "not"), &not); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range not.AnyOf {
		got = append(got, a.Required...)
	}
	if !slices.Equal(got, claudeOnlyKeys) {
		t.Errorf("schema keys forbidden with command = %v, parser = %v", got, claudeOnlyKeys)
	}
}

// TestSchemaRulePattern checks that the schema's pattern for a permission
// rule accepts the rules the parser does.
func TestSchemaRulePattern(t *testing.T) {
	var rule struct {
		Pattern string `json:"pattern"`
	}
	if err := json.Unmarshal(mustSub(t, configs.Schema, "$defs", "rule"), &rule); err != nil {
		t.Fatal(err)
	}
	re, err := regexp.Compile(rule.Pattern)
	if err != nil {
		t.Fatalf("rule pattern: %v", err)
	}
	for _, s := range []string{"Read", "Bash(git status:*)", "Edit(src/**)", "mcp__github", "Web-Fetch(domain:x.org)", "Bash((a))",
		"", "Bash()", "Bash(", "Bash)", "Bash (x)", "1Read", "_Read", "Bash(x)y", "Bash(\n)", "Bash(a\nb)"} {
		m := ruleRE.FindStringSubmatch(s)
		want := m != nil && (m[2] == "" || m[3] != "")
		if got := re.MatchString(s); got != want {
			t.Errorf("rule pattern matches %q: %v, parser: %v", s, got, want)
		}
	}
}

// TestSchemaQuietPattern checks that the schema's pattern for watchdog.quiet
// accepts what time.ParseDuration does and rejects what it does not (the
// range is the parser's alone).
func TestSchemaQuietPattern(t *testing.T) {
	var quiet struct {
		Pattern string `json:"pattern"`
	}
	if err := json.Unmarshal(mustSub(t, configs.Schema, "$defs", "watchdog", "properties", "quiet"), &quiet); err != nil {
		t.Fatal(err)
	}
	re, err := regexp.Compile(quiet.Pattern)
	if err != nil {
		t.Fatalf("quiet pattern: %v", err)
	}
	for _, s := range []string{"2s", "500ms", "1h", "1m30s", "0.5s", ".5s", "1.s", "+2s", "1500us", "1500µs", "2", "s", "2 s", "2S", "-2s", "2sec", "", "1h 30m"} {
		_, perr := time.ParseDuration(s)
		if got, want := re.MatchString(s), perr == nil && !strings.HasPrefix(s, "-"); got != want {
			t.Errorf("quiet pattern matches %q: %v, want %v", s, got, want)
		}
	}
}

// mustSub returns the raw JSON at the given object keys of data.
func mustSub(t *testing.T, data []byte, keys ...string) []byte {
	t.Helper()
	for _, k := range keys {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("schema at %q: %v", k, err)
		}
		data = obj[k]
	}
	return data
}

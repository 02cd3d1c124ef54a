package layouts

import (
	"encoding/json"
	"slices"
	"testing"

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
		{"$defs.lead", schema.Defs["lead"], without(memberKeys, "command")},
		{"$defs.member", schema.Defs["member"], without(memberKeys, "teammateMode")},
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
	if !slices.Equal(schema.Required, []string{"team"}) || !slices.Equal(schema.Defs["member"].Required, []string{"name"}) {
		t.Errorf("schema required keys = %v and %v, want [team] and [name]", schema.Required, schema.Defs["member"].Required)
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
	}
	for _, c := range enumChecks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("schema %s enum = %v, parser = %v", c.what, c.got, c.want)
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

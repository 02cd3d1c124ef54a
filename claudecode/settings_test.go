package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMergeHookSettingsKeepsTheLayoutsOwn(t *testing.T) {
	t.Parallel()
	own := `{
	  "model": "opus",
	  "cleanupPeriodDays": 1.50,
	  "env": {"A": "<b>&"},
	  "hooks": {
	    "Stop": [{"hooks": [{"type": "command", "command": "mine-stop"}]}],
	    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine-pre"}]}]
	  }
	}`
	got, err := MergeHookSettings([]byte(own), "'/bin/teamctl' hook")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, `\u003c`) || !strings.Contains(got, `"cleanupPeriodDays":1.50`) {
		t.Errorf("values not kept as written: %s", got)
	}
	var s struct {
		Model string
		Env   map[string]string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if s.Model != "opus" || s.Env["A"] != "<b>&" {
		t.Errorf("other keys lost: %s", got)
	}
	if pre := s.Hooks["PreToolUse"]; len(pre) != 1 || pre[0].Matcher != "Bash" || pre[0].Hooks[0].Command != "mine-pre" {
		t.Errorf("the layout's own PreToolUse hook changed: %+v", pre)
	}
	for _, ev := range HookEvents {
		list := s.Hooks[ev]
		if len(list) == 0 || list[len(list)-1].Hooks[0].Command != "'/bin/teamctl' hook" || list[len(list)-1].Hooks[0].Type != "command" {
			t.Errorf("%s: teamctl's hook is not last: %+v", ev, list)
		}
	}
	if stop := s.Hooks["Stop"]; len(stop) != 2 || stop[0].Hooks[0].Command != "mine-stop" {
		t.Errorf("Stop: the layout's own hook not kept first: %+v", stop)
	}
}

func TestMergeHookSettingsOfEmptyIsHookSettings(t *testing.T) {
	t.Parallel()
	got, err := MergeHookSettings([]byte(" {} \n"), "x hook")
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal([]byte(got), &a)
	json.Unmarshal([]byte(HookSettings("x hook")), &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("merged into {}:\n%s\nwant\n%s", got, HookSettings("x hook"))
	}
}

func TestMergeHookSettingsRefusesWhatIsNotAnObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{``, "not a JSON object"},
		{`[1]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`"x"`, "not a JSON object"},
		{`{"a":`, "not a JSON object"},
		{`{} {}`, "not a JSON object"},
		{`{"hooks": []}`, `"hooks" is not an object`},
		{`{"hooks": {"Stop": {}}}`, "hooks.Stop is not a list"},
	} {
		_, err := MergeHookSettings([]byte(tc.in), "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("MergeHookSettings(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestSettingsSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"a":1}`), 0o600)
	for _, tc := range []struct {
		value, data, file, err string
	}{
		{` {"inline":true}`, ` {"inline":true}`, "", ""},
		{"s.json", `{"a":1}`, filepath.Join(dir, "s.json"), ""},
		{filepath.Join(dir, "s.json"), `{"a":1}`, filepath.Join(dir, "s.json"), ""},
		{"missing.json", "", filepath.Join(dir, "missing.json"), "no such file"},
		{"", "", "", "needs a value"},
	} {
		data, file, err := SettingsSource(tc.value, dir)
		if string(data) != tc.data || file != tc.file || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("SettingsSource(%q) = %q, %q, %v; want %q, %q, %q", tc.value, data, file, err, tc.data, tc.file, tc.err)
		}
	}
}

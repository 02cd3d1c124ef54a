package launch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
)

// settingsOf returns the one --settings value of argv, failing on none or more.
func settingsOf(t *testing.T, argv []string) map[string]any {
	t.Helper()
	var found []string
	for i, a := range argv {
		if a == "--settings" && i+1 < len(argv) {
			found = append(found, argv[i+1])
		}
		if strings.HasPrefix(a, "--settings=") {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one --settings in %q, found %q", argv, found)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(found[0]), &s); err != nil {
		t.Fatalf("--settings %q: %v", found[0], err)
	}
	return s
}

// hookCommands lists the commands of an event's hooks in settings s.
func hookCommands(s map[string]any, event string) []string {
	var out []string
	hooks, _ := s["hooks"].(map[string]any)
	list, _ := hooks[event].([]any)
	for _, g := range list {
		inner, _ := g.(map[string]any)["hooks"].([]any)
		for _, h := range inner {
			c, _ := h.(map[string]any)["command"].(string)
			out = append(out, c)
		}
	}
	return out
}

func TestPlanMergesHooksIntoTheLayoutsOwnSettings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "svc"), 0o700)
	os.WriteFile(filepath.Join(dir, "svc", "team-settings.json"),
		[]byte(`{"model":"haiku","hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}`), 0o600)
	l := &layouts.Layout{
		Team:   "t",
		Claude: layouts.Claude{Command: "claude", Args: []string{"--settings", "team-settings.json", "--verbose"}},
		Lead:   layouts.Member{Name: "lead", Cwd: filepath.Join(dir, "svc"), Prompt: "go"},
		Members: []layouts.Member{
			// The member's own wins over claude.args', as the later one does in Claude Code.
			{Name: "inline", Cwd: dir, Args: []string{"--settings={\"theme\":\"dark\"}", "--x"}},
			{Name: "plain", Cwd: filepath.Join(dir, "svc")},
		},
	}
	hook := claudecode.ShellQuote("/bin/teamctl") + " hook"
	plan := mustPlan(t, l, Programs{Claude: "/bin/claude", Teamctl: "/bin/teamctl"}, sid)

	lead := settingsOf(t, plan[0].Argv)
	if lead["model"] != "haiku" || !slices.Equal(hookCommands(lead, "Stop"), []string{"mine", hook}) ||
		!slices.Equal(hookCommands(lead, "TeammateIdle"), []string{hook}) {
		t.Errorf("lead settings: %v", lead)
	}
	if i := slices.Index(plan[0].Argv, "--verbose"); i != 1 || slices.Contains(plan[0].Argv, "team-settings.json") {
		t.Errorf("lead argv keeps the layout's own --settings or loses its args: %q", plan[0].Argv)
	}
	if n := len(plan[0].Argv); plan[0].Argv[n-2] != "--" || plan[0].Argv[n-1] != "go" {
		t.Errorf("lead argv does not end with its prompt: %q", plan[0].Argv)
	}

	inline := settingsOf(t, plan[1].Argv)
	if inline["theme"] != "dark" || inline["model"] != nil || !slices.Equal(hookCommands(inline, "Stop"), []string{hook}) {
		t.Errorf("inline settings: %v", inline)
	}
	if !slices.Contains(plan[1].Argv, "--x") || !slices.Contains(plan[1].Argv, "--verbose") {
		t.Errorf("inline argv lost args: %q", plan[1].Argv)
	}
	if plain := settingsOf(t, plan[2].Argv); plain["model"] != "haiku" {
		t.Errorf("plain settings: %v", plain)
	}
	if l.Claude.Args[0] != "--settings" || l.Members[0].Args[0] != "--settings={\"theme\":\"dark\"}" {
		t.Errorf("Plan changed the layout's args: %q %q", l.Claude.Args, l.Members[0].Args)
	}
}

func TestPlanWithoutHooksLeavesTheLayoutsSettingsAlone(t *testing.T) {
	l := &layouts.Layout{Team: "t", Claude: layouts.Claude{Command: "claude", Args: []string{"--settings", "missing.json"}},
		Lead: layouts.Member{Name: "lead", Cwd: t.TempDir()}}
	plan := mustPlan(t, l, Programs{Claude: "/bin/claude"}, sid)
	if want := []string{"/bin/claude", "--settings", "missing.json", "--session-id=" + sid}; !slices.Equal(plan[0].Argv, want) {
		t.Errorf("argv %q, want %q", plan[0].Argv, want)
	}
}

func TestPlanRefusesSettingsItCannotRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "list.json"), []byte(`[]`), 0o600)
	l := &layouts.Layout{Team: "t", Claude: layouts.Claude{Command: "claude"},
		Lead: layouts.Member{Name: "lead", Cwd: dir, Args: []string{"--settings", "nope.json"}},
		Members: []layouts.Member{
			{Name: "listy", Cwd: dir, Args: []string{"--settings=list.json"}},
			{Name: "broken", Cwd: dir, Args: []string{"--settings", "{not json"}},
			{Name: "dangling", Cwd: dir, Args: []string{"--settings"}},
			{Name: "web", Cwd: dir, Command: []string{"x", "--settings", "nope.json"}},
		}}
	plan, err := Plan(l, Programs{Claude: "/bin/claude", Teamctl: "/bin/teamctl", Plain: map[string]string{"web": "/bin/x"}}, sid)
	if err == nil || plan != nil {
		t.Fatalf("Plan = %d launches, %v; want an error", len(plan), err)
	}
	for _, want := range []string{
		"lead: --settings file " + filepath.Join(dir, "nope.json") + ": read settings file:",
		"listy: --settings file " + filepath.Join(dir, "list.json") + ": settings are not a JSON object",
		"broken: --settings (inline JSON): settings are not a JSON object",
		"dangling: --settings needs a value",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "web") {
		t.Errorf("a plain process's args were taken for Claude Code's: %v", err)
	}
	if cerr := CheckSettings(l); cerr == nil || cerr.Error() != err.Error() {
		t.Errorf("CheckSettings = %v\nwant %v", cerr, err)
	}
}

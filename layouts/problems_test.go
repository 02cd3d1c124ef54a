package layouts

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// problemLines parses src as t.yaml (in the package folder, so root "." exists)
// and returns the problems it reports, one formatted line each.
func problemLines(t *testing.T, src string) []string {
	t.Helper()
	l, err := ParseBytes("t.yaml", []byte(src))
	if err == nil {
		t.Fatalf("ParseBytes succeeded (%+v), want problems", l)
	}
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("error is %T, want *Error: %v", err, err)
	}
	if l != nil {
		t.Errorf("ParseBytes returned a layout along with problems")
	}
	lines := make([]string, len(perr.Problems))
	for i, p := range perr.Problems {
		lines[i] = p.String()
	}
	if got := strings.Join(lines, "\n"); got != err.Error() {
		t.Errorf("Error() = %q, want the problems joined: %q", err.Error(), got)
	}
	return lines
}

func TestProblems(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	const (
		nameRule = `must be 1-40 characters of a-z, 0-9 and "-", starting with a letter or digit`
		colors   = "red, blue, green, yellow, purple, orange, pink, cyan"
		modes    = "acceptEdits, auto, bypassPermissions, manual, dontAsk, plan"
		notClaud = "only for Claude Code members, not with command"
		ruleWant = "want Tool or Tool(pattern), e.g. Bash(git status:*), Read, Edit(src/**)"
		quietMsg = "must be a duration like 2s or 500ms, between 100ms and 1h"
		// The known patterns in an answer's message: the layout's own, then the defaults.
		defaults = "yes-no, yes-no-brackets, press-key, continue, overwrite, claude-trust, claude-api-key, " +
			"claude-permission, claude-edit, claude-plan, claude-bypass, claude-mcp, claude-login, claude-theme, " +
			"claude-auto-gateway, claude-tell-differently, claude-dialog"
	)
	tests := []struct {
		name string
		src  string
		want []string
	}{
		// The file as a whole.
		// yaml.v3 gives lines but not columns for syntax errors; some lines are
		// where the construct around the mistake starts.
		{"syntax error in a flow list", "team: t\nmembers: [a\n", []string{
			"t.yaml:2:1: invalid YAML: did not find expected ',' or ']'"}},
		{"syntax error in indentation", "team: t\nlead:\n  name: a\n model: b\n", []string{
			"t.yaml:4:1: invalid YAML: did not find expected key"}},
		{"syntax error in a list", "team: t\nmembers:\n  - name: a\n  model: b\n", []string{
			"t.yaml:3:1: invalid YAML: did not find expected '-' indicator"}},
		{"syntax error in a key", "team: t\nlead\n", []string{
			"t.yaml:2:1: invalid YAML: could not find expected ':'"}},
		{"unclosed quote", "team: t\ndescription: \"x\nlayout: tiled\n", []string{
			"t.yaml:2:1: invalid YAML: found unexpected end of stream"}},
		{"unknown anchor", "team: t\nlead: *boss\n", []string{
			"t.yaml:1:1: invalid YAML: unknown anchor 'boss' referenced"}},
		{"tab indentation", "team: t\nlead:\n\tname: x\n", []string{
			"t.yaml:3:1: invalid YAML: found character that cannot start any token (a tab in the indentation: YAML indents with spaces)"}},
		// yaml.v3 names line 3 for this one.
		{"tab after spaces in a member", "team: t\nmembers:\n  - name: a\n  \t  command: [sleep, \"1\"]\n", []string{
			"t.yaml:4:3: invalid YAML: found a tab character that violates indentation (a tab in the indentation: YAML indents with spaces)"}},
		{"bad worktrees", "team: t\ntrust: yes\nmembers:\n  - name: a\n    worktree: {branch: \"a b\", base: -x, path: p}\n  - name: b\n    worktree: [x]\n  - name: c\n    worktree: {branch: x..y}\n", []string{
			"t.yaml:2:8: trust: must be true or false",
			`t.yaml:5:24: members[0].worktree.branch: invalid branch name "a b": use letters, digits and . _ / + -`,
			`t.yaml:5:37: members[0].worktree.base: invalid base "-x": must be a branch, tag or commit, without spaces and not starting with -`,
			`t.yaml:5:41: members[0].worktree: unknown key "path"`,
			"t.yaml:7:15: members[1].worktree: must be true, false, or {branch: NAME, base: REF} (a worktree on its own branch; either key may be left out)",
			`t.yaml:9:24: members[2].worktree.branch: invalid branch name "x..y": must not contain "..", "//" or "/."`}},
		{"a branch name as worktree", "team: t\nmembers:\n  - name: a\n    worktree: fix/auth\n", []string{
			"t.yaml:4:15: members[0].worktree: must be true, false, or {branch: NAME, base: REF} (a worktree on its own branch; either key may be left out); for that branch: {branch: fix/auth}"}},
		{"empty file", "", []string{"t.yaml:1:1: empty layout file"}},
		{"only comments", "# nothing yet\n", []string{"t.yaml:1:1: empty layout file"}},
		{"not a mapping", "- team: t\n", []string{
			"t.yaml:1:1: the layout must be a mapping of keys such as team: and members:"}},
		{"only the first document counts", "team: t\n---\nteam: [\n", nil},

		// Keys.
		{"unknown key", "team: t\nfoo: 1\n", []string{`t.yaml:2:1: unknown key "foo"`}},
		{"unknown key suggestion", "team: t\nmember: []\n", []string{
			`t.yaml:2:1: unknown key "member"; did you mean "members"?`}},
		{"unknown key in a member", "team: t\nmembers:\n  - name: a\n    permisionMode: plan\n", []string{
			`t.yaml:4:5: members[0]: unknown key "permisionMode"; did you mean "permissionMode"?`}},
		{"unknown key case", "team: t\nlead:\n  Model: opus\n", []string{
			`t.yaml:3:3: lead: unknown key "Model"; did you mean "model"?`}},
		{"duplicate key", "team: t\nlayout: tiled\nlayout: windows\n", []string{
			`t.yaml:3:1: layout: duplicate key "layout" (first at line 2)`}},
		{"key not a string", "team: t\n[a]: 1\n", []string{"t.yaml:2:1: keys must be strings"}},
		{"merge into itself", "team: t\nlead: &l\n  <<: *l\n", []string{
			"t.yaml:2:7: lead: << merges a mapping into itself"}},
		{"merge of a scalar", "team: t\nlead:\n  <<: x\n", []string{
			"t.yaml:3:7: lead: << must be a mapping or a list of mappings"}},

		// team.
		{"team missing", "description: d\n", []string{"t.yaml:1:1: team: required key is missing"}},
		{"team null", "team:\n", []string{"t.yaml:1:6: team: must not be empty"}},
		{"team uppercase", "team: Auth\n", []string{`t.yaml:1:7: team: ` + nameRule + ` (got "Auth")`}},
		{"team leading dash", "team: -x\n", []string{`t.yaml:1:7: team: ` + nameRule + ` (got "-x")`}},
		{"team too long", "team: " + strings.Repeat("a", 41) + "\n", []string{
			`t.yaml:1:7: team: ` + nameRule + ` (got "` + strings.Repeat("a", 41) + `")`}},
		{"team not a string", "team: [a]\n", []string{"t.yaml:1:7: team: must be a string"}},

		// description, root.
		{"description not a string", "team: t\ndescription: {a: b}\n", []string{
			"t.yaml:2:14: description: must be a string"}},
		{"root missing", "team: t\nroot: nope\n", []string{
			"t.yaml:2:7: root: directory " + filepath.Join(wd, "nope") + " does not exist"}},
		{"root not a directory", "team: t\nroot: parse.go\n", []string{
			"t.yaml:2:7: root: " + filepath.Join(wd, "parse.go") + " is not a directory"}},

		// claude.
		{"claude not a mapping", "team: t\nclaude: claude\n", []string{"t.yaml:2:9: claude: must be a mapping"}},
		{"claude unknown key", "team: t\nclaude:\n  cmd: x\n", []string{`t.yaml:3:3: claude: unknown key "cmd"`}},
		{"claude.command empty", "team: t\nclaude:\n  command: \"\"\n", []string{
			"t.yaml:3:12: claude.command: must not be empty"}},
		{"claude.command NUL", "team: t\nclaude:\n  command: \"a\\0b\"\n", []string{
			"t.yaml:3:12: claude.command: must not contain a NUL byte"}},
		{"claude.args not a list", "team: t\nclaude:\n  args: --verbose\n", []string{
			"t.yaml:3:9: claude.args: must be a list of strings"}},
		{"claude.args element", "team: t\nclaude:\n  args: [a, {b: c}, ~]\n", []string{
			"t.yaml:3:13: claude.args[1]: must be a string",
			"t.yaml:3:21: claude.args[2]: must be a string"}},
		{"claude.args NUL", "team: t\nclaude:\n  args: [\"\\0\"]\n", []string{
			"t.yaml:3:10: claude.args[0]: must not contain a NUL byte"}},

		// env, at every level.
		{"env not a mapping", "team: t\nenv: [A=1]\n", []string{"t.yaml:2:6: env: must be a mapping"}},
		{"env bad name", "team: t\nenv:\n  1A: x\n  A-B: x\n", []string{
			"t.yaml:3:3: env.1A: invalid variable name: must be letters, digits and _, not starting with a digit",
			"t.yaml:4:3: env.A-B: invalid variable name: must be letters, digits and _, not starting with a digit"}},
		{"env list value", "team: t\nenv:\n  A: [1]\n  B: {c: d}\n", []string{
			"t.yaml:3:6: env.A: must be a string, number or true/false, not a list",
			"t.yaml:4:6: env.B: must be a string, number or true/false, not a mapping"}},
		{"env NUL value", "team: t\nenv:\n  A: \"\\0\"\n", []string{"t.yaml:3:6: env.A: must not contain a NUL byte"}},
		{"lead env", "team: t\nlead:\n  env:\n    FOO: [x]\n", []string{
			"t.yaml:4:10: lead.env.FOO: must be a string, number or true/false, not a list"}},
		{"member env", "team: t\nmembers:\n  - name: a\n    env: {9: x}\n", []string{
			"t.yaml:4:11: members[0].env.9: invalid variable name: must be letters, digits and _, not starting with a digit"}},

		// layout.
		{"layout", "team: t\nlayout: tiles\n", []string{
			`t.yaml:2:9: layout: must be one of main-vertical, tiled, windows (got "tiles"); did you mean "tiled"?`}},

		// lead.
		{"lead not a mapping", "team: t\nlead: boss\n", []string{"t.yaml:2:7: lead: must be a mapping"}},
		{"lead name", "team: t\nlead:\n  name: The Boss\n", []string{
			`t.yaml:3:9: lead.name: ` + nameRule + ` (got "The Boss")`}},
		{"lead reserved name", "team: t\nlead:\n  name: team-lead\n", []string{
			`t.yaml:3:9: lead.name: "team-lead" is reserved: it is Claude Code's own name for the lead`}},
		{"lead command", "team: t\nlead:\n  command: [bash]\n", []string{
			"t.yaml:3:3: lead.command: the lead is Claude Code, which leads the Claude Code members; for a team of plain processes leave lead: out and list them under members:"}},
		{"teammateMode", "team: t\nlead:\n  teammateMode: split\n", []string{
			`t.yaml:3:17: lead.teammateMode: must be one of tmux, auto, in-process (got "split")`}},
		{"teammateMode on a member", "team: t\nmembers:\n  - name: a\n    teammateMode: tmux\n", []string{
			"t.yaml:4:5: members[0].teammateMode: only the lead has teammateMode"}},

		// members and names.
		{"members not a list", "team: t\nmembers: {name: a}\n", []string{
			"t.yaml:2:10: members: must be a list of members"}},
		{"member not a mapping", "team: t\nmembers:\n  - a\n", []string{"t.yaml:3:5: members[0]: must be a mapping"}},
		{"member name missing", "team: t\nmembers:\n  - model: opus\n", []string{
			"t.yaml:3:5: members[0].name: required key is missing"}},
		{"member name null", "team: t\nmembers:\n  - name: ~\n", []string{
			"t.yaml:3:11: members[0].name: must not be empty"}},
		{"member name slash", "team: t\nmembers:\n  - name: a/b\n", []string{
			`t.yaml:3:11: members[0].name: ` + nameRule + ` (got "a/b")`}},
		{"member name dots", "team: t\nmembers:\n  - name: ..\n", []string{
			`t.yaml:3:11: members[0].name: ` + nameRule + ` (got "..")`}},
		{"member name space", "team: t\nmembers:\n  - name: a b\n", []string{
			`t.yaml:3:11: members[0].name: ` + nameRule + ` (got "a b")`}},
		{"member name uppercase", "team: t\nmembers:\n  - name: Alice\n", []string{
			`t.yaml:3:11: members[0].name: ` + nameRule + ` (got "Alice")`}},
		{"member reserved name", "team: t\nmembers:\n  - name: team-lead\n", []string{
			`t.yaml:3:11: members[0].name: "team-lead" is reserved: it is Claude Code's own name for the lead`}},
		{"duplicate member", "team: t\nmembers:\n  - name: a\n  - name: b\n  - name: a\n", []string{
			`t.yaml:5:11: members[2].name: duplicate name "a" (first at line 3)`}},
		{"duplicate of the lead", "team: t\nlead:\n  name: boss\nmembers:\n  - name: boss\n", []string{
			`t.yaml:5:11: members[0].name: duplicate name "boss" (first at line 3)`}},
		{"duplicate of the default lead", "team: t\nmembers:\n  - name: lead\n", []string{
			`t.yaml:3:11: members[0].name: duplicate name "lead": it is the lead's default name (set lead.name to use it here)`}},

		// Member fields.
		{"color", "team: t\nmembers:\n  - name: a\n    color: bleu\n", []string{
			`t.yaml:4:12: members[0].color: must be one of ` + colors + ` (got "bleu"); did you mean "blue"?`}},
		{"permissionMode", "team: t\nlead:\n  permissionMode: yolo\n", []string{
			`t.yaml:3:19: lead.permissionMode: must be one of ` + modes + ` (got "yolo")`}},
		{"planModeRequired not a bool", "team: t\nmembers:\n  - name: a\n    planModeRequired: yes\n", []string{
			"t.yaml:4:23: members[0].planModeRequired: must be true or false"}},
		{"plan mode with bypassPermissions", "team: t\nmembers:\n  - name: a\n    planModeRequired: true\n    permissionMode: bypassPermissions\n", []string{
			"t.yaml:5:21: members[0].permissionMode: bypassPermissions cannot be combined with planModeRequired: true (Claude Code never combines them)"}},
		{"NUL in argv strings", "team: t\nmembers:\n  - name: a\n    prompt: \"a\\0\"\n    model: \"\\0\"\n    agentType: \"\\0\"\n    args: [ok, \"\\0\"]\n", []string{
			"t.yaml:4:13: members[0].prompt: must not contain a NUL byte",
			"t.yaml:5:12: members[0].model: must not contain a NUL byte",
			"t.yaml:6:16: members[0].agentType: must not contain a NUL byte",
			"t.yaml:7:16: members[0].args[1]: must not contain a NUL byte"}},
		{"args not a list", "team: t\nlead:\n  args: -v\n", []string{"t.yaml:3:9: lead.args: must be a list of strings"}},
		{"cwd missing", "team: t\nmembers:\n  - name: a\n    cwd: services/auth\n", []string{
			"t.yaml:4:10: members[0].cwd: directory " + filepath.Join(wd, "services", "auth") + " does not exist"}},
		{"cwd not a directory", "team: t\nlead:\n  cwd: parse.go\n", []string{
			"t.yaml:3:8: lead.cwd: " + filepath.Join(wd, "parse.go") + " is not a directory"}},
		{"cwd not checked under a bad root", "team: t\nroot: nope\nmembers:\n  - name: a\n    cwd: x\n", []string{
			"t.yaml:2:7: root: directory " + filepath.Join(wd, "nope") + " does not exist"}},

		// command.
		{"command string", "team: t\nmembers:\n  - name: a\n    command: npm run dev\n", []string{
			"t.yaml:4:14: members[0].command: must be a list (argv), e.g. [npm, run, dev]; teamctl never runs a shell"}},
		{"command empty", "team: t\nmembers:\n  - name: a\n    command: []\n", []string{
			"t.yaml:4:14: members[0].command: must not be empty: list the program and its arguments, e.g. [npm, run, dev]"}},
		{"command empty program", "team: t\nmembers:\n  - name: a\n    command: [\"\", x]\n", []string{
			"t.yaml:4:15: members[0].command[0]: must name a program"}},
		{"command element", "team: t\nmembers:\n  - name: a\n    command: [x, [y]]\n", []string{
			"t.yaml:4:18: members[0].command[1]: must be a string"}},
		{"command NUL", "team: t\nmembers:\n  - name: a\n    command: [x, \"\\0\"]\n", []string{
			"t.yaml:4:18: members[0].command[1]: must not contain a NUL byte"}},
		{"command with Claude Code keys", `team: t
members:
  - name: a
    command: [x]
    agentType: general-purpose
    model: opus
    prompt: hi
    planModeRequired: false
    permissionMode: plan
    args: []
    permissions: {allow: [Read]}
    color: red
    cwd: .
    env: {A: b}
`, []string{
			"t.yaml:5:5: members[0].agentType: " + notClaud,
			"t.yaml:6:5: members[0].model: " + notClaud,
			"t.yaml:7:5: members[0].prompt: " + notClaud,
			"t.yaml:8:5: members[0].planModeRequired: " + notClaud,
			"t.yaml:9:5: members[0].permissionMode: " + notClaud,
			"t.yaml:10:5: members[0].args: " + notClaud,
			"t.yaml:11:5: members[0].permissions: " + notClaud}},

		// restart.
		{"member restart", "team: t\nmembers:\n  - name: a\n    restart: allways\n", []string{
			`t.yaml:4:14: members[0].restart: must be one of on-failure, never, always (got "allways"); did you mean "always"?`}},
		{"lead restart", "team: t\nlead:\n  restart: sometimes\n", []string{
			`t.yaml:3:12: lead.restart: must be one of on-failure, never, always (got "sometimes")`}},
		{"restart not a string", "team: t\nmembers:\n  - name: a\n    command: [x]\n    restart: [always]\n", []string{
			"t.yaml:5:14: members[0].restart: must be a string"}},
		{"restart on a command member", "team: t\nmembers:\n  - name: a\n    command: [x]\n    restart: never\n", nil},

		// permissions, at every level.
		{"permissions not a mapping", "team: t\npermissions: [Read]\n", []string{
			"t.yaml:2:14: permissions: must be a mapping"}},
		{"permissions unknown key", "team: t\npermissions:\n  alow: [Read]\n  ask: [Edit]\n", []string{
			`t.yaml:3:3: permissions: unknown key "alow"; did you mean "allow"?`,
			`t.yaml:4:3: permissions: unknown key "ask"`}},
		{"permissions allow not a list", "team: t\npermissions:\n  allow: Read\n", []string{
			"t.yaml:3:10: permissions.allow: must be a list of strings"}},
		{"permissions deny not a list", "team: t\npermissions:\n  deny: {Bash: rm}\n", []string{
			"t.yaml:3:9: permissions.deny: must be a list of strings"}},
		{"permissions rule not a string", "team: t\npermissions:\n  allow: [Read, [Edit], ~, \"\\0\"]\n", []string{
			"t.yaml:3:17: permissions.allow[1]: must be a string",
			"t.yaml:3:25: permissions.allow[2]: must be a string",
			"t.yaml:3:28: permissions.allow[3]: must not contain a NUL byte"}},
		{"permissions invalid rules", `team: t
permissions:
  allow:
    - ""
    - Bash()
    - Bash(git status:*
    - Bash (ls)
    - 1Read
    - Edit(src/**)x
  deny: ["Bash(rm:*)", "rm -rf"]
`, []string{
			`t.yaml:4:7: permissions.allow[0]: invalid rule "": ` + ruleWant,
			`t.yaml:5:7: permissions.allow[1]: invalid rule "Bash()": ` + ruleWant,
			`t.yaml:6:7: permissions.allow[2]: invalid rule "Bash(git status:*": ` + ruleWant,
			`t.yaml:7:7: permissions.allow[3]: invalid rule "Bash (ls)": ` + ruleWant,
			`t.yaml:8:7: permissions.allow[4]: invalid rule "1Read": ` + ruleWant,
			`t.yaml:9:7: permissions.allow[5]: invalid rule "Edit(src/**)x": ` + ruleWant,
			`t.yaml:10:24: permissions.deny[1]: invalid rule "rm -rf": ` + ruleWant}},
		{"lead permissions", "team: t\nlead:\n  permissions:\n    deny: [Bash(]\n", []string{
			`t.yaml:4:12: lead.permissions.deny[0]: invalid rule "Bash(": ` + ruleWant}},
		{"lead permissions not a mapping", "team: t\nlead:\n  permissions: Read\n", []string{
			"t.yaml:3:16: lead.permissions: must be a mapping"}},
		{"member permissions", "team: t\nmembers:\n  - name: a\n    permissions:\n      allow: [Read]\n      denny: [Bash]\n", []string{
			`t.yaml:6:7: members[0].permissions: unknown key "denny"; did you mean "deny"?`}},
		{"member permissions rule", "team: t\nmembers:\n  - name: a\n    permissions: {allow: [Read, 'Edit (x)']}\n", []string{
			`t.yaml:4:33: members[0].permissions.allow[1]: invalid rule "Edit (x)": ` + ruleWant}},
		{"permissions on a command member", "team: t\nmembers:\n  - name: a\n    command: [x]\n    permissions:\n      allow: [Read]\n", []string{
			"t.yaml:5:5: members[0].permissions: " + notClaud}},
		{"permissions empty", "team: t\npermissions:\n  allow: []\n  deny:\nlead:\n  permissions: {}\n", nil},

		// watchdog.
		{"watchdog not a mapping", "team: t\nwatchdog: on\n", []string{"t.yaml:2:11: watchdog: must be a mapping"}},
		{"watchdog unknown key", "team: t\nwatchdog:\n  quite: 2s\n", []string{
			`t.yaml:3:3: watchdog: unknown key "quite"; did you mean "quiet"?`}},
		{"quiet without a unit", "team: t\nwatchdog:\n  quiet: 2\n", []string{
			`t.yaml:3:10: watchdog.quiet: ` + quietMsg + ` (got "2")`}},
		{"quiet not a duration", "team: t\nwatchdog:\n  quiet: two seconds\n", []string{
			`t.yaml:3:10: watchdog.quiet: ` + quietMsg + ` (got "two seconds")`}},
		{"quiet too short", "team: t\nwatchdog:\n  quiet: 99ms\n", []string{
			`t.yaml:3:10: watchdog.quiet: ` + quietMsg + ` (got "99ms")`}},
		{"quiet too long", "team: t\nwatchdog:\n  quiet: 1h0m1s\n", []string{
			`t.yaml:3:10: watchdog.quiet: ` + quietMsg + ` (got "1h0m1s")`}},
		{"quiet negative", "team: t\nwatchdog:\n  quiet: -2s\n", []string{
			`t.yaml:3:10: watchdog.quiet: ` + quietMsg + ` (got "-2s")`}},
		{"quiet not a string", "team: t\nwatchdog:\n  quiet: [2s]\n", []string{
			"t.yaml:3:10: watchdog.quiet: must be a string"}},
		{"defaults not a bool", "team: t\nwatchdog:\n  defaults: yes\n", []string{
			"t.yaml:3:13: watchdog.defaults: must be true or false"}},

		// watchdog.patterns.
		{"patterns not a list", "team: t\nwatchdog:\n  patterns: {name: a, regex: b}\n", []string{
			"t.yaml:3:13: watchdog.patterns: must be a list of patterns"}},
		{"pattern not a mapping", "team: t\nwatchdog:\n  patterns: [a]\n", []string{
			"t.yaml:3:14: watchdog.patterns[0]: must be a mapping"}},
		{"pattern unknown key", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regexp: b\n", []string{
			"t.yaml:4:7: watchdog.patterns[0].regex: required key is missing",
			`t.yaml:5:7: watchdog.patterns[0]: unknown key "regexp"; did you mean "regex"?`}},
		{"pattern name missing", "team: t\nwatchdog:\n  patterns:\n    - regex: x\n", []string{
			"t.yaml:4:7: watchdog.patterns[0].name: required key is missing"}},
		{"pattern name invalid", "team: t\nwatchdog:\n  patterns:\n    - name: Deploy\n      regex: x\n", []string{
			`t.yaml:4:13: watchdog.patterns[0].name: ` + nameRule + ` (got "Deploy")`}},
		{"pattern regex null", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regex:\n", []string{
			"t.yaml:5:13: watchdog.patterns[0].regex: must not be empty"}},
		{"pattern regex empty", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regex: ''\n", []string{
			"t.yaml:5:14: watchdog.patterns[0].regex: must not be empty: it would match every line"}},
		{"pattern regex invalid", "team: t\nwatchdog:\n  patterns:\n    - {name: a, regex: ok}\n    - name: b\n      regex: 'Deploy (to prod\\?'\n", []string{
			"t.yaml:6:14: watchdog.patterns[1].regex: error parsing regexp: missing closing ): `Deploy (to prod\\?`"}},
		{"pattern regex bad escape", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regex: '\\q'\n", []string{
			"t.yaml:5:14: watchdog.patterns[0].regex: error parsing regexp: invalid escape sequence: `\\q`"}},
		{"pattern regex NUL", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regex: \"\\0\"\n", []string{
			"t.yaml:5:14: watchdog.patterns[0].regex: must not contain a NUL byte"}},
		{"pattern scope", "team: t\nwatchdog:\n  patterns:\n    - name: a\n      regex: b\n      scope: screens\n", []string{
			`t.yaml:6:14: watchdog.patterns[0].scope: must be one of lastline, screen (got "screens"); did you mean "screen"?`}},
		{"duplicate pattern", "team: t\nwatchdog:\n  patterns:\n    - name: deploy\n      regex: a\n    - name: other\n      regex: b\n    - name: deploy\n      regex: c\n", []string{
			`t.yaml:8:13: watchdog.patterns[2].name: duplicate name "deploy" (first at line 4)`}},
		{"pattern replaces a default", "team: t\nwatchdog:\n  patterns:\n    - {name: yes-no, regex: '\\(yes/no\\)'}\n  answer:\n    - {pattern: yes-no, keys: [yes, Enter]}\n", nil},

		// watchdog.notify.
		{"notify not a mapping", "team: t\nwatchdog:\n  notify: [logger]\n", []string{
			"t.yaml:3:11: watchdog.notify: must be a mapping"}},
		{"notify unknown key", "team: t\nwatchdog:\n  notify:\n    cmd: [logger]\n", []string{
			`t.yaml:4:5: watchdog.notify: unknown key "cmd"`}},
		{"notify command string", "team: t\nwatchdog:\n  notify:\n    command: notify-send teamctl\n", []string{
			"t.yaml:4:14: watchdog.notify.command: must be a list (argv), e.g. [notify-send, teamctl]; teamctl never runs a shell"}},
		{"notify command empty", "team: t\nwatchdog:\n  notify:\n    command: []\n", []string{
			"t.yaml:4:14: watchdog.notify.command: must not be empty: list the program and its arguments, e.g. [notify-send, teamctl]"}},
		{"notify command empty program", "team: t\nwatchdog:\n  notify:\n    command: ['', x]\n", []string{
			"t.yaml:4:15: watchdog.notify.command[0]: must name a program"}},
		{"notify command NUL", "team: t\nwatchdog:\n  notify:\n    command: [x, \"\\0\"]\n", []string{
			"t.yaml:4:18: watchdog.notify.command[1]: must not contain a NUL byte"}},
		{"notify lead not a bool", "team: t\nwatchdog:\n  notify:\n    lead: boss\n", []string{
			"t.yaml:4:11: watchdog.notify.lead: must be true or false"}},

		// review.
		{"review not a mapping", "team: t\nreview: true\n", []string{
			"t.yaml:2:9: review: must be a mapping"}},
		{"review unknown key", "team: t\nreview:\n  tell_lead: true\n", []string{
			`t.yaml:3:3: review: unknown key "tell_lead"; did you mean "tellLead"?`}},
		{"review tellLead not a bool", "team: t\nreview:\n  tellLead: yes please\n", []string{
			"t.yaml:3:13: review.tellLead: must be true or false"}},
		{"review tellLead", "team: t\nreview:\n  tellLead: true\n", nil},
		// limits.
		{"limits not a mapping", "team: t\nlimits: true\n", []string{
			"t.yaml:2:9: limits: must be a mapping"}},
		{"limits unknown key", "team: t\nlimits:\n  resum: true\n", []string{
			`t.yaml:3:3: limits: unknown key "resum"; did you mean "resume"?`}},
		{"limits resume not a bool", "team: t\nlimits:\n  resume: always\n", []string{
			"t.yaml:3:11: limits.resume: must be true or false"}},
		{"limits margin not a duration", "team: t\nlimits:\n  margin: soon\n", []string{
			`t.yaml:3:11: limits.margin: must be a duration like 15s or 1m, between 0s and 1h (got "soon")`}},
		{"limits margin negative", "team: t\nlimits:\n  margin: -5s\n", []string{
			`t.yaml:3:11: limits.margin: must be a duration like 15s or 1m, between 0s and 1h (got "-5s")`}},
		{"limits prompt empty", "team: t\nlimits:\n  prompt: \"  \"\n", []string{
			"t.yaml:3:11: limits.prompt: must not be empty"}},
		{"limits prompt of two lines", "team: t\nlimits:\n  prompt: \"go on\\nnow\"\n", []string{
			"t.yaml:3:11: limits.prompt: must be one line of text, without control characters (it is typed into the member, then Enter)"}},
		{"limits", "team: t\nlimits:\n  resume: true\n  margin: 1s\n  prompt: keep going\n", nil},

		// watchdog.answer.
		{"answer not a list", "team: t\nwatchdog:\n  answer: {pattern: yes-no, keys: [y]}\n", []string{
			"t.yaml:3:11: watchdog.answer: must be a list of answers"}},
		{"answer not a mapping", "team: t\nwatchdog:\n  answer: [yes-no]\n", []string{
			"t.yaml:3:12: watchdog.answer[0]: must be a mapping"}},
		{"answer unknown key", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      key: [y]\n", []string{
			"t.yaml:4:7: watchdog.answer[0].keys: required key is missing",
			`t.yaml:5:7: watchdog.answer[0]: unknown key "key"; did you mean "keys"?`}},
		{"answer pattern missing", "team: t\nwatchdog:\n  answer:\n    - keys: [y]\n", []string{
			"t.yaml:4:7: watchdog.answer[0].pattern: required key is missing"}},
		{"answer unknown pattern", "team: t\nwatchdog:\n  patterns:\n    - {name: deploy, regex: 'Deploy\\?'}\n  answer:\n    - pattern: yes-n\n      keys: [y]\n", []string{
			`t.yaml:6:16: watchdog.answer[0].pattern: must name a pattern: one of deploy, ` + defaults + ` (got "yes-n"); did you mean "yes-no"?`}},
		{"answer default pattern without defaults", "team: t\nwatchdog:\n  defaults: false\n  patterns:\n    - {name: deploy, regex: 'Deploy\\?'}\n  answer:\n    - pattern: yes-no\n      keys: [y]\n", []string{
			`t.yaml:7:16: watchdog.answer[0].pattern: must name a pattern: one of deploy (got "yes-no")`}},
		{"answer with no patterns at all", "team: t\nwatchdog:\n  defaults: false\n  answer:\n    - {pattern: yes-no, keys: [y]}\n", []string{
			`t.yaml:5:17: watchdog.answer[0].pattern: names pattern "yes-no", but there are no patterns: watchdog.defaults is false and watchdog.patterns lists none`}},
		{"answer for an invalid pattern", "team: t\nwatchdog:\n  patterns:\n    - {name: Deploy, regex: x}\n  answer:\n    - {pattern: Deploy, keys: [y]}\n", []string{
			`t.yaml:4:14: watchdog.patterns[0].name: ` + nameRule + ` (got "Deploy")`}},
		{"duplicate answer", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys: [y, Enter]\n    - pattern: yes-no\n      keys: [n, Enter]\n", []string{
			`t.yaml:6:16: watchdog.answer[1].pattern: duplicate answer for pattern "yes-no" (first at line 4)`}},
		// A Claude Code dialog is answered by an option, a prompt by keys.
		{"keys for a dialog", "team: t\nwatchdog:\n  answer:\n    - pattern: claude-permission\n      keys: [n, Enter]\n", []string{
			`t.yaml:5:13: watchdog.answer[0].keys: claude-permission is a Claude Code dialog: answer it with option: (the text of the option to choose, e.g. "No"), not keys: its menu ignores y and n, and Enter picks whatever is selected`}},
		{"keys for a dialog the layout redefines", "team: t\nwatchdog:\n  patterns:\n    - {name: claude-trust, regex: 'Trust\\?', scope: screen}\n  answer:\n    - {pattern: claude-trust, keys: [Down, Enter]}\n", []string{
			`t.yaml:6:37: watchdog.answer[0].keys: claude-trust is a Claude Code dialog: answer it with option: (the text of the option to choose, e.g. "Yes, I trust this folder"), not keys: its menu ignores y and n, and Enter picks whatever is selected`}},
		{"a dialog's answer without option", "team: t\nwatchdog:\n  answer:\n    - pattern: claude-trust\n", []string{
			`t.yaml:4:7: watchdog.answer[0].option: required key is missing: claude-trust is a Claude Code dialog, answered by choosing one of its options, e.g. option: "Yes, I trust this folder"`}},
		{"option for a prompt", "team: t\nwatchdog:\n  answer:\n    - {pattern: yes-no, option: \"Yes\"}\n", []string{
			`t.yaml:4:33: watchdog.answer[0].option: yes-no is a prompt on the last line, not a dialog with options: give keys: instead, e.g. keys: [y, Enter]`}},
		{"keys and option", "team: t\nwatchdog:\n  answer:\n    - {pattern: claude-trust, keys: [Enter], option: \"Yes, I trust this folder\"}\n", []string{
			`t.yaml:4:54: watchdog.answer[0].option: give keys or option, not both: keys for a prompt, option for a Claude Code dialog`}},
		{"option empty", "team: t\nwatchdog:\n  answer:\n    - {pattern: claude-mcp, option: \" \"}\n", []string{
			`t.yaml:4:37: watchdog.answer[0].option: must not be empty: the text of the option to choose, e.g. "No"`}},
		{"option not a string", "team: t\nwatchdog:\n  answer:\n    - {pattern: claude-mcp, option: [No]}\n", []string{
			`t.yaml:4:37: watchdog.answer[0].option: must be a string`}},
		{"option for a screen pattern of the layout's", "team: t\nwatchdog:\n  patterns:\n    - {name: menu, regex: 'Pick one', scope: screen}\n  answer:\n    - {pattern: menu, option: \"Second\"}\n", nil},
		{"answer keys null", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys:\n", []string{
			"t.yaml:5:12: watchdog.answer[0].keys: must not be empty"}},
		{"answer keys string", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys: y\n", []string{
			"t.yaml:5:13: watchdog.answer[0].keys: must be a list of keys, e.g. [y, Enter]"}},
		{"answer keys empty", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys: []\n", []string{
			"t.yaml:5:13: watchdog.answer[0].keys: must not be empty: list the keys to send, e.g. [y, Enter]"}},
		{"answer keys elements", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys: [y, '', {a: b}, \"\\0\"]\n", []string{
			"t.yaml:5:17: watchdog.answer[0].keys[1]: must not be empty",
			"t.yaml:5:21: watchdog.answer[0].keys[2]: must be a string",
			"t.yaml:5:29: watchdog.answer[0].keys[3]: must not contain a NUL byte"}},
		{"answer keys empty string", "team: t\nwatchdog:\n  answer:\n    - pattern: yes-no\n      keys: [y, '']\n", []string{
			"t.yaml:5:17: watchdog.answer[0].keys[1]: must not be empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if _, err := ParseBytes("t.yaml", []byte(tt.src)); err != nil {
					t.Fatalf("ParseBytes: %v", err)
				}
				return
			}
			if got := problemLines(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestAllProblemsAtOnce checks that validation goes on past the first mistake
// and reports the problems in file order, whatever order they were found in.
func TestAllProblemsAtOnce(t *testing.T) {
	src := `members:
  - name: Researcher
    color: blue
    colour: red
  - name: web
    command: npm start
    model: sonnet
lead:
  permissionMode: auto
  planModeRequired: true
  teammateMode: tmux
layout: grid
env:
  OK: 1
  NOT OK: 2
`
	want := []string{
		"t.yaml:1:1: team: required key is missing",
		`t.yaml:2:11: members[0].name: must be 1-40 characters of a-z, 0-9 and "-", starting with a letter or digit (got "Researcher")`,
		`t.yaml:4:5: members[0]: unknown key "colour"; did you mean "color"?`,
		"t.yaml:6:14: members[1].command: must be a list (argv), e.g. [npm, run, dev]; teamctl never runs a shell",
		"t.yaml:7:5: members[1].model: only for Claude Code members, not with command",
		`t.yaml:12:9: layout: must be one of main-vertical, tiled, windows (got "grid")`,
		"t.yaml:15:3: env.NOT OK: invalid variable name: must be letters, digits and _, not starting with a digit",
	}
	if got := problemLines(t, src); !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProblemString(t *testing.T) {
	p := Problem{File: "f.yaml", Line: 3, Col: 5, Path: "members[1].color", Msg: "bad"}
	if got, want := p.String(), "f.yaml:3:5: members[1].color: bad"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	p.Path = ""
	if got, want := p.String(), "f.yaml:3:5: bad"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestErrorSortsProblems(t *testing.T) {
	e := &Error{Problems: []Problem{
		{File: "f", Line: 2, Col: 1, Msg: "c"},
		{File: "f", Line: 1, Col: 9, Msg: "b"},
		{File: "f", Line: 1, Col: 2, Msg: "a"},
	}}
	if got, want := e.Error(), "f:1:2: a\nf:1:9: b\nf:2:1: c"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestStdinProblems(t *testing.T) {
	_, err := ParseBytes("", []byte("team: T\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>:1:7: team: ") {
		t.Errorf("ParseBytes(\"\") error = %v, want one at <stdin>:1:7", err)
	}
}

func TestParseMissingFile(t *testing.T) {
	_, err := Parse(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Parse error = %v, want one wrapping os.ErrNotExist", err)
	}
}

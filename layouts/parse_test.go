package layouts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/stallwatch"
)

// mustParse parses src as the file t.yaml in the package folder.
func mustParse(t *testing.T, src string) *Layout {
	t.Helper()
	l, err := ParseBytes("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("ParseBytes:\n%v", err)
	}
	return l
}

// writeFile writes data to dir/name, making the folders it needs.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaults(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	l := mustParse(t, `team: t
members:
  - name: m0
  - name: m1
    color: cyan
  - name: m2
  - {name: m3}
  - {name: m4}
  - {name: m5}
  - {name: m6}
  - {name: m7}
  - {name: m8}
`)
	checks := []struct {
		what      string
		got, want any
	}{
		{"Path", l.Path, filepath.Join(wd, "t.yaml")},
		{"Root", l.Root, wd},
		{"Claude.Command", l.Claude.Command, "claude"},
		{"Claude.Args", len(l.Claude.Args), 0},
		{"Arrangement", l.Arrangement, "main-vertical"},
		{"Lead.Name", l.Lead.Name, "lead"},
		{"Lead.Color", l.Lead.Color, ""},
		{"Lead.TeammateMode", l.Lead.TeammateMode, "tmux"},
		{"Lead.Cwd", l.Lead.Cwd, wd},
		{"Lead.IsClaude", l.Lead.IsClaude(), true},
		{"Lead.Restart", l.Lead.Restart, "on-failure"},
		{"len(Members)", len(l.Members), 9},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	// Colours go by position in members, so an explicit one does not shift the others.
	wantColors := []string{"red", "cyan", "green", "yellow", "purple", "orange", "pink", "cyan", "red"}
	for i, m := range l.Members {
		if m.Color != wantColors[i] {
			t.Errorf("members[%d].Color = %q, want %q", i, m.Color, wantColors[i])
		}
		if m.Cwd != wd {
			t.Errorf("members[%d].Cwd = %q, want the root %q", i, m.Cwd, wd)
		}
		if m.TeammateMode != "" {
			t.Errorf("members[%d].TeammateMode = %q, want none", i, m.TeammateMode)
		}
		if m.Restart != "on-failure" {
			t.Errorf("members[%d].Restart = %q, want on-failure", i, m.Restart)
		}
	}
	if want := (Watchdog{Quiet: 2 * time.Second, Defaults: true}); !reflect.DeepEqual(l.Watchdog, want) {
		t.Errorf("Watchdog = %+v, want %+v", l.Watchdog, want)
	}
}

// TestWatchdogDefaults checks that an empty or partial watchdog: section
// keeps the defaults of what it leaves out.
func TestWatchdogDefaults(t *testing.T) {
	for _, src := range []string{
		"team: t\nwatchdog:\n",
		"team: t\nwatchdog: {}\n",
		"team: t\nwatchdog: {quiet: ~, defaults: ~, patterns: ~, notify: ~, answer: ~}\n",
		"team: t\nwatchdog: {patterns: [], notify: {}, answer: []}\n",
	} {
		l := mustParse(t, src)
		want := Watchdog{Quiet: 2 * time.Second, Defaults: true}
		if !reflect.DeepEqual(l.Watchdog, want) {
			t.Errorf("%q: Watchdog = %+v, want %+v", src, l.Watchdog, want)
		}
	}
}

// TestRestart checks each restart policy on the lead, a Claude Code member
// and a plain process.
func TestRestart(t *testing.T) {
	l := mustParse(t, `team: t
lead:
  restart: never
members:
  - name: a
    restart: always
  - name: b
    command: [x]
    restart: on-failure
  - name: c
    command: [x]
    restart: never
`)
	got := []string{l.Lead.Restart}
	for _, m := range l.Members {
		got = append(got, m.Restart)
	}
	if want := []string{"never", "always", "on-failure", "never"}; !slices.Equal(got, want) {
		t.Errorf("Restart of lead and members = %v, want %v", got, want)
	}
}

// TestWatchdog parses a full watchdog: section.
func TestWatchdog(t *testing.T) {
	l := mustParse(t, `team: t
watchdog:
  quiet: 1m30s
  defaults: false
  patterns:
    - name: deploy
      regex: 'Deploy to prod\?'
    - name: yes-no
      regex: '\(yes/no\)'
      scope: screen
    - {name: fixed-case, regex: '(?-i)ABORT', scope: lastline}
    - {name: claude-trust, regex: 'Trust this folder\?', scope: screen}
  notify:
    command: [logger, -t, teamctl]
    lead: true
  answer:
    - pattern: deploy
      keys: [n, Enter]
    - pattern: yes-no
      keys: [yes, Enter, 1]
    - pattern: claude-trust
      option: Yes, I trust this folder
`)
	want := Watchdog{
		Quiet:    90 * time.Second,
		Defaults: false,
		Patterns: []WatchPattern{
			{Name: "deploy", Regex: `Deploy to prod\?`, Scope: "lastline", Line: 6, Column: 7},
			{Name: "yes-no", Regex: `\(yes/no\)`, Scope: "screen", Line: 8, Column: 7},
			{Name: "fixed-case", Regex: `(?-i)ABORT`, Scope: "lastline", Line: 11, Column: 7},
			{Name: "claude-trust", Regex: `Trust this folder\?`, Scope: "screen", Line: 12, Column: 7},
		},
		Notify: Notify{Command: []string{"logger", "-t", "teamctl"}, Lead: true},
		Answer: []Answer{
			{Pattern: "deploy", Keys: []string{"n", "Enter"}},
			{Pattern: "yes-no", Keys: []string{"yes", "Enter", "1"}},
			{Pattern: "claude-trust", Option: "Yes, I trust this folder"},
		},
	}
	if !reflect.DeepEqual(l.Watchdog, want) {
		t.Errorf("Watchdog =\n%+v\nwant\n%+v", l.Watchdog, want)
	}
}

// TestPermissions parses permissions: at the top level, on the lead and on a member.
func TestPermissions(t *testing.T) {
	l := mustParse(t, `team: t
permissions:
  allow: ["Bash(git status:*)", Read, "Edit(src/**)"]
  deny: ["Bash(rm:*)"]
lead:
  permissions:
    allow:
      - mcp__github
      - WebFetch(domain:go.dev)
members:
  - name: a
    permissions: {deny: [Write, 'Bash(curl (x)):*)']}
  - name: b
`)
	checks := []struct {
		what      string
		got, want Permissions
	}{
		{"team", l.Permissions, Permissions{
			Allow: []Rule{
				{Text: "Bash(git status:*)", Tool: "Bash", Pattern: "git status:*", Line: 3, Column: 11},
				{Text: "Read", Tool: "Read", Line: 3, Column: 33},
				{Text: "Edit(src/**)", Tool: "Edit", Pattern: "src/**", Line: 3, Column: 39},
			},
			Deny: []Rule{{Text: "Bash(rm:*)", Tool: "Bash", Pattern: "rm:*", Line: 4, Column: 10}},
		}},
		{"lead", l.Lead.Permissions, Permissions{Allow: []Rule{
			{Text: "mcp__github", Tool: "mcp__github", Line: 8, Column: 9},
			{Text: "WebFetch(domain:go.dev)", Tool: "WebFetch", Pattern: "domain:go.dev", Line: 9, Column: 9},
		}}},
		{"members[0]", l.Members[0].Permissions, Permissions{Deny: []Rule{
			{Text: "Write", Tool: "Write", Line: 12, Column: 26},
			{Text: "Bash(curl (x)):*)", Tool: "Bash", Pattern: "curl (x)):*", Line: 12, Column: 33},
		}}},
		{"members[1]", l.Members[1].Permissions, Permissions{}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s permissions =\n%+v\nwant\n%+v", c.what, c.got, c.want)
		}
	}
}

// TestQuietBounds checks that quiet's limits are inclusive.
func TestQuietBounds(t *testing.T) {
	for src, want := range map[string]time.Duration{
		"100ms":  100 * time.Millisecond,
		"1h":     time.Hour,
		"60m":    time.Hour,
		"0.5s":   500 * time.Millisecond,
		"+2s":    2 * time.Second,
		"1m0.1s": time.Minute + 100*time.Millisecond,
	} {
		if got := mustParse(t, "team: t\nwatchdog: {quiet: "+src+"}\n").Watchdog.Quiet; got != want {
			t.Errorf("quiet: %s = %v, want %v", src, got, want)
		}
	}
}

// TestWatchdogDefaultNames checks that answers may name each of stallwatch's
// default patterns while defaults is on.
func TestWatchdogDefaultNames(t *testing.T) {
	src := "team: t\nwatchdog:\n  answer:\n"
	for _, name := range defaultPatternNames() {
		if stallwatch.IsDialog(name) {
			src += "    - {pattern: " + name + ", option: \"No\"}\n"
		} else {
			src += "    - {pattern: " + name + ", keys: [Enter]}\n"
		}
	}
	if n := len(mustParse(t, src).Watchdog.Answer); n != len(defaultPatternNames()) || n == 0 {
		t.Errorf("%d answers, want one per default pattern (%d)", n, len(defaultPatternNames()))
	}
}

func TestNullMeansNotSet(t *testing.T) {
	l := mustParse(t, "team: t\ndescription:\nroot: ~\nclaude: {command: null}\nlayout:\npermissions:\nlead:\nmembers:\nwatchdog:\n")
	if l.Claude.Command != "claude" || l.Arrangement != "main-vertical" || l.Lead.Name != "lead" || len(l.Members) != 0 ||
		l.Lead.Restart != "on-failure" || l.Watchdog.Quiet != 2*time.Second || !l.Watchdog.Defaults {
		t.Errorf("nulls were not taken as defaults: %+v", l)
	}
}

func TestFields(t *testing.T) {
	l := mustParse(t, `team: auth-fix
description: Fix the login bugs
claude:
  command: /opt/claude
  args: [--verbose, 2]
layout: windows
lead:
  name: boss
  model: opus
  color: pink
  prompt: Coordinate the team.
  permissionMode: manual
  teammateMode: in-process
  args: [--debug]
members:
  - name: researcher
    agentType: general-purpose
    model: sonnet
    color: blue
    prompt: Find where sessions expire.
    planModeRequired: true
    permissionMode: plan
  - name: web
    command: [python3, -m, http.server, 8000]
`)
	if l.Team != "auth-fix" || l.Description != "Fix the login bugs" || l.Arrangement != "windows" {
		t.Errorf("team fields: %+v", l)
	}
	if l.Claude.Command != "/opt/claude" || !slices.Equal(l.Claude.Args, []string{"--verbose", "2"}) {
		t.Errorf("Claude = %+v", l.Claude)
	}
	lead := l.Lead
	if lead.Name != "boss" || lead.Model != "opus" || lead.Color != "pink" || lead.Prompt != "Coordinate the team." ||
		lead.PermissionMode != "manual" || lead.TeammateMode != "in-process" || !slices.Equal(lead.Args, []string{"--debug"}) {
		t.Errorf("Lead = %+v", lead)
	}
	if lead.Line != 8 || lead.Column != 3 {
		t.Errorf("Lead at %d:%d, want 8:3", lead.Line, lead.Column)
	}
	r := l.Members[0]
	if r.Name != "researcher" || r.AgentType != "general-purpose" || r.Model != "sonnet" || r.Color != "blue" ||
		r.Prompt != "Find where sessions expire." || !r.PlanModeRequired || r.PermissionMode != "plan" || !r.IsClaude() {
		t.Errorf("members[0] = %+v", r)
	}
	if r.Line != 16 || r.Column != 5 {
		t.Errorf("members[0] at %d:%d, want 16:5", r.Line, r.Column)
	}
	web := l.Members[1]
	if web.IsClaude() || !slices.Equal(web.Command, []string{"python3", "-m", "http.server", "8000"}) {
		t.Errorf("members[1] = %+v", web)
	}
	if got := l.All(); len(got) != 3 || got[0].Name != "boss" || got[2].Name != "web" {
		t.Errorf("All() = %+v", got)
	}
}

func TestEnvOrder(t *testing.T) {
	l := mustParse(t, `team: t
env:
  ZED: z
  ALPHA: 1
  MID: true
  _x: "quoted # not a comment"
  FLOAT: 1.50
  EMPTY:
lead:
  env: {B: 2, A: 1}
members:
  - name: a
    env:
      Y: y
      X: x
`)
	want := []EnvVar{{"ZED", "z"}, {"ALPHA", "1"}, {"MID", "true"}, {"_x", "quoted # not a comment"}, {"FLOAT", "1.50"}, {"EMPTY", ""}}
	if !slices.Equal(l.Env, want) {
		t.Errorf("Env = %v, want %v", l.Env, want)
	}
	if want := []EnvVar{{"B", "2"}, {"A", "1"}}; !slices.Equal(l.Lead.Env, want) {
		t.Errorf("Lead.Env = %v, want %v", l.Lead.Env, want)
	}
	if want := []EnvVar{{"Y", "y"}, {"X", "x"}}; !slices.Equal(l.Members[0].Env, want) {
		t.Errorf("members[0].Env = %v, want %v", l.Members[0].Env, want)
	}
}

// TestMergeKeys checks that YAML anchors and merge keys work for sharing
// settings between members, with a member's own keys winning.
func TestMergeKeys(t *testing.T) {
	l := mustParse(t, `team: t
members:
  - &common
    name: a
    model: sonnet
    env: &env {A: "1"}
  - <<: *common
    name: b
  - <<: *common
    name: c
    model: opus
    env: *env
`)
	for i, want := range []string{"sonnet", "sonnet", "opus"} {
		if m := l.Members[i]; m.Model != want || !slices.Equal(m.Env, []EnvVar{{"A", "1"}}) {
			t.Errorf("members[%d] = %+v, want model %s and env A=1", i, m, want)
		}
	}
}

func TestRelativePaths(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"project/services/auth", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(dir, "elsewhere")
	path := writeFile(t, dir, "conf/team.yaml", `team: t
root: ../project
lead:
  cwd: services/../services/auth/
members:
  - name: a
    cwd: `+abs+`
  - name: b
`)
	// Parse with a relative path, from the temporary folder.
	t.Chdir(dir)
	l, err := Parse(filepath.Join("conf", "team.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "project")
	for _, c := range []struct{ what, got, want string }{
		{"Path", l.Path, path},
		{"Root", l.Root, root},
		{"Lead.Cwd", l.Lead.Cwd, filepath.Join(root, "services", "auth")},
		{"members[0].Cwd (absolute)", l.Members[0].Cwd, abs},
		{"members[1].Cwd (default)", l.Members[1].Cwd, root},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
}

func TestSymlinksKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	l, err := Parse(writeFile(t, dir, "t.yaml", "team: t\nroot: link\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "link"); l.Root != want {
		t.Errorf("Root = %q, want %q", l.Root, want)
	}
}

func TestStdinRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	l, err := ParseBytes("", []byte("team: t\nroot: sub\n"))
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wd, "sub"); l.Root != want || l.Path != "" {
		t.Errorf("Root, Path = %q, %q; want %q, \"\"", l.Root, l.Path, want)
	}
}

func TestDigest(t *testing.T) {
	data := []byte("team: t\n")
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	path := writeFile(t, t.TempDir(), "t.yaml", string(data))
	for i := range 2 {
		l, err := Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		if l.Digest != want {
			t.Errorf("parse %d: Digest = %s, want %s", i, l.Digest, want)
		}
	}
	// The digest is of the bytes, so even a comment changes it.
	other := mustParse(t, "team: t\n# changed\n")
	if other.Digest == want {
		t.Errorf("Digest did not change with the file's bytes")
	}
}

// TestConfigs checks that every example layout is valid, demo.yaml included
// once it exists.
func TestConfigs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"auth-fix.yaml", "dev-server.yaml"} {
		if !slices.Contains(paths, filepath.Join("..", "configs", want)) {
			t.Errorf("configs/%s is missing", want)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := Parse(path); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
}

func TestWorktree(t *testing.T) {
	l := mustParse(t, `team: t
worktrees: wt
trust: true
lead:
  worktree: false
members:
  - name: a
    worktree: true
  - name: b
    worktree: {branch: feature/b, base: origin/main}
  - name: c
    command: [x]
    worktree: {base: v1.2}
`)
	wd, _ := os.Getwd()
	if l.Worktrees != filepath.Join(wd, "wt") || !l.Trust {
		t.Errorf("Worktrees, Trust = %q, %v", l.Worktrees, l.Trust)
	}
	got := []*Worktree{l.Lead.Worktree}
	for _, m := range l.Members {
		got = append(got, m.Worktree)
	}
	want := []*Worktree{nil, {}, {Branch: "feature/b", Base: "origin/main"}, {Base: "v1.2"}}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) || got[i] != nil && *got[i] != *want[i] {
			t.Errorf("member %d: worktree %+v, want %+v", i, got[i], want[i])
		}
	}
}

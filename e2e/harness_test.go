package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// claudeVar names the Claude Code binary the tests run.
const claudeVar = "TEAMCTL_E2E_CLAUDE"

// apiKey is the fake key Claude Code is given. Its last 20 characters are
// pre-approved in .claude.json, so the "Detected a custom API key" dialog stays away.
const apiKey = "sk-ant-api03-teamctl-e2e-not-a-real-key-0123456789abcdefghij"

// wait is the deadline of every wait on Claude Code (start-up takes a few seconds,
// more with several sessions starting at once on a small machine, and more again
// with another go test on it); a wait ends as soon as what it waits for happens.
const wait = 2 * time.Minute

var versionOnce sync.Once

// claudeBinary returns the Claude Code binary under test, or skips the test.
func claudeBinary(t *testing.T) string {
	t.Helper()
	p := os.Getenv(claudeVar)
	if p == "" {
		t.Skip("set TEAMCTL_E2E_CLAUDE=/path/to/claude to run the end-to-end tests against the real Claude Code")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(abs)
	if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file (%v)", claudeVar, p, err)
	}
	return abs
}

// logVersion logs the binary's version once, and says so when it is not one
// these tests were written against (claudecode/tested-versions.txt, which
// .ci/run installs and runs them on). It runs with env (a test's isolated
// world), never with the user's HOME.
func logVersion(t *testing.T, bin string, env []string) {
	versionOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--version")
		cmd.Env = env
		out, err := cmd.Output()
		v := strings.TrimSpace(string(out))
		switch {
		case err != nil:
			t.Logf("%s --version: %v", bin, err)
		case !claudecode.IsTestedVersion(claudecode.Version(v)):
			t.Logf("Claude Code %s; these tests were written against %s", v, strings.Join(claudecode.TestedVersions(), ", "))
		default:
			t.Logf("Claude Code %s", v)
		}
	})
}

// world is one test's isolated teamctl + Claude Code + fake API.
type world struct {
	t      *testing.T
	e      *testenv.Env
	api    *fakeapi.Server
	claude string // the binary under test
	team   string
}

// newWorld makes a test world: a fake API answering with script (nil: "ok" to
// everything), a testenv (temp HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME,
// TMUX_TMPDIR) whose .claude.json skips onboarding and the API key question,
// and trusts the work folder when trusted is set.
func newWorld(t *testing.T, team string, trusted bool, script fakeapi.Script) *world {
	t.Helper()
	bin := claudeBinary(t)
	api, err := fakeapi.Start(fakeapi.WithLog(t.Logf), fakeapi.WithScript(script))
	if err != nil {
		t.Fatal(err)
	}
	// Clean-ups run last-registered first: the panes' snapshot (on failure),
	// then the tmux servers go and every process of the world has ended (Claude
	// Code writes into HOME on its way out), then testenv's own clean-up
	// removes the temp folders, and the fake API closes last.
	t.Cleanup(api.Close)
	e := testenv.New(t)
	w := &world{t: t, e: e, api: api, claude: bin, team: team}
	e.Extra = w.claudeEnv()
	w.writeClaudeJSON(trusted)
	logVersion(t, bin, e.Environ())
	t.Cleanup(func() {
		if u := api.Unhandled(); len(u) > 0 {
			t.Errorf("Claude Code called %d endpoint(s) the fake API does not answer (see the log): first %s", len(u), u[0])
		}
		if t.Failed() {
			w.dump()
		}
		e.KillServers()
		reap(t, e.Home)
	})
	return w
}

// claudeEnv is the environment teamctl, its tmux server and so every pane get on
// top of testenv's: Claude Code pointed at the fake API, quiet and offline,
// with its temporary files in the test's folder. Any
// ANTHROPIC_*/CLAUDE_CODE_* or proxy setting of the host is blanked out, so that
// the user's own Claude Code configuration (or a Claude Code session running
// the tests) does not leak in.
func (w *world) claudeEnv() []string {
	set := []string{
		"ANTHROPIC_BASE_URL=" + w.api.URL,
		"ANTHROPIC_API_KEY=" + apiKey,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"TEAMCTL_CLAUDE=" + w.claude,
		"CLAUDE_CODE_TMPDIR=" + w.tmpDir(), // else /tmp/claude-UID, outside the test's folders
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
	}
	mine := map[string]bool{}
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		mine[name] = true
	}
	var blank []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if mine[name] || name == "CLAUDE_CONFIG_DIR" {
			continue
		}
		switch {
		case strings.HasPrefix(name, "ANTHROPIC_"), strings.HasPrefix(name, "CLAUDE_CODE_"), name == "CLAUDECODE",
			slices.Contains([]string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"}, strings.ToUpper(name)):
			blank = append(blank, name+"=")
		}
	}
	return append(blank, set...)
}

// tmpDir is the world's temporary folder for Claude Code, inside the test's.
func (w *world) tmpDir() string {
	d := filepath.Join(w.e.Dir, "tmp")
	if err := os.MkdirAll(d, 0o700); err != nil {
		w.t.Fatal(err)
	}
	return d
}

// writeClaudeJSON writes Claude Code's global config. With CLAUDE_CONFIG_DIR set
// (testenv sets it to $HOME/.claude), Claude Code 2.1.328 reads and writes
// $CLAUDE_CONFIG_DIR/.claude.json and ignores $HOME/.claude.json (checked: with
// only the latter it showed the onboarding screens).
func (w *world) writeClaudeJSON(trusted bool) {
	if trusted {
		w.writeClaudeJSONTrusting(w.e.Work)
	} else {
		w.writeClaudeJSONTrusting()
	}
}

// writeClaudeJSONTrusting writes Claude Code's global config trusting dirs.
// (Claude Code 2.1.328 does not carry a folder's trust into a git repository
// below it: a repository must be trusted itself.)
func (w *world) writeClaudeJSONTrusting(dirs ...string) {
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}},
	}
	projects := map[string]any{}
	for _, d := range dirs {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true}
	}
	if len(projects) > 0 {
		cfg["projects"] = projects
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(w.e.ClaudeDir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.e.ClaudeDir, ".claude.json"), b, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// member is one teammate of a test layout.
type member struct {
	name, prompt string
}

// lead is the lead of a test layout: its prompt, permissionMode and restart
// policy, all optional.
type lead struct {
	prompt, permissionMode, restart string
}

// layout writes the team's layout: a lead (with leadPrompt, if any) and the
// teammates, all Claude Code (`claude`, which TEAMCTL_CLAUDE replaces).
func (w *world) layout(leadPrompt string, mates ...member) string {
	return w.teamLayout(lead{prompt: leadPrompt}, "", mates...)
}

// teamLayout writes the team's layout like layout, with the lead's settings in
// full and, when quiet is not "", a watchdog whose quiet period it is ("500ms").
func (w *world) teamLayout(ld lead, quiet string, mates ...member) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	fmt.Fprintf(&b, "team: %s\nclaude:\n  command: claude\nlead:\n  name: lead\n", w.team)
	if ld.prompt != "" {
		fmt.Fprintf(&b, "  prompt: %s\n", q(ld.prompt))
	}
	if ld.permissionMode != "" {
		fmt.Fprintf(&b, "  permissionMode: %s\n", ld.permissionMode)
	}
	if ld.restart != "" {
		fmt.Fprintf(&b, "  restart: %s\n", ld.restart)
	}
	if quiet != "" {
		fmt.Fprintf(&b, "watchdog:\n  quiet: %s\n", quiet)
	}
	b.WriteString("members:\n")
	for _, m := range mates {
		fmt.Fprintf(&b, "  - name: %s\n", m.name)
		if m.prompt != "" {
			fmt.Fprintf(&b, "    prompt: %s\n", q(m.prompt))
		}
	}
	return w.e.WriteFile("team.yaml", b.String())
}

func (w *world) socket() string { return "teamctl-" + w.team }

// status mirrors `teamctl status --json`.
type status struct {
	Team    string         `json:"team"`
	Socket  string         `json:"socket"`
	Session string         `json:"session"`
	Members []memberStatus `json:"members"`
}

// memberStatus is one member of `teamctl status --json`.
type memberStatus struct {
	Name      string `json:"name"`
	Role      string `json:"role"`
	Origin    string `json:"origin"`
	Pane      string `json:"pane"`
	PID       int    `json:"pid"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Restarts  int    `json:"restarts"`
	State     string `json:"state"`
	ExitCode  *int   `json:"exit_code"`
	Stall     *struct {
		Pattern string    `json:"pattern"`
		Line    string    `json:"line"`
		Since   time.Time `json:"since"`
	} `json:"stall"`
}

// member returns the member called name (ok false when status has none).
func (s status) member(name string) (memberStatus, bool) {
	for _, m := range s.Members {
		if m.Name == name {
			return m, true
		}
	}
	return memberStatus{}, false
}

// event mirrors one line of `teamctl events --json`.
type event struct {
	Time    time.Time `json:"time"`
	Member  string    `json:"member"`
	Pane    string    `json:"pane"`
	Kind    string    `json:"kind"`
	Pattern string    `json:"pattern"`
	Line    string    `json:"line"`
	Keys    []string  `json:"keys"`
	Option  string    `json:"option"`
	Detail  string    `json:"detail"`
}

func (e event) String() string {
	b, _ := json.Marshal(e)
	return string(b)
}

// events returns the team's events, oldest first (`teamctl events --json`).
func (w *world) events() []event {
	w.t.Helper()
	r := w.e.MustRun("events", "--json", "--team", w.team)
	var out []event
	for _, ln := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if ln == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			w.t.Fatalf("events --json: %v in line %q", err, ln)
		}
		out = append(out, e)
	}
	return out
}

// stateDir is the team's state folder, $XDG_STATE_HOME/teamctl/<team>.
func (w *world) stateDir() string { return filepath.Join(w.e.StateHome, "teamctl", w.team) }

func (w *world) status() status {
	w.t.Helper()
	r := w.e.MustRun("status", "--json", "--team", w.team)
	var s status
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		w.t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	return s
}

// panes maps member name → pane ID, from status.
func (w *world) panes() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for _, m := range w.status().Members {
		out[m.Name] = m.Pane
	}
	return out
}

// paneOf is the pane a member is in now: a relaunch (a restart, up) puts it
// in a new pane in its old one's place.
func (w *world) paneOf(name string) string {
	w.t.Helper()
	m, ok := w.status().member(name)
	if !ok {
		w.t.Fatalf("no member %s", name)
	}
	return m.Pane
}

// screen returns what a pane shows.
func (w *world) screen(pane string) string {
	out, err := w.e.Tmux(w.socket(), "capture-pane", "-p", "-J", "-t", pane)
	if err != nil {
		return fmt.Sprintf("(capture-pane %s: %v: %s)", pane, err, out)
	}
	return out
}

// dump logs every pane's screen and a summary of the fake API's requests.
func (w *world) dump() {
	out, err := w.e.Tmux(w.socket(), "list-panes", "-a", "-F", "#{pane_id} #{@teamctl-member} #{pane_pid} dead=#{pane_dead}")
	if err != nil {
		w.t.Logf("no panes to show: list-panes: %v %s", err, strings.TrimSpace(out))
		out = ""
	}
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(ln); len(f) > 0 {
			w.t.Logf("--- pane %s:\n%s", ln, w.screen(f[0]))
		}
	}
	for _, r := range w.api.Requests() {
		w.t.Logf("fake API saw %s", r)
	}
	if b, err := os.ReadFile(filepath.Join(w.stateDir(), "events.jsonl")); err == nil {
		w.t.Logf("--- events.jsonl:\n%s", b)
	}
	if b, err := os.ReadFile(filepath.Join(w.stateDir(), "supervisor.log")); err == nil {
		w.t.Logf("--- supervisor.log:\n%s", b)
	}
}

// poll checks cond every 200ms until it holds or timeout passes, then fails
// with what cond last saw. It is a condition wait with a deadline: tmux has no
// "screen changed" notification to block on, and capture-pane is a process
// start, so it polls slower than testenv.Eventually.
func poll(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen:\n%s", timeout, what, seen)
		}
		<-tick.C
	}
}

// waitScreens waits until cond holds for the screen of every pane in panes
// (member name → pane ID), and returns the screens.
func (w *world) waitScreens(what string, panes map[string]string, cond func(name, screen string) bool) map[string]string {
	w.t.Helper()
	screens := map[string]string{}
	poll(w.t, wait, what, func() (bool, string) {
		var bad []string
		for name, pane := range panes {
			s := w.screen(pane)
			screens[name] = s
			if !cond(name, s) {
				bad = append(bad, fmt.Sprintf("--- %s (pane %s):\n%s", name, pane, s))
			}
		}
		slices.Sort(bad)
		return len(bad) == 0, strings.Join(bad, "\n")
	})
	return screens
}

// waitRequest waits for the fake API to record a request match accepts.
func (w *world) waitRequest(what string, match func(fakeapi.Request) bool) fakeapi.Request {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := w.api.WaitFor(ctx, match)
	if err != nil {
		var seen []string
		for _, r := range w.api.Requests() {
			seen = append(seen, r.String())
		}
		w.t.Fatalf("waiting for %s: %v\nrequests seen:\n%s", what, err, strings.Join(seen, "\n"))
	}
	return r
}

// choose picks option in the menu a pane shows, as a person would: Down until
// "❯ option" is selected, then Enter once the selection has held for a moment,
// until the menu is gone. Claude Code draws its dialogs before it reads keys (a
// Down sent as soon as the trust dialog showed was dropped), and its menus wrap
// around, so a key is sent again only when the screen shows, after a while,
// that it had no effect.
func (w *world) choose(pane, option string) {
	w.t.Helper()
	selected := func(s string) bool {
		for _, ln := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(ln), "❯") && strings.Contains(ln, option) {
				return true
			}
		}
		return false
	}
	send := func(key string) {
		if out, err := w.e.Tmux(w.socket(), "send-keys", "-t", pane, key); err != nil {
			w.t.Fatalf("send-keys -t %s %s: %v %s", pane, key, err, out)
		}
	}
	var lastKey, heldSince time.Time
	var keys []string
	poll(w.t, wait, fmt.Sprintf("%q chosen on pane %s", option, pane), func() (bool, string) {
		s := w.screen(pane)
		seen := fmt.Sprintf("keys sent: %v\n%s", keys, s)
		if !strings.Contains(s, option) {
			return true, seen
		}
		now := time.Now()
		if !selected(s) {
			heldSince = time.Time{}
			if now.Sub(lastKey) > 1500*time.Millisecond {
				send("Down")
				lastKey, keys = now, append(keys, "Down")
			}
			return false, seen
		}
		if heldSince.IsZero() {
			heldSince = now
		}
		if now.Sub(lastKey) > 2*time.Second && now.Sub(heldSince) > 500*time.Millisecond {
			send("Enter")
			lastKey, keys = now, append(keys, "Enter")
		}
		return false, seen
	})
}

// inputBox finds Claude Code's input box on a screen: a line starting with "❯"
// right between two rules of "─". It returns the rule above it, where a
// teammate's name shows ("─── @alice ─").
func inputBox(screen string) (rule string, ok bool) {
	lines := strings.Split(screen, "\n")
	for i := 1; i+1 < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "❯") && isRule(lines[i-1]) && isRule(lines[i+1]) {
			return strings.TrimSpace(lines[i-1]), true
		}
	}
	return "", false
}

func isRule(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasPrefix(s, "─") && strings.HasSuffix(s, "─") && strings.Count(s, "─") >= 10
}

// process is a living process seen in /proc.
type process struct {
	PID  int
	Argv []string
}

func (p process) String() string { return fmt.Sprintf("pid %d %q", p.PID, p.Argv) }

// processesWithHome returns every living (not zombie) process whose environment
// has HOME=home: everything a test world started, whatever its process group.
func processesWithHome(home string) []process {
	var out []process
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() || !proc.Alive(pid) {
			continue
		}
		env, err := proc.Environ(pid)
		if err != nil || env["HOME"] != home {
			continue
		}
		argv, _ := proc.Cmdline(pid)
		out = append(out, process{PID: pid, Argv: argv})
	}
	return out
}

// isBinary reports whether pid runs bin: its /proc/PID/exe is the same file
// (hard links included), or its argv[0] is bin.
func isBinary(pid int, argv []string, bin string) bool {
	want, err := os.Stat(bin)
	if err != nil {
		return false
	}
	if got, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil && os.SameFile(got, want) {
		return true
	}
	return len(argv) > 0 && argv[0] == bin
}

// reap waits for every process of a test world (everything with its HOME) to
// end once its tmux servers are gone, and kills, each by its pid, what is still
// there after 10s. A test that cares about leftovers checks for them itself.
func reap(t *testing.T, home string) {
	deadline := time.Now().Add(10 * time.Second)
	killed := false
	for {
		left := processesWithHome(home)
		if len(left) == 0 {
			return
		}
		if !killed && time.Now().After(deadline) {
			for _, p := range left {
				t.Logf("clean-up: killing leftover %s", p)
				syscall.Kill(p.PID, syscall.SIGKILL)
			}
			killed = true
			deadline = time.Now().Add(10 * time.Second)
		} else if killed && time.Now().After(deadline) {
			t.Errorf("clean-up: processes survived SIGKILL: %v", left)
			return
		}
		time.Sleep(50 * time.Millisecond) // polling /proc: a process's end has no notification to wait on
	}
}

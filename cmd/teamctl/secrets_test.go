package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// newSentinel is a secret no other process on the machine can hold by chance.
func newSentinel(t *testing.T) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "sk-sentinel-" + hex.EncodeToString(b)
}

// cmdlinesWith lists every process on the machine whose argv holds s.
func cmdlinesWith(s string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + ent.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, fmt.Sprintf("pid %d: %q", pid, strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return found
}

// environsWith lists the pids whose environment holds s (those this user may read).
func environsWith(s string) []int {
	var found []int
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + ent.Name() + "/environ"); err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, pid)
		}
	}
	return found
}

// filesWith lists the files under root that hold s.
func filesWith(t *testing.T, root, s string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// TestEnvValuesAreSeenOnlyWhereTheREADMESays: env values of the team, of the
// lead, of a teammate and of a plain process reach their members exactly (and
// the session environment, for panes the lead spawns), and are nowhere else:
// on no process's command line (tmux server and clients, teamctl, members),
// in no file but state.json (0600, in a 0700 folder), not left in TMPDIR, not
// in up's, status's or events' output, events.jsonl or supervisor.log — after
// up, and after the supervisor restarted a member.
func TestEnvValuesAreSeenOnlyWhereTheREADMESays(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	tmp := filepath.Join(e.Dir, "tmp")
	os.MkdirAll(tmp, 0o700)
	e.Extra = append(e.Extra, "TMPDIR="+tmp)
	secret := newSentinel(t)
	vals := map[string]string{
		"TEAM_SECRET":  secret + "-team",
		"LEAD_SECRET":  secret + "-lead",
		"MATE_SECRET":  secret + "-mate\nwith a second line;",
		"PLAIN_SECRET": secret + "-plain",
	}
	layout := standInLayout(e, "team.yaml", fmt.Sprintf(`team: secrets
env: {TEAM_SECRET: %q}
lead:
  prompt: Lead the team.
  env: {LEAD_SECRET: %q}
members:
  - name: mate
    prompt: Do the work.
    env: {MATE_SECRET: %q}
  - name: plain
    command: [sh, -c, 'echo "has-team=${TEAM_SECRET:+yes} plain-len=${#PLAIN_SECRET}"; exec sleep 600']
    env: {PLAIN_SECRET: %q}
`, vals["TEAM_SECRET"], vals["LEAD_SECRET"], vals["MATE_SECRET"], vals["PLAIN_SECRET"]))
	up := e.MustRun("up", layout)
	outputs := map[string]string{"up": up.Stdout + up.Stderr}

	s := getStatus(t, e, "secrets")
	pids := map[string]int{}
	panes := map[string]string{}
	for _, m := range s.Members {
		pids[m.Name], panes[m.Name] = m.PID, m.Pane
	}
	// Members get exactly their values: the team's, and their own.
	want := map[string][]string{"lead": {"TEAM_SECRET", "LEAD_SECRET"}, "mate": {"TEAM_SECRET", "MATE_SECRET"}, "plain": {"TEAM_SECRET", "PLAIN_SECRET"}}
	checkEnv := func() {
		t.Helper()
		for name, vars := range want {
			env, err := proc.Environ(pids[name])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, k := range vars {
				if env[k] != vals[k] {
					t.Errorf("%s: %s=%q, want %q", name, k, env[k], vals[k])
				}
			}
		}
	}
	checkEnv()
	waitScreen(t, e, "teamctl-secrets", panes["plain"], fmt.Sprintf("has-team=yes plain-len=%d", len(vals["PLAIN_SECRET"])))
	// The session environment keeps the team's env for panes the lead spawns.
	if out, _ := e.Tmux("teamctl-secrets", "show-environment", "-t", "=secrets", "TEAM_SECRET"); out != "TEAM_SECRET="+vals["TEAM_SECRET"]+"\n" {
		t.Errorf("session environment: %q", out)
	}

	srvOut, err := e.Tmux("teamctl-secrets", "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err, srvOut)
	}
	server, _ := strconv.Atoi(strings.TrimSpace(srvOut))
	stateDir := filepath.Join(e.StateHome, "teamctl", "secrets")
	check := func(when string) {
		t.Helper()
		if found := cmdlinesWith(secret); len(found) > 0 {
			t.Errorf("%s: a value is on a command line:\n%s", when, strings.Join(found, "\n"))
		}
		// Only members (and what they start) have the values in their
		// environment, which only this user can read; not the tmux server.
		var inPanes []int
		for _, pid := range pids {
			inPanes = append(inPanes, proc.Tree(pid)...)
		}
		for _, pid := range environsWith(secret) {
			if !slices.Contains(inPanes, pid) {
				args, _ := proc.Cmdline(pid)
				t.Errorf("%s: pid %d (%q, server %d) has a value in its environment and is no member", when, pid, args, server)
			}
		}
		for _, root := range []string{e.Dir, e.TmuxTmpDir} {
			for _, f := range filesWith(t, root, secret) {
				if f != layout && f != filepath.Join(stateDir, "state.json") {
					t.Errorf("%s: a value is in %s", when, f)
				}
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%s: left in TMPDIR: %v", when, left)
		}
		for name, out := range outputs {
			if strings.Contains(out, secret) {
				t.Errorf("%s: a value is in the output of %s:\n%s", when, name, out)
			}
		}
	}
	check("after up")
	fi, err := os.Stat(filepath.Join(stateDir, "state.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state.json: %v %v, want 0600", fi, err)
	}
	if di, err := os.Stat(stateDir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("state folder: %v %v, want 0700", di, err)
	}

	// The supervisor relaunches a killed member with its env, through tmux.
	before := waitMember(t, e, "secrets", "plain", 20*time.Second, func(m memberStatus) bool { return live(m.State) })
	syscall.Kill(before.PID, syscall.SIGKILL)
	after := waitMember(t, e, "secrets", "plain", 30*time.Second, func(m memberStatus) bool {
		return m.Restarts == 1 && live(m.State) && m.PID != before.PID
	})
	pids["plain"] = after.PID
	checkEnv()
	testenv.Eventually(t, 20*time.Second, "the restart event", func() (bool, string) {
		evs := events(t, e, "secrets")
		return countEvents(evs, "plain", "restart") == 1, fmt.Sprint(evs)
	})
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"events"}, {"events", "--json"}, {"teams", "--json"}} {
		r := e.Run(append(args, "--team", "secrets")...)
		if args[0] == "teams" {
			r = e.Run(args...)
		}
		outputs[strings.Join(args, " ")] = r.Stdout + r.Stderr
	}
	check("after a restart")
}

// TestUpErrorShowsNoEnvValue: when tmux fails inside a batch that carries env
// values (here: the team's server is gone by the time the teammates' panes are
// made), up's error names the tmux commands and none of the values.
func TestUpErrorShowsNoEnvValue(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	secret := newSentinel(t)
	// The "Claude Code" is a shell that sleeps, so no team config appears and
	// up waits for one (--config-wait) before it makes the teammates' panes.
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: errpath
claude: {command: /bin/sh, args: [-c, "exec sleep 600"]}
env: {TEAM_SECRET: %q}
lead: {}
members:
  - name: mate
    env: {MATE_SECRET: %q}
  - name: tool
    command: [sleep, "600"]
`, secret+"-team", secret+"-mate"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "up", "--config-wait", "90s", layout)
	cmd.Env, cmd.Dir = e.Environ(), e.Work
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var claudeTeam string
	testenv.Eventually(t, 30*time.Second, "the lead in state.json", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "errpath", "state.json"))
		if err != nil || !bytes.Contains(b, []byte(`"role": "lead"`)) && !bytes.Contains(b, []byte(`"role":"lead"`)) {
			return false, string(b)
		}
		st, _ := readState(t, e, "errpath")
		claudeTeam = st.ClaudeTeam
		return claudeTeam != "", string(b)
	})
	if o, err := e.Tmux("teamctl-errpath", "kill-server"); err != nil {
		t.Fatal(err, o)
	}
	cfg := filepath.Join(e.ClaudeDir, "teams", claudeTeam, "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg+".tmp", []byte(`{"name":"`+claudeTeam+`","members":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Rename(cfg+".tmp", cfg)

	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("up succeeded without its server:\n%s", out.String())
		}
	case <-ctx.Done():
		t.Fatal("up did not end")
	}
	msg := out.String()
	if strings.Contains(msg, secret) {
		t.Errorf("up's error shows an env value:\n%s", msg)
	}
	if !strings.Contains(msg, "tmux ") || !strings.Contains(msg, "split-window") {
		t.Errorf("up's error does not name the tmux command that failed:\n%s", msg)
	}
}

// TestLongValuesArrive: a 200 KB teammate prompt reaches the teammate (through
// its mailbox); a 20 KB env value, over tmux's 16 KiB command limit, reaches
// its members and the session environment.
func TestLongValuesArrive(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var prompt strings.Builder
	prompt.WriteString("BEGIN-LONG-PROMPT\n")
	for prompt.Len() < 200<<10 {
		prompt.WriteString(strings.Repeat("p", 99) + "\n")
	}
	prompt.WriteString("END-LONG-PROMPT")
	env20k := "v20k-" + strings.Repeat("e", 20<<10)
	layout := standInLayout(e, "team.yaml", fmt.Sprintf(`team: long
env: {TEAM_BIG: %q}
lead:
  prompt: Lead.
  env: {LEAD_BIG: %q}
members:
  - name: mate
    prompt: %q
    env: {MATE_BIG: %q}
`, env20k, env20k, prompt.String(), env20k))
	e.MustRun("validate", layout)
	e.MustRun("up", layout)
	s := getStatus(t, e, "long")
	for _, m := range s.Members {
		env, err := proc.Environ(m.PID)
		if err != nil {
			t.Fatal(err)
		}
		own := map[string]string{"lead": "LEAD_BIG", "mate": "MATE_BIG"}[m.Name]
		if env["TEAM_BIG"] != env20k || env[own] != env20k {
			t.Errorf("%s: TEAM_BIG %d bytes, %s %d bytes; want %d each", m.Name, len(env["TEAM_BIG"]), own, len(env[own]), len(env20k))
		}
		if m.Name == "mate" {
			waitScreen(t, e, "teamctl-long", m.Pane, "END-LONG-PROMPT")
		}
	}
	if out, _ := e.Tmux("teamctl-long", "show-environment", "-t", "=long", "TEAM_BIG"); out != "TEAM_BIG="+env20k+"\n" {
		t.Errorf("session environment: %d bytes", len(out))
	}
	st, _ := readState(t, e, "long")
	b, _ := os.ReadFile(filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "mate.json"))
	if !bytes.Contains(b, []byte(`"read": true`)) && !bytes.Contains(b, []byte(`"read":true`)) {
		t.Errorf("the teammate has not read its prompt: %.200s", b)
	}
}

// TestTooLongLeadPromptOrEnvValueIsRefused: a 200 KB lead prompt or env value
// cannot be exec'd; validate and up say what, where, how long and the limit.
func TestTooLongLeadPromptOrEnvValueIsRefused(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	big := strings.Repeat("x", 200<<10)
	tooLong := standInLayout(e, "toolong.yaml", "team: toolong\nlead:\n  prompt: "+big+"\n  env:\n    KEY: "+big+"\n")
	for _, verb := range []string{"validate", "up"} {
		r := e.Run(verb, tooLong)
		for _, want := range []string{
			fmt.Sprintf("toolong.yaml:6:11: lead.prompt: the lead's prompt is %d bytes, and Linux takes at most 131071 bytes in one command-line argument", len(big)),
			fmt.Sprintf("toolong.yaml:8:10: lead.env.KEY: KEY=VALUE is %d bytes, and Linux takes at most 131071 bytes in one environment variable", len(big)+4),
		} {
			if r.Code == 0 || !strings.Contains(r.Stderr, want) {
				t.Errorf("%s: exit %d, stderr lacks %q:\n%.600s", verb, r.Code, want, r.Stderr)
			}
		}
	}
}

// TestTooLongSocketPathIsSaidClearly: a TMUX_TMPDIR that makes the team's
// socket path longer than a Unix socket allows is named by validate and up,
// not reported as a tmux server that is not running.
func TestTooLongSocketPathIsSaidClearly(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	long := filepath.Join(e.Dir, strings.Repeat("d", 100))
	os.MkdirAll(long, 0o700)
	e.Extra = append(e.Extra, "TMUX_TMPDIR="+long)
	small := standInLayout(e, "small.yaml", "team: small\n")
	for _, verb := range []string{"validate", "up"} {
		r := e.Run(verb, small)
		if r.Code == 0 || !strings.Contains(r.Stderr, "a Unix socket path may be at most 107") || !strings.Contains(r.Stderr, "TMUX_TMPDIR") {
			t.Errorf("%s with a long TMUX_TMPDIR: exit %d\n%s%s", verb, r.Code, r.Stdout, r.Stderr)
		}
	}
}

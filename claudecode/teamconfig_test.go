package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const observed = `{"name":"session-12345678","createdAt":1795992185450,"leadAgentId":"team-lead@session-12345678","leadSessionId":"12345678-1234-4234-8234-123456789abc","leadProcess":{"pid":1897,"pidSpace":"vm#pid:[4026531836]","claimedAt":1795992185450,"procStart":"13192"},"members":[{"agentId":"team-lead@session-12345678","name":"team-lead","agentType":"team-lead","joinedAt":1795992185450,"tmuxPaneId":"leader","cwd":"/tmp/x/proj","subscriptions":[],"backendType":"in-process"}]}`

func TestMinimalTeamConfigMatchesClaudeCode(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1795992185450)
	cfg := MinimalTeamConfig("session-12345678", "12345678-1234-4234-8234-123456789abc", "/tmp/x/proj", 1897, now)
	cfg.LeadProcess.PIDSpace = "vm#pid:[4026531836]" // machine-specific
	cfg.LeadProcess.ProcStart = "13192"
	got, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != observed {
		t.Errorf("got  %s\nwant %s", got, observed)
	}

	own := MinimalTeamConfig("t", "s", "/", os.Getpid(), now).LeadProcess
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	if want := host + "#" + ns; own.PIDSpace != want || !strings.HasPrefix(ns, "pid:[") {
		// Claude Code's own: os.hostname() + "#" + the pid namespace. A pid space
		// of another form is never taken as this machine's by a starting lead.
		t.Errorf("pidSpace = %q, want %q", own.PIDSpace, want)
	}
	if _, err := strconv.ParseUint(own.ProcStart, 10, 64); err != nil {
		t.Errorf("procStart = %q", own.ProcStart)
	}
	if ps := MinimalTeamConfig("t", "s", "/", 1<<30, now).LeadProcess.ProcStart; ps != "" {
		t.Errorf("procStart of no process = %q", ps)
	}
}

func TestReadTeamConfig(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "config.json")
	withTmux := strings.Replace(observed, `]}`, `,{"agentId":"r@session-12345678","name":"r","model":"sonnet","color":"blue",`+
		`"joinedAt":1,"tmuxPaneId":"%3","cwd":"/w","worktreePath":"/w","subscriptions":[],"backendType":"tmux"}]}`, 1)
	os.WriteFile(p, []byte(withTmux), 0o600)
	cfg, err := ReadTeamConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LeadSessionID != "12345678-1234-4234-8234-123456789abc" || cfg.LeadProcess.PID != 1897 ||
		len(cfg.Members) != 2 || cfg.Members[1].TmuxPaneID != "%3" || cfg.Members[1].BackendType != "tmux" ||
		cfg.Members[1].Color != "blue" || cfg.Members[1].WorktreePath != "/w" {
		t.Errorf("cfg = %+v", cfg)
	}
	if _, err := ReadTeamConfig(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestWriteTeamConfigIfMissing(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	dir, _ := ConfigDir()
	p, _ := TeamConfigPath(dir, "session-12345678")
	cfg := MinimalTeamConfig("session-12345678", "12345678-x", "/w", os.Getpid(), time.Now())

	written, err := WriteTeamConfigIfMissing(p, cfg)
	if err != nil || !written {
		t.Fatalf("first write: %v %v", written, err)
	}
	got, err := ReadTeamConfig(p)
	if err != nil || !reflect.DeepEqual(*got, cfg) {
		t.Errorf("read back %+v, %v", got, err)
	}

	real := []byte(`{"name":"the real lead's"}`)
	os.WriteFile(p, real, 0o600)
	written, err = WriteTeamConfigIfMissing(p, cfg)
	if err != nil || written {
		t.Fatalf("second write: %v %v", written, err)
	}
	if data, _ := os.ReadFile(p); string(data) != string(real) {
		t.Errorf("existing file replaced: %s", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestWaitTeamConfig(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "teams", "t", "config.json")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := WaitTeamConfig(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("missing: %v", err)
	}

	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(`{"name":"t",`), 0o600)
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := WaitTeamConfig(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("half written: %v", err)
	}

	done := make(chan error, 1)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { done <- WaitTeamConfig(ctx, p) }()
	if _, err := WriteTeamConfigIfMissing(p+".x", TeamConfig{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	os.Rename(p+".x", p)
	if err := <-done; err != nil {
		t.Errorf("written: %v", err)
	}
}

// TestWaitTeamConfigUnlocked: a lock on the config that Claude Code would
// still take for held holds `up` back until it would take it for left over;
// an old one, none, or one its holder removes does not; one kept fresh runs
// into the deadline. The lock is never removed.
func TestWaitTeamConfigUnlocked(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "config.json")
	lock := p + ".lock"
	if waited, err := WaitTeamConfigUnlocked(context.Background(), p); waited || err != nil {
		t.Errorf("no lock: waited %v, %v", waited, err)
	}

	os.Mkdir(lock, 0o700)
	old := time.Now().Add(-TeamLockStale - time.Second)
	os.Chtimes(lock, old, old)
	if waited, err := WaitTeamConfigUnlocked(context.Background(), p); waited || err != nil {
		t.Errorf("a lock left long ago: waited %v, %v", waited, err)
	}

	// Stale for Claude Code in a moment: waited for until it is.
	nearly := time.Now().Add(-TeamLockStale)
	os.Chtimes(lock, nearly, nearly)
	if waited, err := WaitTeamConfigUnlocked(context.Background(), p); !waited || err != nil {
		t.Errorf("a lock stale in a moment: waited %v, %v", waited, err)
	}
	if fi, err := os.Lstat(lock); err != nil || time.Since(fi.ModTime()) <= TeamLockStale {
		t.Errorf("returned while Claude Code would still take the lock for held (%v), or removed it (%v)", fi.ModTime(), err)
	}

	// Fresh (a deadline well inside its 10 s): its holder removing it ends the wait.
	now := time.Now()
	os.Chtimes(lock, now, now)
	ctx, cancel := context.WithTimeout(context.Background(), TeamLockStale-2*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := WaitTeamConfigUnlocked(ctx, p); done <- err }()
	os.Remove(lock)
	if err := <-done; err != nil {
		t.Errorf("the holder removed its lock, still waiting: %v", err)
	}

	os.Mkdir(lock, 0o700)
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if waited, err := WaitTeamConfigUnlocked(ctx, p); !waited || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), lock) {
		t.Errorf("a fresh lock past the deadline: waited %v, %v", waited, err)
	}
	if _, err := os.Lstat(lock); err != nil {
		t.Errorf("the lock was removed: %v", err)
	}
}

// TestPlaceholderTeamConfigNamesNoProcess: teamctl's own config names a
// leadProcess that is gone (no process can have NoPID; its start time matches
// nothing) in this machine's pid space, which a starting Claude Code lead
// takes over under the same name (docs/claude-code.md).
func TestPlaceholderTeamConfigNamesNoProcess(t *testing.T) {
	t.Parallel()
	cfg := PlaceholderTeamConfig("session-12345678", "12345678-1234-4234-8234-123456789abc", "/w", time.UnixMilli(1795992185450))
	lp := cfg.LeadProcess
	if lp == nil || lp.PID != NoPID || lp.PIDSpace != PIDSpace() || lp.ProcStart != "0" || lp.ClaimedAt != 1795992185450 {
		t.Fatalf("leadProcess = %+v", lp)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max >= NoPID {
			t.Errorf("pid_max %d: NoPID %d could be a process", max, NoPID)
		}
	}
	if !cfg.IsPlaceholder() || cfg.LeadSessionID != "12345678-1234-4234-8234-123456789abc" || len(cfg.Members) != 1 || cfg.Members[0].Name != LeadMailboxName {
		t.Errorf("cfg = %+v", cfg)
	}
	if own := MinimalTeamConfig("t", "s", "/", os.Getpid(), time.Now()); own.IsPlaceholder() {
		t.Error("a lead's own config taken for a placeholder")
	}
}

// TestClaimedTeam finds the team a living lead process claimed, whatever its
// folder's name, and nothing for a placeholder, another pid space, a reused
// pid (another start time), a config without a start time, or two configs
// naming the lead (one of them is not its own).
func TestClaimedTeam(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(team string, cfg TeamConfig) {
		p := filepath.Join(dir, "teams", team, "config.json")
		os.MkdirAll(filepath.Dir(p), 0o700)
		b, _ := json.Marshal(cfg)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	me := os.Getpid()
	write("session-aaaaaaaa", PlaceholderTeamConfig("session-aaaaaaaa", "aaaaaaaa-0000", "/", now))
	other := MinimalTeamConfig("session-bbbbbbbb", "bbbbbbbb-0000", "/", me, now)
	other.LeadProcess.PIDSpace = "elsewhere#pid:[1]"
	write("session-bbbbbbbb", other)
	reused := MinimalTeamConfig("session-cccccccc", "cccccccc-0000", "/", me, now)
	reused.LeadProcess.ProcStart = "1"
	write("session-cccccccc", reused)
	noStart := MinimalTeamConfig("session-dddddddd", "dddddddd-0000", "/", me, now)
	noStart.LeadProcess.ProcStart = ""
	write("session-dddddddd", noStart)
	os.MkdirAll(filepath.Join(dir, "teams", "session-empty"), 0o700)
	if name, _, ok := ClaimedTeam(dir, me); ok {
		t.Fatalf("found %s before the lead claimed any", name)
	}
	write("session-1f2e3d4c", MinimalTeamConfig("session-1f2e3d4c", "1f2e3d4c-random", "/", me, now))
	name, cfg, ok := ClaimedTeam(dir, me)
	if !ok || name != "session-1f2e3d4c" || cfg.LeadSessionID != "1f2e3d4c-random" {
		t.Errorf("ClaimedTeam = %q %+v %v", name, cfg, ok)
	}
	if name, _, ok := ClaimedTeam(dir, 1); ok {
		t.Errorf("found %s for a process that claimed nothing", name)
	}
	if _, _, ok := ClaimedTeam(filepath.Join(dir, "none"), me); ok {
		t.Error("found a team in a folder that does not exist")
	}
	write("session-2f2e3d4c", MinimalTeamConfig("session-2f2e3d4c", "2f2e3d4c-random", "/", me, now))
	if name, _, ok := ClaimedTeam(dir, me); ok {
		t.Errorf("found %s while two configs name the lead", name)
	}
}

// TestLeadAlive: a config's lead runs when its pid runs with the start time
// it names (or none); not for a reused pid, a pid that is gone, the
// placeholder's, or no leadProcess.
func TestLeadAlive(t *testing.T) {
	t.Parallel()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	cfg := func(pid int, start string) *TeamConfig {
		c := MinimalTeamConfig("session-12345678", "s", "/", pid, time.Now())
		c.LeadProcess.ProcStart = start
		return &c
	}
	for _, c := range []struct {
		name string
		cfg  *TeamConfig
		want bool
	}{
		{"this process", cfg(me, procStart(me)), true},
		{"this process, no start time", cfg(me, ""), true},
		{"this pid, another start time", cfg(me, "1"), false},
		{"a process that ended", cfg(gone.Process.Pid, ""), false},
		{"the placeholder", func() *TeamConfig { c := PlaceholderTeamConfig("t", "s", "/", time.Now()); return &c }(), false},
		{"no leadProcess", &TeamConfig{}, false},
	} {
		if got := c.cfg.LeadAlive(); got != c.want {
			t.Errorf("%s: LeadAlive = %v, want %v", c.name, got, c.want)
		}
	}
}

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
)

// sparseFile makes path a file of size bytes that takes no room on disk:
// read whole, it still costs size bytes of memory.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o700)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(tmp, size); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // whole, as Claude Code writes
		t.Fatal(err)
	}
}

// peakKB is the peak resident memory (VmHWM) of process pid, in KiB.
func peakKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(ln, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(rest, &kb)
			return kb
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// peakRSSTo, set, makes this test binary a small helper (see init) that runs
// the command of its arguments and writes that command's peak resident
// memory (getrusage's maxrss, KiB) to the file the variable names. A child
// started from the test itself would count the test's own peak: Go starts
// children with vfork, sharing the parent's memory until exec, and Linux
// counts that memory's peak in the child's. This helper is small and fresh.
const peakRSSTo = "TEAMCTL_TEST_PEAK_RSS_TO"

func init() {
	out := os.Getenv(peakRSSTo)
	if out == "" || len(os.Args) < 2 {
		return
	}
	os.Unsetenv(peakRSSTo)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peak RSS helper:", err)
		os.Exit(125)
	}
	kb := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if err := os.WriteFile(out, []byte(fmt.Sprint(kb)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "peak RSS helper:", err)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// runMeasured runs teamctl like e.Run and also returns its peak resident
// memory in KiB, measured by the helper above.
func runMeasured(t *testing.T, e *testenv.Env, args ...string) (testenv.Result, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, append([]string{e.Bin}, args...)...)
	cmd.Env, cmd.Dir = append(e.Environ(), peakRSSTo+"="+peakFile), e.Work
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	r := testenv.Result{Stdout: so.String(), Stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("teamctl %v: %v", args, err)
	}
	b, err := os.ReadFile(peakFile)
	if err != nil {
		t.Fatalf("teamctl %v: no peak measured (%v)\n%s", args, err, r.Stderr)
	}
	var kb int64
	fmt.Sscan(string(b), &kb)
	return r, kb
}

// TestLargeClaudeCodeFilesAreNotRead: a 400 MB task file and a 300 MB
// config.json (sparse) are not read: `teamctl tasks` lists the other tasks
// and says which file it left out and why, the supervisor reports each once
// (file-refused), and neither grows to hold them.
func TestLargeClaudeCodeFilesAreNotRead(t *testing.T) {
	t.Parallel()
	const most = 100 << 10 // KiB: teamctl needs a few tens of MiB; reading either file, over 300
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: hoard\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "hoard")
	testenv.Eventually(t, 10*time.Second, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "hoard").Supervisor.Running, ""
	})
	tasks := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	os.MkdirAll(tasks, 0o700)
	if err := os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"id":"1","subject":"SMALL-TASK","status":"pending"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(tasks, "2.json")
	sparseFile(t, big, 400<<20)

	r, peak := runMeasured(t, e, "tasks", "--team", "hoard")
	if r.Code != 0 || !strings.Contains(r.Stdout, "SMALL-TASK") {
		t.Errorf("tasks: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if want := big + " is too large to read (400.0 MiB; teamctl reads up to 1.0 MiB)"; !strings.Contains(r.Stderr, "warning") || !strings.Contains(r.Stderr, want) {
		t.Errorf("tasks does not say %q:\n%s", want, r.Stderr)
	}
	t.Logf("teamctl tasks peaked at %d KiB", peak)
	if peak > most {
		t.Errorf("teamctl tasks peaked at %d MiB", peak>>10)
	}

	// The config, the big task written again, then a task: once the
	// supervisor reports that task it has read the folder and the config
	// (one watcher, changes in order).
	cfg := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "config.json")
	sparseFile(t, cfg, 300<<20)
	sparseFile(t, big, 401<<20)
	if err := os.WriteFile(filepath.Join(tasks, "3.json"), []byte(`{"id":"3","subject":"LATER","status":"pending"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the later task's event", func() (bool, string) {
		evs := events(t, e, "hoard")
		for _, ev := range evs {
			if ev.Kind == "task" && strings.Contains(ev.Detail, "LATER") {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	sup := statusOf(t, e, "hoard").Supervisor
	if !sup.Running {
		t.Fatal("the supervisor stopped")
	}
	kb := peakKB(t, sup.PID)
	t.Logf("the supervisor peaked at %d KiB", kb)
	if kb > most {
		t.Errorf("the supervisor peaked at %d MiB", kb>>10)
	}
	// Each reported once, naming the file and the limit, though written twice.
	var refused []string
	for _, ev := range events(t, e, "hoard") {
		if ev.Kind == "file-refused" {
			refused = append(refused, ev.Detail)
		}
	}
	all := strings.Join(refused, "\n")
	if len(refused) != 2 || strings.Count(all, big+" is too large to read (400.0 MiB; teamctl reads up to 1.0 MiB)") != 1 ||
		strings.Count(all, cfg+" is too large to read (300.0 MiB; teamctl reads up to 4.0 MiB)") != 1 {
		t.Errorf("file-refused events:\n%s", all)
	}
}

// TestLinkedTeamFoldersAreRefused: an inboxes/ or tasks folder that is a
// symlink is not followed: inbox, send and tasks say so, naming it; nothing is
// written where it points (no .corrupt copy); the supervisor reports it once.
func TestLinkedTeamFoldersAreRefused(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: linked\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "linked")
	testenv.Eventually(t, 10*time.Second, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "linked").Supervisor.Running, ""
	})
	elsewhere := filepath.Join(e.Dir, "elsewhere")
	os.MkdirAll(elsewhere, 0o700)
	for _, f := range []string{"team-lead.json", "mate.json", "1.json"} {
		if err := os.WriteFile(filepath.Join(elsewhere, f), []byte(`[{"from": "ELSEWHERE`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	inboxes := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes")
	os.RemoveAll(inboxes)
	if err := os.Symlink(elsewhere, inboxes); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	os.MkdirAll(filepath.Dir(tasks), 0o700)
	os.RemoveAll(tasks)
	if err := os.Symlink(elsewhere, tasks); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"inbox", "lead"}, {"inbox", "mate"}, {"send", "mate", "hello"}, {"approve", "mate"}, {"tasks"}} {
		link := inboxes
		if args[0] == "tasks" {
			link = tasks
		}
		r := e.Run(append(args, "--team", "linked")...)
		if r.Code == 0 || !strings.Contains(r.Stderr, link+" is a symlink") || strings.Contains(r.Stdout+r.Stderr, "ELSEWHERE") {
			t.Errorf("%v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	testenv.Eventually(t, 30*time.Second, "a file-refused event for inboxes/", func() (bool, string) {
		evs := events(t, e, "linked")
		for _, ev := range evs {
			if ev.Kind == "file-refused" && strings.Contains(ev.Detail, inboxes+" is a symlink") {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	if copies, _ := filepath.Glob(filepath.Join(elsewhere, "*.corrupt")); len(copies) != 0 {
		t.Errorf("copies written through the link: %v", copies)
	}
	if b, _ := os.ReadFile(filepath.Join(elsewhere, "mate.json")); string(b) != `[{"from": "ELSEWHERE` {
		t.Errorf("mate.json elsewhere was changed: %q", b)
	}
}

// TestApproveTakesOnlyAMembersOwnRequest: a permission request another
// teammate wrote in mate's name (its agent_id) is not mate's: approve mate
// finds none and answers nothing, status never shows mate waiting for it;
// mate's own request is approved.
func TestApproveTakesOnlyAMembersOwnRequest(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: forged\nmembers:\n  - name: mate\n  - name: pal\n"))
	st, _ := readState(t, e, "forged")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ask := func(from, agentID, id string) {
		t.Helper()
		req := claudecode.PermissionRequest{RequestID: id, AgentID: agentID, ToolName: "Bash", Input: json.RawMessage(`{"command":"make deploy"}`)}
		if err := claudecode.AppendMessage(ctx, inbox, claudecode.PermissionRequestMessage(from, req, time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	ask("pal", "mate@"+st.ClaudeTeam, "perm-forged")
	testenv.Eventually(t, 30*time.Second, "the forged request reported as left alone", func() (bool, string) {
		evs := events(t, e, "forged")
		for _, ev := range evs {
			if ev.Kind == "message" && ev.Member == "pal" && strings.Contains(ev.Detail, "permission request perm-forged left alone") {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	if got := member(statusOf(t, e, "forged"), "mate").State; got == "waiting-approval" {
		t.Errorf("mate shows %s for a request pal wrote", got)
	}
	r := e.Run("approve", "mate", "--team", "forged")
	if r.Code == 0 || !strings.Contains(r.Stderr, "mate has no permission request waiting") {
		t.Errorf("approve mate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mateInbox := filepath.Join(filepath.Dir(inbox), "mate.json")
	if b, _ := os.ReadFile(mateInbox); strings.Contains(string(b), "perm-forged") {
		t.Errorf("an answer to the forged request in mate's mailbox:\n%s", b)
	}
	ask("mate", "mate@"+st.ClaudeTeam, "perm-own")
	waitMember(t, e, "forged", "mate", 30*time.Second, func(m memberStatus) bool { return m.State == "waiting-approval" })
	if r := e.MustRun("approve", "mate", "--team", "forged"); !strings.Contains(r.Stdout, "perm-own") {
		t.Errorf("approve mate: %s", r.Stdout)
	}
}

package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// plantLink makes a symlink at the team's state file name pointing at a file
// holding "precious", and returns the target.
func plantLink(t *testing.T, e *testenv.Env, team, name string) (link, victim string) {
	t.Helper()
	dir := filepath.Join(e.StateHome, "teamctl", team)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim = filepath.Join(e.Dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(dir, name)
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	return link, victim
}

func checkVictim(t *testing.T, victim string) {
	t.Helper()
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
		t.Errorf("written through the link: the victim holds %q (%v)", b, err)
	}
}

// TestStateFilesAreNeverWrittenThroughASymlink: a symlink planted at any file
// teamctl writes in a team's state folder is refused, saying so, and what it
// points at is left as it was; a file teamctl replaces whole (state.json) has
// the link replaced, never its target written.
func TestStateFilesAreNeverWrittenThroughASymlink(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"lock", "supervisor.lock", "events.jsonl", "events.lock", "supervisor.log", "supervisor.out"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			link, victim := plantLink(t, e, "linked", name)
			r := e.Run("up", standInLayout(e, "team.yaml", "team: linked\n"))
			if r.Code == 0 {
				t.Errorf("up succeeded with %s a symlink:\n%s%s", name, r.Stdout, r.Stderr)
			}
			if want := "refusing to write through a symlink: " + link; !strings.Contains(r.Stderr, want) {
				t.Errorf("up's error does not say %q:\n%s", want, r.Stderr)
			}
			checkVictim(t, victim)
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced or removed: %v %v", fi, err)
			}
		})
	}
	// state.json is replaced whole (a rename replaces a link, never its
	// target), but it says which pids `down` signals: it is never read
	// through a link either.
	t.Run("state.json", func(t *testing.T) {
		t.Parallel()
		e := testenv.New(t)
		link, victim := plantLink(t, e, "linked", "state.json")
		r := e.Run("up", standInLayout(e, "team.yaml", "team: linked\n"))
		if r.Code == 0 || !strings.Contains(r.Stderr, "refusing to read through a symlink: "+link) {
			t.Errorf("up with state.json a symlink: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		checkVictim(t, victim)
	})
	t.Run("lead-queue.jsonl", func(t *testing.T) {
		t.Parallel()
		e := testenv.New(t)
		e.MustRun("up", standInLayout(e, "team.yaml", "team: linked\n"))
		link, victim := plantLink(t, e, "linked", "lead-queue.jsonl")
		r := e.Run("send", "lead", "hello", "--team", "linked")
		if r.Code == 0 || !strings.Contains(r.Stderr, "refusing to write through a symlink: "+link) {
			t.Errorf("send lead with the queue a symlink: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		checkVictim(t, victim)
	})
}

// TestStateFolderMustBeRealAndPrivate: teamctl keeps a team's state only in
// real folders of the user's that no one else can write, and makes nothing
// through a symlinked one.
func TestStateFolderMustBeRealAndPrivate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		prepare func(e *testenv.Env, root, dir, elsewhere string)
		want    func(root, dir string) string
	}{
		"root a symlink": {
			func(e *testenv.Env, root, dir, elsewhere string) { os.Symlink(elsewhere, root) },
			func(root, dir string) string { return "state folder " + root + " is a symlink" },
		},
		"team folder a symlink": {
			func(e *testenv.Env, root, dir, elsewhere string) { os.Mkdir(root, 0o700); os.Symlink(elsewhere, dir) },
			func(root, dir string) string { return "state folder " + dir + " is a symlink" },
		},
		"team folder writable by all": {
			func(e *testenv.Env, root, dir, elsewhere string) { os.MkdirAll(dir, 0o700); os.Chmod(dir, 0o777) },
			func(root, dir string) string {
				return "state folder " + dir + " is writable by others (mode 0777): chmod 700 " + dir
			},
		},
	}
	if os.Getuid() == 0 {
		cases["team folder of another user"] = struct {
			prepare func(e *testenv.Env, root, dir, elsewhere string)
			want    func(root, dir string) string
		}{
			func(e *testenv.Env, root, dir, elsewhere string) {
				os.MkdirAll(dir, 0o700)
				os.Chown(dir, 65534, 65534)
			},
			func(root, dir string) string { return "state folder " + dir + " is owned by uid 65534" },
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			root := filepath.Join(e.StateHome, "teamctl")
			dir := filepath.Join(root, "private")
			elsewhere := filepath.Join(e.Dir, "elsewhere")
			os.Mkdir(elsewhere, 0o700)
			c.prepare(e, root, dir, elsewhere)
			r := e.Run("up", standInLayout(e, "team.yaml", "team: private\n"))
			if want := c.want(root, dir); r.Code == 0 || !strings.Contains(r.Stderr, want) {
				t.Errorf("up: exit %d, want an error saying %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
			}
			if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
				t.Errorf("made through the link: %v", ents)
			}
		})
	}
}

var rotMarker = regexp.MustCompile(`ROT-\d+-\d+`)

// markers returns the ROT markers of `events --json` output lines, in order.
func markers(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		if ln == "" {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(ln), &ev); err != nil {
			t.Fatalf("events line %q: %v", ln, err)
		}
		if m := rotMarker.FindString(ev.Detail); m != "" {
			got = append(got, m)
		}
	}
	return got
}

// TestEventsRotateAndAreReadAcross: with the limit lowered, events.jsonl
// rotates to events.jsonl.1 … .3 (no more kept, none much over the limit)
// while several `teamctl hook` processes append at once; `events` reads across
// the rotated files, oldest first, each event once; `events -f` follows across
// rotations; the supervisor still sees the hooks appended after them.
func TestEventsRotateAndAreReadAcross(t *testing.T) {
	if testing.Short() {
		t.Skip("a stress test: 160 hook processes, four at a time, against a lowered limit (state's TestEventLogRotatesUnderConcurrentAppendersAndReaders checks rotation under -short)")
	}
	t.Parallel()
	e := testenv.New(t)
	const limit = 4096
	e.Extra = append(e.Extra, fmt.Sprintf("TEAMCTL_EVENTS_MAX_BYTES=%d", limit))
	e.MustRun("up", standInLayout(e, "team.yaml", "team: rotate\nmembers:\n  - name: mate\n    env: {TEAMCTL_STANDIN_SCRIPT: busy}\n"))
	testenv.Eventually(t, 10*time.Second, "the supervisor's start", func() (bool, string) {
		return countEvents(events(t, e, "rotate"), "", "supervisor") == 1, ""
	})
	dir := filepath.Join(e.StateHome, "teamctl", "rotate")

	// Hang guards, not timings: the follower lives through the whole test,
	// each hook gets its own (160 of them on a loaded machine took over the
	// two minutes one shared deadline gave them all).
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	follow := exec.CommandContext(ctx, e.Bin, "events", "--follow", "--json", "--team", "rotate")
	follow.Env = e.Environ()
	var followed safeBuffer
	follow.Stdout = &followed
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { follow.Process.Kill(); follow.Wait() }()

	hook := func(event, member, pane, message string) {
		t.Helper()
		hctx, hcancel := context.WithTimeout(ctx, 2*time.Minute)
		defer hcancel()
		cmd := exec.CommandContext(hctx, e.Bin, "hook")
		// A hook records only from a pane (its TMUX_PANE).
		cmd.Env = append(e.Environ(), "TEAMCTL_TEAM=rotate", "TEAMCTL_MEMBER="+member, "TMUX_PANE="+pane)
		b, _ := json.Marshal(map[string]string{"session_id": "s", "hook_event_name": event, "message": message})
		cmd.Stdin = strings.NewReader(string(b))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("hook: %v %s", err, out)
		}
	}
	// Phase 1: 4 processes at a time append 60 events (~9 KB, two rotations),
	// well under what the kept files hold (~16 KB), so nothing is dropped yet.
	const writers, each = 4, 15
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				hook("Notification", "outsider", "%99", fmt.Sprintf("ROT-%d-%02d", w, i))
			}
		}()
	}
	wg.Wait()
	if _, err := os.Stat(filepath.Join(dir, "events.jsonl.1")); err != nil {
		t.Fatalf("events.jsonl did not rotate: %v", err)
	}
	inOrder := func(what string, got []string, whole bool) {
		t.Helper()
		next, seen := map[string]int{}, map[string]bool{}
		for _, m := range got {
			if seen[m] {
				t.Fatalf("%s: %s twice in %v", what, m, got)
			}
			seen[m] = true
			var w, i int
			fmt.Sscanf(m, "ROT-%d-%d", &w, &i)
			k := fmt.Sprint(w)
			if n, ok := next[k]; ok && i != n || !ok && whole && i != 0 {
				t.Fatalf("%s: %s out of order in %v", what, m, got)
			}
			next[k] = i + 1
		}
	}
	all := markers(t, e.MustRun("events", "--json", "--team", "rotate").Stdout)
	if len(all) != writers*each {
		t.Fatalf("events shows %d of the %d events:\n%v", len(all), writers*each, all)
	}
	inOrder("events", all, true)
	testenv.Eventually(t, 20*time.Second, "events -f to follow every event across the rotations", func() (bool, string) {
		got := markers(t, followed.String())
		return len(got) >= writers*each, fmt.Sprint(got)
	})
	if got := markers(t, followed.String()); strings.Join(got, " ") != strings.Join(all, " ") {
		t.Errorf("events -f followed\n%v\nevents shows\n%v", got, all)
	}

	// Phase 2: enough more for the oldest files to go.
	for i := range 100 {
		hook("Notification", "outsider", "%99", fmt.Sprintf("ROT-9-%02d", i))
	}
	var names []string
	for n := 1; n <= 4; n++ {
		p := filepath.Join(dir, fmt.Sprintf("events.jsonl.%d", n))
		fi, err := os.Stat(p)
		if n == 4 {
			if err == nil {
				t.Errorf("%s kept: only 3 rotated files should be", p)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fi.Size() > limit+1024 {
			t.Errorf("%s is %d bytes, over the limit of %d by more than a line", p, fi.Size(), limit)
		}
		names = append(names, fmt.Sprint(filepath.Base(p), " ", fi.Size()))
	}
	kept := markers(t, e.MustRun("events", "--json", "--team", "rotate").Stdout)
	if len(kept) == 0 || len(kept) >= writers*each+100 || kept[len(kept)-1] != "ROT-9-99" {
		t.Errorf("events after the oldest went (%v): %v", names, kept)
	}
	inOrder("events after the oldest went", kept, false)
	testenv.Eventually(t, 20*time.Second, "events -f to follow the newest", func() (bool, string) {
		got := markers(t, followed.String())
		return len(got) > 0 && got[len(got)-1] == "ROT-9-99", fmt.Sprint(got)
	})
	// A follower the machine left far behind may have lost events that went
	// with the oldest file; none may come twice or out of order.
	last := map[string]int{}
	for _, m := range markers(t, followed.String()) {
		var w, i int
		fmt.Sscanf(m, "ROT-%d-%d", &w, &i)
		if n, ok := last[fmt.Sprint(w)]; ok && i <= n {
			t.Fatalf("events -f: %s after ROT-%d-%02d", m, w, n)
		}
		last[fmt.Sprint(w)] = i
	}

	// The supervisor follows the log across all that: a Stop hook from mate's
	// pane now makes the busy mate idle.
	hook("Stop", "mate", member(statusOf(t, e, "rotate"), "mate").Pane, "")
	testenv.Eventually(t, 20*time.Second, "the supervisor to take mate's Stop hook", func() (bool, string) {
		for _, ev := range events(t, e, "rotate") {
			if ev.Member == "mate" && ev.Kind == "idle" && ev.Detail == "hook Stop" {
				return true, ""
			}
		}
		return false, fmt.Sprint(events(t, e, "rotate"))
	})
}

// TestSupervisorLogRotates: the supervisor's log rotates by size: a
// supervisor.log at the limit is moved aside to supervisor-<time>.log when the
// supervisor starts writing, and no more than 3 such backups are kept.
func TestSupervisorLogRotates(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	dir := filepath.Join(e.StateHome, "teamctl", "logged")
	os.MkdirAll(dir, 0o700)
	full := strings.Repeat("an old line of a long-running supervisor's log\n", (8<<20)/47+1)
	if err := os.WriteFile(filepath.Join(dir, "supervisor.log"), []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		old := filepath.Join(dir, fmt.Sprintf("supervisor-2020-01-0%dT00-00-00.000.log", i+1))
		if err := os.WriteFile(old, []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.MustRun("up", standInLayout(e, "team.yaml", "team: logged\n"))
	testenv.Eventually(t, 20*time.Second, "supervisor.log to start afresh with the supervisor's lines, and 3 backups", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(dir, "supervisor.log"))
		backups, _ := filepath.Glob(filepath.Join(dir, "supervisor-*.log"))
		return len(b) < 1<<20 && strings.Contains(string(b), "supervising") && len(backups) == 3,
			fmt.Sprintf("supervisor.log %d bytes; backups %v", len(b), backups)
	})
	backups, _ := filepath.Glob(filepath.Join(dir, "supervisor-*.log"))
	rotated := false
	for _, p := range backups {
		if fi, _ := os.Stat(p); fi != nil && fi.Size() == int64(len(full)) {
			rotated = true
		}
	}
	if !rotated {
		t.Errorf("the full log is not among the backups %v", backups)
	}
	if !statusOf(t, e, "logged").Supervisor.Running {
		t.Error("the supervisor is not running")
	}
}

// TestLargeLeadInboxIsReportedNotLoaded: a lead inbox over 16 MiB is reported
// once (mailbox-too-large, with its size) and not loaded by the supervisor,
// which carries on; `teamctl inbox lead` says it is too large instead of
// reading it.
func TestLargeLeadInboxIsReportedNotLoaded(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: big\n"))
	st, _ := readState(t, e, "big")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json")
	testenv.Eventually(t, 10*time.Second, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "big").Supervisor.Running, ""
	})
	// 17 MiB of well-formed messages from a teammate.
	type msg struct {
		From      string `json:"from"`
		Text      string `json:"text"`
		Timestamp string `json:"timestamp"`
		Read      bool   `json:"read"`
	}
	var msgs []msg
	for i := range 17 * 16 {
		msgs = append(msgs, msg{From: "mate", Text: fmt.Sprintf("BIG-%d ", i) + strings.Repeat("x", 64<<10), Timestamp: fmt.Sprintf("2026-01-01T00:00:%02d.%03dZ", i/1000, i%1000)})
	}
	b, _ := json.Marshal(msgs)
	size := len(b)
	os.MkdirAll(filepath.Dir(inbox), 0o700)
	// Written as Claude Code writes mailboxes, whole (temp file, rename): a
	// reader must never meet half of it.
	writeWhole := func(data []byte) {
		t.Helper()
		tmp := inbox + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, inbox); err != nil {
			t.Fatal(err)
		}
	}
	writeWhole(b)
	testenv.Eventually(t, 20*time.Second, "a mailbox-too-large event", func() (bool, string) {
		evs := events(t, e, "big")
		return countEvents(evs, "team-lead", "mailbox-too-large") == 1, fmt.Sprint(evs)
	})
	// Written to again, and still too large: no second report. A task written
	// after it is a change the supervisor sees after the inbox's (one watcher,
	// events in order): once it reports the task, it has looked at the inbox.
	writeWhole(append(b[:len(b)-1], []byte(`,{"from":"mate","text":"BIG-LAST","timestamp":"t","read":false}]`)...))
	task, _ := json.Marshal(map[string]any{"id": "1", "subject": "After the inbox", "status": "pending", "owner": "lead"})
	tasks := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	os.MkdirAll(tasks, 0o700)
	if err := os.WriteFile(filepath.Join(tasks, "1.json"), task, 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "the task event", func() (bool, string) {
		evs := events(t, e, "big")
		return countEvents(evs, "lead", "task") >= 1, fmt.Sprint(evs)
	})
	r := e.Run("inbox", "lead", "--team", "big")
	if r.Code == 0 || !strings.Contains(r.Stderr, inbox+" is too large to read") || strings.Contains(r.Stdout, "BIG-1") {
		t.Errorf("inbox lead: exit %d\n%s\n%.300s", r.Code, r.Stderr, r.Stdout)
	}
	evs := events(t, e, "big")
	for _, ev := range evs {
		if ev.Kind == "mailbox-too-large" && !strings.Contains(ev.Detail, fmt.Sprint(size)) {
			t.Errorf("the event does not give the size %d: %q", size, ev.Detail)
		}
		if ev.Kind == "message" && strings.Contains(ev.Detail, "BIG-") {
			t.Errorf("the supervisor loaded the mailbox: %+v", ev)
		}
	}
	if n := countEvents(evs, "team-lead", "mailbox-too-large"); n != 1 {
		t.Errorf("%d mailbox-too-large events", n)
	}
	if !statusOf(t, e, "big").Supervisor.Running {
		t.Error("the supervisor stopped over a large mailbox")
	}
}

// TestCorruptInboxIsCopiedOnce: every send to a teammate whose mailbox does not
// parse fails, saying so, and the mailbox is copied aside once, not once a try.
func TestCorruptInboxIsCopiedOnce(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: copies\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "copies")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "mate.json")
	garbage := []byte(`[{"from": "team-lead", "text": `)
	os.MkdirAll(filepath.Dir(inbox), 0o700)
	if err := os.WriteFile(inbox, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := e.Run("send", "mate", "hello", "--team", "copies")
		if r.Code == 0 || !strings.Contains(r.Stderr, "is corrupt") || !strings.Contains(r.Stderr, inbox+".corrupt") {
			t.Errorf("send to a corrupt mailbox: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	copies, _ := filepath.Glob(inbox + ".corrupt*")
	if len(copies) != 1 {
		t.Fatalf("copies: %v", copies)
	}
	if b, _ := os.ReadFile(copies[0]); string(b) != string(garbage) {
		t.Errorf("the copy holds %q", b)
	}
	if b, _ := os.ReadFile(inbox); string(b) != string(garbage) {
		t.Errorf("the mailbox was changed: %q", b)
	}
}

// TestDoctorFailsOnAnUnsafeStateFolder: doctor checks the state folder as teamctl
// uses it: a symlink there fails, with what to do.
func TestDoctorFailsOnAnUnsafeStateFolder(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE="+e.Bin)
	root := filepath.Join(e.StateHome, "teamctl")
	elsewhere := filepath.Join(e.Dir, "elsewhere")
	os.Mkdir(elsewhere, 0o700)
	if err := os.Symlink(elsewhere, root); err != nil {
		t.Fatal(err)
	}
	r := e.Run("doctor", "--json")
	var checks []struct {
		Name, Detail, Fix string
		OK                bool
	}
	if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil {
		t.Fatal(err, r.Stdout)
	}
	for _, c := range checks {
		if c.Name == "state folder" && (c.OK || !strings.Contains(c.Detail, root+" is a symlink") || c.Fix == "") {
			t.Errorf("doctor's state folder check: %+v", c)
		}
	}
	if r.Code == 0 {
		t.Error("doctor passed with the state folder a symlink")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("doctor wrote through the link: %v", ents)
	}
}

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/proc"
)

// TestUpShowsEveryInputBox: `up` of a lead and two teammates in a trusted folder
// brings every Claude Code session to its input box, each teammate with its name
// in the input rule, and status reports all three running.
func TestUpShowsEveryInputBox(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "boxes", true, nil)
	layout := w.layout("", member{name: "alice"}, member{name: "bob"})
	// The lead gets as long as it needs to write its team config (up goes on
	// as soon as it is there): up steps in only for a lead that never does,
	// and a busy machine took the lead over the default 5 s.
	r := w.e.MustRun("up", "--config-wait", "2m", layout)
	for _, name := range []string{"lead", "alice", "bob"} {
		if !strings.Contains(r.Stdout, name) {
			t.Errorf("up output does not mention %s:\n%s", name, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "note:") {
		t.Errorf("up had to step in for the lead:\n%s", r.Stdout)
	}

	panes := w.panes()
	w.waitScreens("Claude Code's input box on every pane, with the teammate's name in its rule", panes, func(name, s string) bool {
		rule, ok := inputBox(s)
		if name == "lead" {
			return ok && !strings.Contains(rule, "@")
		}
		return ok && strings.Contains(rule, "@"+name)
	})

	st := w.status()
	if len(st.Members) != 3 {
		t.Fatalf("status has %d members, want 3: %+v", len(st.Members), st)
	}
	for _, m := range st.Members {
		// The supervisor reports a member at its input box idle once it has
		// been quiet for a while (2s by default); until then it is working.
		if (m.State != "working" && m.State != "idle") || m.ExitCode != nil {
			t.Errorf("%s: state %s exit %v, want working or idle", m.Name, m.State, m.ExitCode)
		}
		argv, _ := proc.Cmdline(m.PID)
		if !proc.Alive(m.PID) || !isBinary(m.PID, argv, w.claude) {
			t.Errorf("%s: pid %d (%q) is not a living %s", m.Name, m.PID, argv, w.claude)
		}
	}
}

// TestPromptsReachTheAPI: a teammate's layout prompt reaches the model as its
// first user turn, through its mailbox (Claude Code wraps it in
// <teammate-message teammate_id="team-lead">), and the lead's prompt as the
// lead's first turn; each answer shows in its pane.
func TestPromptsReachTheAPI(t *testing.T) {
	t.Parallel()
	prompts := map[string]string{
		"lead":  "Plan the release; token LEAD-7f3a.",
		"alice": "Find where sessions expire; token ALICE-51c2.",
		"bob":   "Review the fix before it lands; token BOB-9e04.",
	}
	answer := func(name string) string { return "Answer for " + name + " from the fake model." }
	var rules []fakeapi.Rule
	for name, p := range prompts {
		rules = append(rules, fakeapi.Rule{When: fakeapi.LastUserContains(p), Reply: fakeapi.Always(fakeapi.Text(answer(name)))})
	}
	w := newWorld(t, "prompts", true, fakeapi.Rules(rules...))
	layout := w.layout(prompts["lead"], member{"alice", prompts["alice"]}, member{"bob", prompts["bob"]})
	w.e.MustRun("up", layout)

	for _, name := range []string{"alice", "bob"} {
		p := prompts[name]
		req := w.waitRequest(name+"'s prompt as a turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(p) })
		users := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				users++
			}
		}
		if users != 1 {
			t.Errorf("%s's prompt arrived in a request with %d user turns, want it as the first:\n%s", name, users, req.RawBody)
		}
		var block string
		for _, tx := range req.UserTexts() {
			if strings.Contains(tx, p) {
				block = tx
			}
		}
		if want := `<teammate-message teammate_id="team-lead">`; !strings.Contains(block, want) {
			t.Errorf("%s's prompt arrived as %q, not inside %s", name, block, want)
		}
		if got := req.Header.Get("X-Api-Key"); got != apiKey {
			t.Errorf("%s's request carried key %q, want the test's", name, got)
		}
	}
	lp := prompts["lead"]
	req := w.waitRequest("the lead's prompt as a turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(lp) })
	for _, tx := range req.UserTexts() {
		if strings.Contains(tx, lp) && strings.Contains(tx, "<teammate-message") {
			t.Errorf("the lead's prompt came as a teammate message: %q", tx)
		}
	}

	panes := w.panes()
	w.waitScreens("each member's answer on its screen, back at the input box", panes, func(name, s string) bool {
		_, idle := inputBox(s)
		return idle && strings.Contains(s, answer(name))
	})
	for _, name := range []string{"alice", "bob"} {
		if s := w.screen(panes[name]); !strings.Contains(s, "Message from @team-lead") {
			t.Errorf("%s's screen does not show the message from the lead:\n%s", name, s)
		}
	}
}

// TestDownLeavesNoClaudeBehind: after `down` no Claude Code process of the team
// is left, nor anything they started (a shell a teammate put in the
// background runs in its own session, out of the pane's process group).
func TestDownLeavesNoClaudeBehind(t *testing.T) {
	t.Parallel()
	const bg = "sleep 617"
	w := newWorld(t, "gone", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("started it"))},
		fakeapi.Rule{When: fakeapi.LastUserContains("BACKGROUND-JOB"), Reply: fakeapi.Always(fakeapi.ToolUse("Bash",
			map[string]any{"command": bg, "run_in_background": true, "description": "Wait in the background"}))},
	))
	layout := w.layout("", member{"alice", "Start the BACKGROUND-JOB."}, member{name: "bob"})
	w.e.MustRun("up", layout)
	panes := w.panes()
	w.waitScreens("every member at its input box, alice done with her turn", panes, func(name, s string) bool {
		_, idle := inputBox(s)
		return idle && (name != "alice" || strings.Contains(s, "started it"))
	})
	tr := w.waitRequest("the background command's tool_result", fakeapi.Request.IsToolResult)

	st := w.status()
	var before []process
	var sawJob bool
	poll(t, wait, "the team's Claude Code processes and alice's background job in /proc", func() (bool, string) {
		before = processesWithHome(w.e.Home)
		claudes := 0
		sawJob = false
		for _, p := range before {
			if isBinary(p.PID, p.Argv, w.claude) {
				claudes++
			}
			if slices.Contains(p.Argv, bg) || strings.Contains(strings.Join(p.Argv, " "), bg) {
				sawJob = true
			}
		}
		return claudes >= len(st.Members) && sawJob, fmt.Sprintf("%d Claude Code processes (want %d), background job seen %v (its tool_result: %q); processes with this HOME: %v",
			claudes, len(st.Members), sawJob, tr.LastUser().ToolResults()[0].Text, before)
	})
	t.Logf("before down: %v", before)

	w.e.MustRun("down", "--team", w.team)

	for _, m := range st.Members {
		if proc.Alive(m.PID) {
			argv, _ := proc.Cmdline(m.PID)
			t.Errorf("%s (pid %d, %q) is still alive after down", m.Name, m.PID, argv)
		}
	}
	poll(t, wait, "no process with this test's HOME after down", func() (bool, string) {
		left := processesWithHome(w.e.Home)
		var lines []string
		for _, p := range left {
			kind := "other"
			if isBinary(p.PID, p.Argv, w.claude) {
				kind = "Claude Code"
			}
			lines = append(lines, fmt.Sprintf("%s: %s", kind, p))
		}
		return len(left) == 0, strings.Join(lines, "\n")
	})
	for _, m := range w.status().Members {
		if m.State != "exited" {
			t.Errorf("%s is %s after down", m.Name, m.State)
		}
	}
}

// TestUntrustedFolderAsksFirst: in a folder Claude Code does not trust yet,
// every member shows the trust dialog and nothing reaches the model; once a
// person trusts it in a teammate's pane, that teammate takes its prompt.
func TestUntrustedFolderAsksFirst(t *testing.T) {
	t.Parallel()
	const prompt = "Check the folder; token TRUST-2b7d."
	w := newWorld(t, "trust", false, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(prompt), Reply: fakeapi.Always(fakeapi.Text("Trusted and answered."))},
	))
	layout := w.layout("", member{"alice", prompt})
	if r := w.e.MustRun("up", layout); !strings.Contains(r.Stdout, "lead, alice will stop at its trust dialog") {
		t.Errorf("up did not say that the lead and alice will stop at the trust dialog:\n%s", r.Stdout)
	}
	panes := w.panes()
	w.waitScreens("the trust dialog on every pane", panes, func(name, s string) bool {
		return strings.Contains(s, "Accessing workspace:") && strings.Contains(s, "Yes, I trust this folder")
	})
	for _, r := range w.api.Requests() {
		if r.IsTurn() {
			t.Errorf("a turn reached the model before the folder was trusted: %s", r)
		}
	}

	// What a person does after `teamctl attach alice`: choose "Yes" and confirm.
	w.choose(panes["alice"], "Yes, I trust this folder")
	w.waitRequest("alice's prompt after trusting", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(prompt) })
	w.waitScreens("alice at her input box with the answer", map[string]string{"alice": panes["alice"]}, func(_, s string) bool {
		rule, ok := inputBox(s)
		return ok && strings.Contains(rule, "@alice") && strings.Contains(s, "Trusted and answered.")
	})
	if s := w.screen(panes["lead"]); !strings.Contains(s, "Yes, I trust this folder") {
		t.Errorf("the lead left its trust dialog on its own:\n%s", s)
	}
}

// TestDownEndsShellsOfAKilledClaude: Claude Code's Bash tool runs every command
// in a session of its own, out of the pane's process group. Claude Code ends its
// background shells when it gets SIGTERM, but one that is SIGKILLed (by `down`
// after --timeout, or the OOM killer) leaves them running, reparented to init;
// `down` finds them by the team's environment (TEAMCTL_TEAM, TEAMCTL_MEMBER).
func TestDownEndsShellsOfAKilledClaude(t *testing.T) {
	t.Parallel()
	const bg = "sleep 619"
	w := newWorld(t, "orphans", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("started it"))},
		fakeapi.Rule{When: fakeapi.LastUserContains("BACKGROUND-JOB"), Reply: fakeapi.Always(fakeapi.ToolUse("Bash",
			map[string]any{"command": bg, "run_in_background": true, "description": "Wait in the background"}))},
	))
	w.e.MustRun("up", w.layout("", member{"alice", "Start the BACKGROUND-JOB."}))
	var alice int
	for _, m := range w.status().Members {
		if m.Name == "alice" {
			alice = m.PID
		}
	}
	poll(t, wait, "alice's background job", func() (bool, string) {
		ps := processesWithHome(w.e.Home)
		for _, p := range ps {
			if strings.Contains(strings.Join(p.Argv, " "), bg) {
				return true, ""
			}
		}
		return false, fmt.Sprint(ps)
	})
	syscall.Kill(-alice, syscall.SIGKILL) // what down does after its grace period
	w.e.MustRun("down", "--team", w.team)
	for _, p := range processesWithHome(w.e.Home) {
		env, _ := proc.Environ(p.PID)
		t.Errorf("after down, still running: %s (TEAMCTL_TEAM=%q TEAMCTL_MEMBER=%q)", p, env["TEAMCTL_TEAM"], env["TEAMCTL_MEMBER"])
	}
}

// TestLateLeadKeepsTeammatesPrompts: a lead slower to write its team config
// than up waits (here up waits 1 ms) gets teamctl's placeholder, with the
// teammate's prompt in its mailbox; Claude Code, taking the placeholder over,
// empties inboxes/ (seen, 2.1.328), and the supervisor gives the prompt again:
// the teammate's first turn is its prompt, once.
func TestLateLeadKeepsTeammatesPrompts(t *testing.T) {
	t.Parallel()
	const p = "Say where the cache lives; token LATE-c0de."
	w := newWorld(t, "late", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(p), Reply: fakeapi.Always(fakeapi.Text("The cache lives in LATE-c0de's folder."))},
	))
	layout := w.layout("", member{"alice", p})
	r := w.e.MustRun("up", "--config-wait", "1ms", layout)
	if !strings.Contains(r.Stdout+r.Stderr, "placeholder") {
		t.Fatalf("up did not write a placeholder (the lead was quicker than 1 ms?):\n%s\n%s", r.Stdout, r.Stderr)
	}
	w.waitRequest("alice's prompt as a turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(p) })
	panes := w.panes()
	w.waitScreens("alice's answer on her screen", panes, func(name, s string) bool {
		return name != "alice" || strings.Contains(s, "The cache lives in")
	})
	turns := 0
	for _, r := range w.api.Requests() {
		if r.IsTurn() && strings.Contains(r.LastUserText(), p) {
			turns++
		}
	}
	if turns != 1 {
		t.Errorf("alice's prompt came as %d turns, want 1", turns)
	}
}

package standin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
)

const team = "session-12345678"

var teammateArgs = []string{"--agent-id", "researcher@" + team, "--agent-name", "researcher", "--team-name", team}

func inboxes(t *testing.T, dir string) (own, lead string) {
	t.Helper()
	own, err := claudecode.InboxPath(dir, team, "researcher")
	if err != nil {
		t.Fatal(err)
	}
	lead, err = claudecode.InboxPath(dir, team, "team-lead")
	if err != nil {
		t.Fatal(err)
	}
	// The inboxes' folder is there before a teammate starts, as when a lead
	// spawns it, so that the stand-in watches it.
	if err := os.MkdirAll(filepath.Dir(own), 0o700); err != nil {
		t.Fatal(err)
	}
	return own, lead
}

func send(t *testing.T, path string, m claudecode.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := claudecode.AppendMessage(ctx, path, m); err != nil {
		t.Fatal(err)
	}
}

// waitProtocol waits until the mailbox at path holds, after its first `after`
// messages, a protocol message of type T from from, and returns it with the index
// after it.
func waitProtocol[T any](t *testing.T, path string, after int, from string) (T, int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	var msgs []claudecode.Message
	for {
		var err error
		msgs, err = claudecode.ReadMailbox(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := after; i < len(msgs); i++ {
			if v, ok := claudecode.ParseProtocol(msgs[i].Text); ok && msgs[i].From == from {
				if x, ok := v.(T); ok {
					return x, i + 1
				}
			}
		}
		if time.Now().After(deadline) {
			var zero T
			t.Fatalf("no %T from %s in %s after %v: %+v", zero, from, path, waitLimit, msgs)
		}
		<-poll.C
	}
}

func TestTeammateSendsIdleNotificationAfterEveryTurn(t *testing.T) {
	dir := setEnv(t, "work:10ms")
	own, lead := inboxes(t, dir)
	send(t, own, claudecode.PromptMessage("find the bug", time.Now()))
	s := start(t, teammateArgs...)
	var n int
	for range 2 { // the inbox message's turn, then the work step's
		var idle claudecode.IdleNotification
		idle, n = waitProtocol[claudecode.IdleNotification](t, lead, n, "researcher")
		if idle.From != "researcher" || idle.IdleReason != "available" || !strings.HasPrefix(idle.Result, "✻ Worked for ") ||
			idle.Type != "idle_notification" {
			t.Errorf("idle notification = %+v", idle)
		}
		if _, err := time.Parse(time.RFC3339Nano, idle.Timestamp); err != nil {
			t.Errorf("timestamp: %v", err)
		}
	}
	at := s.scr.waitFor(t, 0, "auto mode on")
	s.typeLine(t, "one more")
	s.scr.waitFor(t, at, "❯ one more\n")
	waitProtocol[claudecode.IdleNotification](t, lead, n, "researcher")
}

func TestLeadSendsNoIdleNotification(t *testing.T) {
	dir := setEnv(t, "work:10ms,ask:Done?")
	s := start(t, "--session-id", sessionID)
	s.scr.waitFor(t, 0, "Done? ")
	_, lead := inboxes(t, dir)
	if _, err := os.Stat(lead); !os.IsNotExist(err) {
		t.Errorf("lead's inbox: %v", err)
	}
}

// bashRequest starts a teammate whose script is one bash step writing to a file
// and returns the request it sent its lead.
func bashRequest(t *testing.T) (s *standIn, own, lead, file, command string, req claudecode.PermissionRequest) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "ran")
	command = "echo hello >" + file + "; echo out: done"
	dir := setEnv(t, "bash:"+command)
	own, lead = inboxes(t, dir)
	s = start(t, teammateArgs...)
	s.scr.waitFor(t, 0, "Permission request sent to team \""+team+"\" leader\n")
	req, _ = waitProtocol[claudecode.PermissionRequest](t, lead, 0, "researcher")
	var input map[string]string
	if err := json.Unmarshal(req.Input, &input); err != nil || len(input) != 1 || input["command"] != command {
		t.Errorf("input %s: %v", req.Input, err)
	}
	if req.ToolName != "Bash" || req.AgentID != "researcher@"+team || req.RequestID == "" || req.ToolUseID == "" {
		t.Errorf("request = %+v (input %s)", req, req.Input)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("ran before the answer: %v", err)
	}
	return
}

func TestTeammateBashApproved(t *testing.T) {
	s, own, lead, file, command, req := bashRequest(t)
	// Messages arriving meanwhile wait; an answer to another request is not the one.
	send(t, own, claudecode.PromptMessage("meanwhile", time.Now()))
	send(t, own, claudecode.DenyMessage(claudecode.PermissionRequest{RequestID: "perm-other"}, "wrong one", time.Now()))
	send(t, own, claudecode.ApproveMessage(req, time.Now()))
	at := s.scr.waitFor(t, 0, "out: done\nRan: "+command+"\n")
	data, err := os.ReadFile(file)
	if err != nil || string(data) != "hello\n" {
		t.Errorf("file: %q, %v", data, err)
	}
	idle, _ := waitProtocol[claudecode.IdleNotification](t, lead, 0, "researcher")
	if idle.Result != "Ran: "+command {
		t.Errorf("idle notification = %+v", idle)
	}
	s.scr.waitFor(t, at, "Message from @team-lead:\nmeanwhile\n")
	if out := s.scr.String(); strings.Count(out, "meanwhile") != 1 || strings.Contains(out, "Denied") {
		t.Errorf("output:\n%s", out)
	}
}

func TestTeammateBashDenied(t *testing.T) {
	s, own, lead, file, _, req := bashRequest(t)
	send(t, own, claudecode.DenyMessage(req, "not on main", time.Now()))
	s.scr.waitFor(t, 0, "\nDenied: not on main\n")
	idle, _ := waitProtocol[claudecode.IdleNotification](t, lead, 0, "researcher")
	if idle.Result != "Denied: not on main" {
		t.Errorf("idle notification = %+v", idle)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("ran though denied: %v", err)
	}
	msgs, err := claudecode.ReadMailbox(own)
	if err != nil || len(msgs) != 1 || !msgs[0].Read {
		t.Errorf("own inbox: %+v, %v", msgs, err)
	}
}

func TestLeadBashIsAnError(t *testing.T) {
	setEnv(t, "bash:true,ask:Still here?")
	s := start(t, "--session-id", sessionID)
	at := s.scr.waitFor(t, 0, "stand-in: bash: only a teammate")
	s.scr.waitFor(t, at, "\nStill here? ")
	if strings.Contains(s.scr.String(), "Permission request sent") {
		t.Error("a lead sent a permission request")
	}
}

func TestTeammateApprovesShutdown(t *testing.T) {
	dir := setEnv(t, "")
	own, lead := inboxes(t, dir)
	s := start(t, teammateArgs...)
	s.scr.waitFor(t, 0, "──── @researcher ──")
	send(t, own, claudecode.ShutdownRequestMessage("shutdown-1", "work is done", time.Now()))
	s.scr.waitFor(t, 0, "\nShutdown requested: work is done\n")
	if code := s.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	ok, _ := waitProtocol[claudecode.ShutdownApproved](t, lead, 0, "researcher")
	if ok.RequestID != "shutdown-1" || ok.From != "researcher" || ok.Timestamp == "" {
		t.Errorf("shutdown_approved = %+v", ok)
	}
}

func TestTeammateShutdownEndsItsScript(t *testing.T) {
	dir := setEnv(t, "ask:Never asked?")
	own, _ := inboxes(t, dir)
	send(t, own, claudecode.PromptMessage("first", time.Now()))
	send(t, own, claudecode.ShutdownRequestMessage("s-2", "bye", time.Now()))
	s := start(t, teammateArgs...)
	at := s.scr.waitFor(t, 0, "Message from @team-lead:\nfirst\n")
	s.scr.waitFor(t, at, "Shutdown requested: bye\n")
	if code := s.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if strings.Contains(s.scr.String(), "Never asked?") {
		t.Error("the script went on after the shutdown")
	}
}

// TestTeammateApprovesShutdownInEveryStep: whatever a teammate is doing when its
// lead's shutdown_request arrives — a turn (from its script or its inbox), a
// question or Claude Code's permission dialog on screen, a permission it waits
// for from its lead, busy output, the idle screen — it writes shutdown_approved
// to the lead's inbox as Claude Code does (its pane named, as a teammate in
// tmux) and exits 0, and the step it was in goes no further.
func TestTeammateApprovesShutdownInEveryStep(t *testing.T) {
	for _, tc := range []struct {
		name, script, work string
		prompt             string // a message put in its inbox once it is idle
		shown              string // on screen once it is in the step
		never              string // on screen only if the step went on
	}{
		{name: "work", script: "work:10m", shown: "Working…", never: "Worked for"},
		{name: "turn from its inbox", work: "10m", prompt: "a long job", shown: "Message from @team-lead:\na long job\n", never: "Worked for"},
		{name: "ask", script: "ask,ask:Second?", shown: "Overwrite? (y/n) ", never: "Second?"},
		{name: "permission dialog", script: "permission,ask:After?", shown: "Do you want to proceed?", never: "After?"},
		{name: "bash waiting for its lead", script: "bash:echo RAN", shown: "Permission request sent", never: "Ran:"},
		{name: "busy", script: "busy", shown: "busy: output line 1\n"},
		{name: "wait-for", script: "work:10ms,wait-for:/nonexistent/go,ask:After?", shown: "✻ Worked for 0s\n", never: "After?"},
		{name: "idle", script: "", shown: "──── @researcher ──"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setEnv(t, tc.script)
			if tc.work != "" {
				t.Setenv("TEAMCTL_STANDIN_WORK", tc.work)
			}
			t.Setenv("TMUX_PANE", "%7") // TMUX stays empty: no tmux is reached
			own, lead := inboxes(t, dir)
			s := start(t, teammateArgs...)
			if tc.prompt != "" {
				s.scr.waitFor(t, 0, "──── @researcher ──")
				send(t, own, claudecode.PromptMessage(tc.prompt, time.Now()))
			}
			at := s.scr.waitFor(t, 0, tc.shown)
			send(t, own, claudecode.ShutdownRequestMessage("s-"+tc.name, "the team is going down", time.Now()))
			s.scr.waitFor(t, at, "Shutdown requested: the team is going down\n")
			if code := s.wait(t); code != 0 {
				t.Errorf("exit code %d", code)
			}
			ok, _ := waitProtocol[claudecode.ShutdownApproved](t, lead, 0, "researcher")
			want := claudecode.ShutdownApproved{Type: "shutdown_approved", RequestID: "s-" + tc.name, From: "researcher",
				Timestamp: ok.Timestamp, PaneID: "%7", BackendType: "tmux"}
			if ok != want {
				t.Errorf("shutdown_approved = %+v, want %+v", ok, want)
			}
			if _, err := time.Parse(time.RFC3339Nano, ok.Timestamp); err != nil {
				t.Errorf("timestamp: %v", err)
			}
			if out := s.scr.String(); tc.never != "" && strings.Contains(out, tc.never) {
				t.Errorf("the step went on after the shutdown:\n%s", out)
			}
		})
	}
}

// TestTeammateIgnoringShutdown: after ignore-shutdown a teammate answers no
// shutdown request, in a step or on the idle screen, and runs on.
func TestTeammateIgnoringShutdown(t *testing.T) {
	goAhead := filepath.Join(t.TempDir(), "go")
	dir := setEnv(t, "ignore-shutdown,wait-for:"+goAhead+",idle")
	own, lead := inboxes(t, dir)
	s := start(t, teammateArgs...)
	at := s.scr.waitFor(t, 0, "✻ Claude Code (stand-in) · researcher")
	send(t, own, claudecode.ShutdownRequestMessage("s-1", "please end", time.Now()))
	if err := os.WriteFile(goAhead, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The idle screen reads the request (so it was not taken while waiting).
	at = s.scr.waitFor(t, at, "Shutdown request ignored: please end\n")
	s.scr.waitFor(t, at, "──── @researcher ──")
	if s.exited() {
		t.Error("it ended")
	}
	if b, _ := os.ReadFile(lead); strings.Contains(string(b), "shutdown_approved") {
		t.Errorf("it approved the shutdown:\n%s", b)
	}
}

package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// writeLeadInbox writes msgs as the lead's whole inbox, as Claude Code
// writes a mailbox (temp file, rename).
func writeLeadInbox(t *testing.T, w *world, msgs []claudecode.Message) {
	t.Helper()
	p := mustInbox(t, w, claudecode.LeadMailboxName)
	os.MkdirAll(filepath.Dir(p), 0o700)
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".tmp", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
}

func plain(from string, i int) claudecode.Message {
	return claudecode.Message{From: from, Text: fmt.Sprintf("message %d", i), Timestamp: fmt.Sprintf("2026-12-01T09:00:%02d.%03dZ", i/1000%60, i%1000)}
}

// TestMessagesToTheLeadAreCounted: a flood of messages to the lead makes a
// bounded number of events — each sender's first few one by one, the rest
// counted and reported with their number when the minute ends — and a
// message read once is not counted again, however many the inbox holds.
func TestMessagesToTheLeadAreCounted(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	const flood = 6000 // more than the keys of seen messages live.json keeps
	var msgs []claudecode.Message
	for i := range flood {
		msgs = append(msgs, plain("mate", i))
	}
	// More senders than are counted by name, enough messages for the
	// window's limit.
	for i := range messageSenders + 5 {
		for j := range 3 {
			msgs = append(msgs, plain(fmt.Sprintf("other%d", i), j))
		}
	}
	msgs = append(msgs, plain("../../etc", 1))
	writeLeadInbox(t, w, msgs)
	w.changed("inbox")

	oneByOne := func() (mate, all int) {
		for _, e := range w.events(state.EventMessage, "") {
			if strings.Contains(e.Detail, "more messages") {
				continue
			}
			all++
			if e.Member == "mate" {
				mate++
			}
		}
		return mate, all
	}
	if mate, all := oneByOne(); mate != messagesPerSender || all != messagesPerWindow {
		t.Errorf("%d message events from mate, %d in all; want %d and %d", mate, all, messagesPerSender, messagesPerWindow)
	}

	// Read again with one more: the 6000 are not counted again.
	msgs = append(msgs, plain("mate", flood))
	writeLeadInbox(t, w, msgs)
	w.changed("inbox")
	w.advance(messageWindow)
	w.changed() // what the window's timer marked

	held, mateCount := 0, ""
	for _, e := range w.events(state.EventMessage, "") {
		if !strings.Contains(e.Detail, "more messages") {
			continue
		}
		var n int
		fmt.Sscan(e.Detail, &n)
		held += n
		if e.Member == "mate" {
			mateCount = e.Detail
		}
		if e.Member != "mate" && e.Member != "" && !strings.HasPrefix(e.Member, "other") {
			t.Errorf("a count for %q: %s", e.Member, e.Detail)
		}
	}
	if want := fmt.Sprintf("%d more messages from mate in a minute", flood+1-messagesPerSender); !strings.Contains(mateCount, want) {
		t.Errorf("mate's count: %q, want %q", mateCount, want)
	}
	if total := len(msgs); held+messagesPerWindow != total {
		t.Errorf("%d counted + %d one by one, want the %d messages", held, messagesPerWindow, total)
	}
	if n := len(w.events(state.EventMessage, "")); n > messagesPerWindow+messageSenders+2 {
		t.Errorf("%d message events for %d messages", n, len(msgs))
	}
	if live := w.s.live.Members; live["../../etc"] != nil {
		t.Error("live.json has a member named ../../etc")
	}

	// The next minute starts afresh.
	msgs = append(msgs, claudecode.Message{From: "mate", Text: "AFTER", Timestamp: "2026-12-01T09:02:00.000Z"})
	writeLeadInbox(t, w, msgs)
	w.changed("inbox")
	evs := w.events(state.EventMessage, "mate")
	if last := evs[len(evs)-1]; last.Detail != "AFTER" {
		t.Errorf("the next minute's message: %+v", last)
	}
}

// TestPermissionRequestsAreTheirWritersOwn: a permission request or idle
// notification in the lead's inbox changes only the state of the teammate
// that wrote it (its "from", which its agent_id must agree with): one
// naming the lead, a process member, another teammate, another team or no
// member at all is reported and left alone — no state, no rule's answer, no
// key in live.json.
func TestPermissionRequestsAreTheirWritersOwn(t *testing.T) {
	request := func(w *world, from, agentID, id string) claudecode.Message {
		in, _ := json.Marshal(map[string]string{"command": "make test"})
		return claudecode.PermissionRequestMessage(from, claudecode.PermissionRequest{RequestID: id, AgentID: agentID,
			ToolName: "Bash", ToolUseID: "t-" + id, Input: in}, w.clock.Now())
	}
	for _, c := range []struct {
		name, from, agentID string // agentID's "@" alone is the world's team
		waiting             string // who waits for approval after ("" nobody)
	}{
		{"its own", "mate", "mate", "mate"}, // as Claude Code writes agent_id
		{"its own, with the team", "mate", "mate@", "mate"},
		{"naming the lead alone", "mate", "lead", ""},
		{"naming the lead", "mate", "lead@", ""},
		{"naming a process", "mate", "proc@", ""},
		{"naming another teammate", "mate", "pal@", ""},
		{"naming another team", "mate", "mate@session-ffffffff", ""},
		{"without agent_id", "mate", "", ""},
		{"from the lead", "lead", "lead@", ""},
		{"from a process", "proc", "proc@", ""},
		{"from no member", "ghost", "ghost@", ""},
		{"from one the lead spawned, its pane not adopted yet", "scout", "scout", "scout"},
		{"from the lead's name in config.json", "team-lead", "team-lead", ""},
		{"from a path", "../../etc", "../../etc@", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""},
				member{"pal", state.RoleTeammate, ""}, member{"proc", state.RoleProcess, ""})
			agentID := c.agentID
			if strings.HasSuffix(agentID, "@") {
				agentID += w.s.st.ClaudeTeam
			}
			// The lead's config lists a teammate it spawned (scout) before
			// the daemon adopts its pane.
			st := w.s.st
			cfg := claudecode.MinimalTeamConfig(st.ClaudeTeam, st.LeadSessionID, "/", os.Getpid(), w.clock.Now())
			cfg.Members = append(cfg.Members, claudecode.TeamMember{AgentID: "scout@" + st.ClaudeTeam, Name: "scout", TmuxPaneID: "%7", BackendType: "tmux"})
			cfgPath, _ := claudecode.TeamConfigPath(st.ClaudeConfig, st.ClaudeTeam)
			os.MkdirAll(filepath.Dir(cfgPath), 0o700)
			b, _ := json.Marshal(cfg)
			if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
				t.Fatal(err)
			}
			writeLeadInbox(t, w, []claudecode.Message{request(w, c.from, agentID, "r1")})
			w.changed("inbox")
			check := func(when string) {
				t.Helper()
				l, err := state.ReadLive("decide")
				if err != nil {
					t.Fatal(err)
				}
				for name, m := range l.Members {
					if _, ok := w.s.st.Member(name); !ok && name != c.waiting {
						t.Errorf("%s: live.json has %q, no member", when, name)
					}
					if (m.State == state.StateWaitingApproval) != (name == c.waiting) {
						t.Errorf("%s: %s is %s", when, name, m.State)
					}
				}
			}
			check("read")
			reqs := w.events(state.EventPermissionRequest, "")
			if c.waiting != "" {
				if len(reqs) != 1 || reqs[0].Member != c.waiting {
					t.Errorf("permission-request events: %+v", reqs)
				}
				return
			}
			if len(reqs) != 0 {
				t.Errorf("permission-request events: %+v", reqs)
			}
			left := w.events(state.EventMessage, "")
			if len(left) != 1 || !strings.Contains(left[0].Detail, "permission request r1 left alone") {
				t.Errorf("message events: %+v", left)
			}
			// A team resumed on a new server shows unanswered requests again:
			// this one is still nobody's.
			w.s.restorePending()
			check("restored")
		})
	}

	t.Run("a rule answers only its writer", func(t *testing.T) {
		w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""},
			member{"pal", state.RoleTeammate, ""})
		w.s.lay.Permissions.Allow = append(w.s.lay.Permissions.Allow, ruleOf(t, "Bash(make:*)"))
		writeLeadInbox(t, w, []claudecode.Message{request(w, "mate", "pal@"+w.s.st.ClaudeTeam, "r2")})
		w.changed("inbox")
		for _, name := range []string{"mate", "pal"} {
			if msgs, _ := claudecode.ReadMailbox(mustInbox(t, w, name)); len(msgs) != 0 {
				t.Errorf("a rule answered into %s's mailbox: %+v", name, msgs)
			}
		}
		if n := len(w.events(state.EventPermissionAnswer, "")); n != 0 {
			t.Errorf("%d answers", n)
		}
	})

	t.Run("idle notifications", func(t *testing.T) {
		w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""},
			member{"proc", state.RoleProcess, ""})
		writeLeadInbox(t, w, []claudecode.Message{
			claudecode.IdleNotificationMessage("proc", "done", w.clock.Now()),
			claudecode.ProtocolMessage("mate", claudecode.IdleNotification{Type: claudecode.TypeIdleNotification, From: "lead", IdleReason: "available"}, w.clock.Now()),
		})
		w.changed("inbox")
		for _, name := range []string{"lead", "mate", "proc"} {
			if got := w.live(name).State; got == state.StateIdle {
				t.Errorf("%s made idle", name)
			}
		}
		if n := len(w.events(state.EventIdle, "")); n != 0 {
			t.Errorf("%d idle events", n)
		}
		// Its own makes it idle.
		writeLeadInbox(t, w, []claudecode.Message{claudecode.IdleNotificationMessage("mate", "done", w.clock.Now())})
		w.changed("inbox")
		if got := w.live("mate").State; got != state.StateIdle {
			t.Errorf("mate's own idle notification: %s", got)
		}
	})
}

// TestFilesNotReadAreReportedOnce: a task file or config.json over its limit,
// and an inboxes/ that is a symlink, are not read and are reported once each
// (file-refused, naming the file) however often they change; what points
// elsewhere is neither read nor written.
func TestFilesNotReadAreReportedOnce(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	st := w.s.st
	refused := func() []string {
		var out []string
		for _, e := range w.events(state.EventFileRefused, "") {
			out = append(out, e.Detail)
		}
		return out
	}
	sparse := func(path string, size int64) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}

	tasks, _ := claudecode.TasksDir(st.ClaudeConfig, st.ClaudeTeam)
	big := filepath.Join(tasks, "big.json")
	sparse(big, 400<<20)
	os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"id":"1","subject":"small","status":"pending"}`), 0o600)
	w.changed("tasks")
	w.changed("tasks")
	if got := refused(); len(got) != 1 || !strings.Contains(got[0], big+" is too large to read (400.0 MiB; teamctl reads up to 1.0 MiB)") {
		t.Fatalf("file-refused events: %q", got)
	}
	if evs := w.events(state.EventTask, ""); len(evs) != 1 || !strings.Contains(evs[0].Detail, "small") {
		t.Errorf("task events: %+v", evs)
	}
	// Gone, and back: a new report.
	os.Remove(big)
	w.changed("tasks")
	sparse(big, 400<<20)
	w.changed("tasks")
	if got := refused(); len(got) != 2 {
		t.Errorf("after the file came back: %q", got)
	}

	cfg, _ := claudecode.TeamConfigPath(st.ClaudeConfig, st.ClaudeTeam)
	sparse(cfg, 300<<20)
	w.changed("config")
	w.changed("config")
	if got := refused(); len(got) != 3 || !strings.Contains(got[2], cfg+" is too large to read (300.0 MiB; teamctl reads up to 4.0 MiB)") {
		t.Errorf("file-refused events: %q", got)
	}
	os.Remove(cfg)

	// inboxes/ a link to a folder holding a request from mate.
	elsewhere := t.TempDir()
	in, _ := json.Marshal(map[string]string{"command": "make test"})
	req := claudecode.PermissionRequestMessage("mate", claudecode.PermissionRequest{RequestID: "r1", AgentID: "mate@" + st.ClaudeTeam, ToolName: "Bash", Input: in}, w.clock.Now())
	b, _ := json.Marshal([]claudecode.Message{req})
	os.WriteFile(filepath.Join(elsewhere, "team-lead.json"), b, 0o600)
	inboxes := filepath.Dir(mustInbox(t, w, claudecode.LeadMailboxName))
	os.RemoveAll(inboxes)
	if err := os.Symlink(elsewhere, inboxes); err != nil {
		t.Fatal(err)
	}
	w.changed("inbox")
	w.changed("inbox")
	if got := refused(); len(got) != 4 || !strings.Contains(got[3], inboxes+" is a symlink") {
		t.Errorf("file-refused events: %q", got)
	}
	if got := w.live("mate").State; got == state.StateWaitingApproval {
		t.Error("a request read through the link")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Errorf("written through the link: %v", ents)
	}
}

// TestEarlyRequestIsSeenOnceItsWriterJoins: a teammate the lead spawns can
// write its first permission request before the lead's config.json names
// it: left alone then (said once), and looked at again when the name joins
// the config: the teammate waits for approval, with its request.
func TestEarlyRequestIsSeenOnceItsWriterJoins(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""})
	st := w.s.st
	if _, err := claudecode.EnsureTeamConfig(st.ClaudeConfig, st.ClaudeTeam, st.ClaudeLeadSession(), "/", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.changed("config")
	writeLeadInbox(t, w, []claudecode.Message{requestFrom(w, "scout", "r-early", "ls")})
	w.changed("inbox")
	if reqs := w.events(state.EventPermissionRequest, "scout"); len(reqs) != 0 {
		t.Fatalf("a request from no member taken: %+v", reqs)
	}
	cfgPath, _ := claudecode.TeamConfigPath(st.ClaudeConfig, st.ClaudeTeam)
	cfg, err := claudecode.ReadTeamConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Members = append(cfg.Members, claudecode.TeamMember{Name: "scout", AgentID: "scout@" + st.ClaudeTeam})
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	w.changed("config")
	reqs := w.events(state.EventPermissionRequest, "scout")
	if len(reqs) != 1 || reqs[0].RequestID != "r-early" {
		t.Fatalf("permission-request events once scout joined: %+v", reqs)
	}
	if left := w.events(state.EventMessage, ""); len(left) != 1 {
		t.Errorf("said %d times that it was left alone, want once: %+v", len(left), left)
	}
}

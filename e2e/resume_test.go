package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/proc"
)

// Bringing a team back: a team lost with its tmux server (a reboot) comes back
// with `teamctl up`, every conversation going on where it was.

// answerLog is a fake model that answers every request with a text of its own
// ("Noted; answer ANS-<n>.") and remembers what it answered to what, so a test
// can tell a conversation from before a reboot (it holds that very answer)
// from one started again with the same prompt (it holds a later one).
type answerLog struct {
	mu    sync.Mutex
	given []givenAnswer
}

type givenAnswer struct {
	lastUser, reply string
}

func (a *answerLog) script(r fakeapi.Request) fakeapi.Reply {
	a.mu.Lock()
	defer a.mu.Unlock()
	reply := fmt.Sprintf("Noted; answer ANS-%d.", len(a.given)+1)
	a.given = append(a.given, givenAnswer{lastUser: r.LastUserText(), reply: reply})
	return fakeapi.Text(reply)
}

// repliesTo returns the answers given so far to requests whose last user turn
// holds marker.
func (a *answerLog) repliesTo(marker string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, g := range a.given {
		if strings.Contains(g.lastUser, marker) {
			out = append(out, g.reply)
		}
	}
	return out
}

// assistantTexts returns the text blocks of every assistant turn of r.
func assistantTexts(r fakeapi.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// holdsAny reports whether one of texts contains one of subs.
func holdsAny(texts, subs []string) bool {
	for _, t := range texts {
		for _, s := range subs {
			if strings.Contains(t, s) {
				return true
			}
		}
	}
	return false
}

// fullState is the part of state.json this test reads, members included.
type fullState struct {
	ClaudeTeam    string `json:"claude_team"`
	LeadSessionID string `json:"lead_session_id"`
	Members       []struct {
		Name      string `json:"name"`
		SessionID string `json:"session_id"`
	} `json:"members"`
}

func (w *world) fullState() fullState {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.stateDir(), "state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var st fullState
	if err := json.Unmarshal(b, &st); err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (s fullState) session(name string) string {
	for _, m := range s.Members {
		if m.Name == name {
			return m.SessionID
		}
	}
	return ""
}

// transcript is Claude Code's stored conversation of session sid
// (projects/<folder>/<sid>.jsonl), "" while there is none.
func (w *world) transcript(sid string) string {
	m, _ := filepath.Glob(filepath.Join(w.e.ClaudeDir, "projects", "*", sid+".jsonl"))
	if len(m) != 1 {
		return ""
	}
	b, _ := os.ReadFile(m[0])
	return string(b)
}

// waitStored waits until session sid's transcript holds marker and one of
// the answers given to it: the turn is stored whole, question and answer.
func (w *world) waitStored(who, sid, marker string, answers *answerLog) {
	w.t.Helper()
	poll(w.t, wait, who+"'s turn stored in "+sid+".jsonl", func() (bool, string) {
		tr := w.transcript(sid)
		replies := answers.repliesTo(marker)
		return strings.Contains(tr, marker) && holdsAny([]string{tr}, replies), fmt.Sprintf("answers to %s: %q; transcript (%d bytes):\n%s", marker, replies, len(tr), clipTail(tr, 2000))
	})
}

func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// reboot does to the world's team what a reboot does: its tmux server, its
// supervisor and every process of the world (all that has the test's HOME:
// Claude Code and whatever it started, wherever it went) are SIGKILLed by pid,
// nothing told; the state folder and Claude Code's files stay as they were.
func (w *world) reboot() {
	w.t.Helper()
	var st struct {
		Supervisor struct {
			Running bool `json:"running"`
			PID     int  `json:"pid"`
		} `json:"supervisor"`
		Members []memberStatus `json:"members"`
	}
	r := w.e.MustRun("status", "--json", "--team", w.team)
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		w.t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	out, err := w.e.Tmux(w.socket(), "display-message", "-p", "#{pid}")
	server, _ := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || server <= 0 || !st.Supervisor.Running || st.Supervisor.PID <= 0 {
		w.t.Fatalf("before the reboot: server pid %q (%v), supervisor %+v", out, err, st.Supervisor)
	}
	// The server last: a member that outlives it for a moment gets SIGHUP and
	// ends as after /exit, removing its team's folder, which a reboot never
	// lets it do (seen under load).
	pids := []int{st.Supervisor.PID}
	for _, m := range st.Members {
		pids = append(pids, proc.Tree(m.PID)...)
	}
	for _, p := range processesWithHome(w.e.Home) {
		pids = append(pids, p.PID)
	}
	pids = append(pids, server)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	// What started while they were being killed goes the same way.
	poll(w.t, time.Minute, "every process of the team gone", func() (bool, string) {
		var left []string
		for _, p := range pids {
			if proc.Alive(p) {
				left = append(left, strconv.Itoa(p))
			}
		}
		for _, p := range processesWithHome(w.e.Home) {
			syscall.Kill(p.PID, syscall.SIGKILL)
			left = append(left, p.String())
		}
		return len(left) == 0, strings.Join(left, "\n")
	})
}

// waitClaude waits until member name runs Claude Code (the binary under test)
// in a process other than old, and returns its status and argv.
func (w *world) waitClaude(name string, old int) (memberStatus, []string) {
	w.t.Helper()
	var m memberStatus
	var argv []string
	poll(w.t, wait, name+" running Claude Code again", func() (bool, string) {
		m, _ = w.status().member(name)
		argv, _ = proc.Cmdline(m.PID)
		return m.PID > 0 && m.PID != old && proc.Alive(m.PID) && isBinary(m.PID, argv, w.claude),
			fmt.Sprintf("%+v %q\nevents:\n%s", m, argv, eventLines(w.events()))
	})
	return m, argv
}

// TestLostTeamResumesEveryConversation: a lead and a layout teammate each take a turn
// carrying a marker word; the team's tmux server, supervisor and every process
// are SIGKILLed, Claude Code's lock on the team's config left behind fresh (as
// when the kill strikes while a member writes it); `teamctl up` with the same
// layout resumes both: the lead runs
// --resume <its session> in the same Claude Code team (one team folder, its
// config naming the lead's session), the teammate --resume <its session> with
// its identity; the next turn each takes (a `send`) reaches the model with
// its marker and the very answer it was given before the reboot, and neither
// is handed its first prompt again.
func TestLostTeamResumesEveryConversation(t *testing.T) {
	t.Parallel()
	const (
		leadMark, mateMark   = "LEADMARK-7c1", "TEAMMARK-7c1"
		leadAgain, mateAgain = "After the reboot; token LEAD-AGAIN-7c1.", "After the reboot; token MATE-AGAIN-7c1."
	)
	answers := &answerLog{}
	w := newWorld(t, "e2e-back", true, answers.script)
	layout := w.layout("Remember the word "+leadMark+".", member{"mate", "Remember the word " + mateMark + "."})
	w.e.MustRun("up", layout)
	before := w.fullState()
	leadSID, mateSID := before.LeadSessionID, before.session("mate")
	if leadSID == "" || mateSID == "" || leadSID == mateSID {
		t.Fatalf("sessions in state.json: lead %q, mate %q", leadSID, mateSID)
	}
	w.waitRequest("the lead's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(leadMark) })
	w.waitRequest("mate's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(mateMark) })
	w.waitStored("the lead", leadSID, leadMark, answers)
	w.waitStored("mate", mateSID, mateMark, answers)
	w.waitIdentity("before the reboot", leadSID)
	claudeTeam := w.teamState().ClaudeTeam
	leadBefore, mateBefore := answers.repliesTo(leadMark), answers.repliesTo(mateMark)
	oldLead, _ := w.status().member("lead")
	oldMate, _ := w.status().member("mate")

	w.reboot()
	// The reboot struck while a member wrote the team's config: Claude Code's
	// lock on it (a directory, proper-lockfile's) is left behind, fresh.
	lock := filepath.Join(w.e.ClaudeDir, "teams", claudeTeam, "config.json.lock")
	if fi, err := os.Lstat(lock); err == nil {
		t.Logf("a lock left by the reboot, %s old", time.Since(fi.ModTime()))
	} else if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); os.Chtimes(lock, now, now) != nil {
		t.Fatal("touch the lock")
	}
	r := w.e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "resumed: lead, mate; started afresh: none") {
		t.Errorf("up of the lost team said:\n%s%s", r.Stdout, r.Stderr)
	}

	_, argv := w.waitClaude("lead", oldLead.PID)
	checkResumed(t, argv, leadSID)
	_, argv = w.waitClaude("mate", oldMate.PID)
	checkResumed(t, argv, mateSID)
	if i := slices.Index(argv, "--agent-name"); i < 0 || i+1 >= len(argv) || argv[i+1] != "mate" {
		t.Errorf("mate resumed without its identity: %q", argv)
	}
	if slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, mateMark) }) {
		t.Errorf("mate resumed with its first prompt again: %q", argv)
	}
	w.waitIdentity("after the reboot and up", leadSID)
	if now := w.teamState().ClaudeTeam; now != claudeTeam {
		t.Errorf("state's claude_team is %s, was %s", now, claudeTeam)
	}

	w.e.MustRun("send", "lead", leadAgain, "--team", w.team)
	w.e.MustRun("send", "mate", mateAgain, "--team", w.team)
	resumed := func(who, again, mark, other string, answered []string) {
		t.Helper()
		q := w.waitRequest(who+"'s turn after the reboot", func(r fakeapi.Request) bool { return r.IsTurn() && strings.Contains(r.LastUserText(), again) })
		if !q.UserTextContains(mark) || !holdsAny(assistantTexts(q), answered) {
			t.Errorf("%s's turn after the reboot does not carry its conversation from before (%s and one of the answers %q): not resumed\n%s\nuser: %q\nassistant: %q",
				who, mark, answered, q, q.UserTexts(), assistantTexts(q))
		}
		if q.UserTextContains(other) {
			t.Errorf("%s's turn after the reboot carries %s, another member's marker: %q", who, other, q.UserTexts())
		}
		n := 0
		for _, q := range w.api.Requests() {
			if q.IsTurn() && strings.Contains(q.LastUserText(), mark) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s's first prompt (%s) was a turn %d times: handed to it again", who, mark, n)
		}
	}
	resumed("the lead", leadAgain, leadMark, mateMark, leadBefore)
	resumed("mate", mateAgain, mateMark, leadMark, mateBefore)
	w.waitIdentity("after the turns", leadSID)
}

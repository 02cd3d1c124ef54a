package supervisor

import (
	"os"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestLeadQueueTypesNoControlCharacters: a lead-queue line holding a control
// character (an agent can write the queue file directly: shift-tab, ^C) is
// never typed and is reported; the text after it is typed, on one line.
func TestLeadQueueTypesNoControlCharacters(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	w.output("%0", screenFile(t, "claude-working.txt"))
	queue, _ := state.LeadQueuePath("decide")
	lines := `{"text":"\u001b[Z"}` + "\n" + `{"text":"stop\u0003\u0015"}` + "\n" + `{"text":"csi \u009b2J"}` + "\n" +
		`{"text":"first line\nsecond\tline"}` + "\n"
	if err := os.WriteFile(queue, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	w.changed("queue")
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	if len(w.srv.typed) != 1 || w.srv.typed[0] != "%0: first line second line" {
		t.Errorf("typed: %q, want only the last text, on one line", w.srv.typed)
	}
	for _, typed := range w.srv.typed {
		if strings.ContainsAny(typed, "\x1b\x03\x15\u009b\n\t") {
			t.Errorf("typed a control character: %q", typed)
		}
	}
	refused := 0
	for _, e := range w.events(state.EventNotify, "lead") {
		if strings.HasPrefix(e.Detail, "not typed into the lead: a text in the lead queue holds the control character") {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("%d refusals reported, want 3: %+v", refused, w.events(state.EventNotify, ""))
	}
	if got := w.s.live.LeadQueueOffset; got != int64(len(lines)) {
		t.Errorf("the queue is read up to %d, want all of it (%d)", got, len(lines))
	}

	// Refused while nothing waits: passed over for good, so a later
	// supervisor does not report it again.
	f, err := os.OpenFile(queue, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"text":"\u001b[2J"}` + "\n")
	f.Close()
	w.changed("queue")
	if got, want := w.s.live.LeadQueueOffset, int64(len(lines)+len(`{"text":"\u001b[2J"}`)+1); got != want {
		t.Errorf("a refused last text is read up to %d, want %d", got, want)
	}
	if len(w.srv.typed) != 1 {
		t.Errorf("typed: %q", w.srv.typed)
	}
}

// TestLeadQueueTypesOneTextATurn: two texts queued one after the other for
// an idle lead (two members' answers arriving together) are typed a turn
// each: the first starts a turn, and the second waits for that turn's end
// (typed into a turn that had begun, Claude Code 2.1.328 lost it).
func TestLeadQueueTypesOneTextATurn(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	for _, text := range []string{"first answer", "second answer"} {
		if err := state.QueueForLead("decide", text); err != nil {
			t.Fatal(err)
		}
		w.changed("queue")
	}
	if len(w.srv.typed) != 1 || w.srv.typed[0] != "%0: first answer" {
		t.Fatalf("typed: %q, want the first text alone", w.srv.typed)
	}
	w.output("%0", screenFile(t, "claude-working.txt")) // its turn
	w.advance(quiet)
	if len(w.srv.typed) != 1 {
		t.Fatalf("typed into a working lead: %q", w.srv.typed)
	}
	w.output("%0", screenFile(t, "claude-idle.txt")) // its turn ended
	w.advance(quiet)
	if len(w.srv.typed) != 2 || w.srv.typed[1] != "%0: second answer" {
		t.Errorf("typed: %q, want the second text once the first turn ended", w.srv.typed)
	}
}

// TestLateStopAfterTypedText: a Stop hook that arrives after the lead queue
// typed text into the lead, before the lead was seen taking it, is the
// turn before's (Claude Code 2.1.328 told one Stop twice): it does not make
// the lead idle, so a second text waits for the typed one's turn.
func TestLateStopAfterTypedText(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	if err := state.QueueForLead("decide", "first answer"); err != nil {
		t.Fatal(err)
	}
	w.changed("queue")
	w.hook("Stop", "lead", "%0") // late: the turn before's
	if err := state.QueueForLead("decide", "second answer"); err != nil {
		t.Fatal(err)
	}
	w.changed("queue")
	if len(w.srv.typed) != 1 {
		t.Fatalf("typed: %q, want the first text alone", w.srv.typed)
	}
	w.output("%0", screenFile(t, "claude-working.txt"))
	w.advance(quiet)
	w.hook("Stop", "lead", "%0") // the typed turn's end
	if len(w.srv.typed) != 1 {
		t.Fatalf("typed at the Stop: %q", w.srv.typed)
	}
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	if len(w.srv.typed) != 2 || w.srv.typed[1] != "%0: second answer" {
		t.Errorf("typed: %q, want the second text after the first's turn", w.srv.typed)
	}
}

// TestTypedTextLeftInTheInputIsEntered: text typed into the lead that its
// input line still holds a quiet period later (Claude Code took the Enter
// with the text, as a paste) gets Enter again, once.
func TestTypedTextLeftInTheInputIsEntered(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	idle := screenFile(t, "claude-idle.txt")
	w.output("%0", idle)
	w.advance(quiet)
	if err := state.QueueForLead("decide", "an answer to read"); err != nil {
		t.Fatal(err)
	}
	w.changed("queue")
	if len(w.srv.typed) != 1 {
		t.Fatalf("typed: %q", w.srv.typed)
	}
	held := strings.Replace(idle, "❯\u00a0 ", "❯\u00a0an answer to read", 1) // Claude Code's input line: ❯, a no-break space, the text
	if held == idle {
		t.Fatal("no input line in the screen")
	}
	w.output("%0", held)
	w.advance(quiet)
	if keys := w.srv.sentKeys("%0"); len(keys) != 1 || keys[0] != "Enter" {
		t.Fatalf("keys after the text stayed in the input: %q, want one Enter", keys)
	}
	w.output("%0", held+" ")
	w.advance(quiet)
	if keys := w.srv.sentKeys("%0"); len(keys) != 1 {
		t.Errorf("Enter pressed again: %q", keys)
	}
}

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

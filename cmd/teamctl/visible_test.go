package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
)

// Text an agent wrote with characters a terminal shows as nothing (format
// characters, tag characters, a Hangul filler), and how teamctl must show it:
// each one written as its escape, as Go's %q writes it.
const (
	hiddenText = "zero\u200bwidth bom\ufeffhere word\u2060joiner tags\U000E0041\U000E0042\U000E0043end filler\u3164here not\u200djoined"
	shownText  = `zero\u200bwidth bom\ufeffhere word\u2060joiner tags\U000e0041\U000e0042\U000e0043end filler\u3164here not\u200djoined`
	family     = "👨\u200d👩\u200d👧" // an emoji ZWJ sequence: one character to the eye, 18 bytes
)

// placedAt is hiddenText, the words " family <family> whole" when withWhole,
// and x's up to byte at, then family (from byte at) and a tail.
func placedAt(t *testing.T, at int, withWhole bool) (text, shownBefore string) {
	t.Helper()
	head, shown := hiddenText+" ", shownText+" "
	if withWhole {
		head, shown = head+"family "+family+" whole ", shown+"family "+family+" whole "
	}
	pad := at - len(head)
	if pad < 1 {
		t.Fatalf("the text is %d bytes before its padding, over %d", len(head), at-1)
	}
	xs := strings.Repeat("x", pad)
	return head + xs + family + " tail", shown + xs
}

// checkShown fails unless out (what teamctl printed) holds none of the
// hidden characters raw, shows before (the text before the family, made
// visible), and has the family whole or cut before it with an ellipsis,
// never a part of it.
func checkShown(t *testing.T, what, out, before string) {
	t.Helper()
	for _, r := range []rune{'\u200b', '\ufeff', '\u2060', '\U000E0041', '\U000E0042', '\U000E0043', '\u3164'} {
		if strings.ContainsRune(out, r) {
			t.Errorf("%s: %U reaches the terminal raw:\n%s", what, r, out)
		}
	}
	if strings.ContainsRune(strings.ReplaceAll(out, family, ""), '\u200d') {
		t.Errorf("%s: a zero-width joiner reaches the terminal raw outside the emoji sequence:\n%q", what, out)
	}
	for _, part := range []string{"👨", "👩", "👧"} {
		if strings.Count(out, part) != strings.Count(out, family) {
			t.Errorf("%s: the emoji sequence is split (%d of %s, %d whole):\n%q", what, strings.Count(out, part), part, strings.Count(out, family), out)
		}
	}
	if !strings.Contains(out, before+family) && !strings.Contains(out, before+"…") {
		t.Errorf("%s: does not show %q followed by the emoji sequence or an ellipsis:\n%s", what, before, out)
	}
}

// cutsAcross runs teamctl args on terminals of the widths that cut column
// heading (the last, cut with "…" to fit) in each cell of family and just
// after it, and checks each table.
func cutsAcross(t *testing.T, e *testenv.Env, heading, before string, args ...string) {
	t.Helper()
	wide := runInPTY(t, e, 1000, heading, args...)
	checkShown(t, strings.Join(args, " ")+" on a wide terminal", wide, before)
	if !strings.Contains(wide, before+family+" tail") {
		t.Errorf("%s on a wide terminal: the text is not whole:\n%s", args[0], wide)
	}
	var start int
	for _, ln := range strings.Split(ansi.Strip(wide), "\n") {
		if i := strings.Index(ln, heading); i >= 0 {
			start = ansi.StringWidth(ln[:i])
			break
		}
	}
	if start == 0 {
		t.Fatalf("%s: no %s column:\n%s", args[0], heading, wide)
	}
	// The family's first column: the cell left of the cut holds "…", so a
	// terminal at+1 wide has room for it alone, at+3 for the family too.
	at := start + ansi.StringWidth(before)
	for cols := at + 1; cols <= at+4; cols++ {
		out := runInPTY(t, e, uint16(cols), heading, args...)
		checkShown(t, fmt.Sprintf("%s on a terminal %d wide", strings.Join(args, " "), cols), out, before)
	}
}

// TestHiddenCharactersAreShown: a teammate's message to the lead, a task's
// subject and the events made of them hold zero-width and other invisible
// characters and an emoji ZWJ sequence where a cut falls: `teamctl inbox`,
// `tasks` and `events` show every invisible character as its escape, never
// raw, and the sequence whole or cut before it with "…", never split, on
// terminals of every width around the cut.
func TestHiddenCharactersAreShown(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: hidden\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "hidden")
	// The supervisor reports tasks that change after its first look.
	testenv.Eventually(t, time.Minute, "the supervisor's first look", func() (bool, string) {
		return countEvents(events(t, e, "hidden"), "mate", "idle") >= 1, ""
	})

	// A message event's detail is cut at 200 bytes, a task event's subject at
	// 120: the family (18 bytes) straddles each cut.
	msg, msgBefore := placedAt(t, 200-5, true)
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", claudecode.LeadMailboxName+".json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.Message{From: "mate", Text: msg, Timestamp: claudecode.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	subject, subjectBefore := placedAt(t, 120-5, false)
	tasks := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	os.MkdirAll(tasks, 0o700)
	b, _ := json.Marshal(map[string]any{"id": "1", "subject": subject, "status": "pending", "owner": "mate"})
	if err := os.WriteFile(filepath.Join(tasks, "1.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}

	cutsAcross(t, e, "MESSAGE", msgBefore, "inbox", "lead", "--team", "hidden")
	cutsAcross(t, e, "SUBJECT", subjectBefore, "tasks", "--team", "hidden")

	testenv.Eventually(t, time.Minute, "the message's and the task's events", func() (bool, string) {
		evs := events(t, e, "hidden")
		return countEvents(evs, "mate", "message") >= 1 && countEvents(evs, "mate", "task") >= 1, fmt.Sprint(evs)
	})
	out := e.MustRun("events", "--team", "hidden").Stdout
	checkShown(t, "events", out, msgBefore)
	checkShown(t, "events", out, "task 1 pending: "+subjectBefore)
	// Cut on the family (200 and 120 bytes fall in it): it is left out whole.
	for _, want := range []string{msgBefore + "…", "task 1 pending: " + subjectBefore + "…"} {
		if !strings.Contains(out, want) {
			t.Errorf("events does not show %q:\n%s", want, out)
		}
	}
}

package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
)

// TestAFloodOfMessagesIsCounted: a teammate writing 20000 messages to the
// lead (as Claude Code writes a mailbox: the whole file replaced, here in 20
// writes as it grows) makes a handful of message events — its first few one
// by one, the rest counted in one event with their number when the minute
// ends — and the team's history from before the flood is still in `teamctl
// events`: the log (made small here, so that an event a message would rotate
// it many times over) was not rotated away.
func TestAFloodOfMessagesIsCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of 20000 messages, and a minute for their count")
	}
	t.Parallel()
	const (
		flood    = 20000
		writes   = 20
		perLog   = 256 << 10 // bytes of events.jsonl before it rotates: flood events would fill it ten times
		perMate  = 10        // supervisor's messagesPerSender
		sentinel = "AFTER-THE-FLOOD"
	)
	e := testenv.New(t)
	e.Extra = append(e.Extra, fmt.Sprintf("TEAMCTL_EVENTS_MAX_BYTES=%d", perLog))
	e.MustRun("up", standInLayout(e, "team.yaml", "team: flood\nmembers:\n  - name: mate\n  - name: pal\n"))
	testenv.Eventually(t, time.Minute, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "flood").Supervisor.Running, ""
	})
	st, _ := readState(t, e, "flood")
	// The history to keep: the teammates' first turns, done.
	var before []event
	testenv.Eventually(t, time.Minute, "both teammates idle", func() (bool, string) {
		before = events(t, e, "flood")
		return countEvents(before, "mate", "idle") > 0 && countEvents(before, "pal", "idle") > 0, fmt.Sprint(before)
	})

	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", claudecode.LeadMailboxName+".json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	at := time.Now()
	for w := range writes {
		err := claudecode.UpdateMailbox(ctx, inbox, func(msgs []claudecode.Message) ([]claudecode.Message, error) {
			for i := w * flood / writes; i < (w+1)*flood/writes; i++ {
				msgs = append(msgs, claudecode.Message{From: "mate", Text: fmt.Sprintf("flood %d", i), Timestamp: claudecode.Timestamp(at.Add(time.Duration(i) * time.Millisecond))})
			}
			return msgs, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Another sender's message, after the flood: once it is an event, the
	// supervisor has read the whole mailbox.
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.Message{From: "pal", Text: sentinel, Timestamp: claudecode.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "pal's message after the flood as an event", func() (bool, string) {
		evs := events(t, e, "flood")
		for _, ev := range evs {
			if ev.Kind == "message" && ev.Member == "pal" && ev.Detail == sentinel {
				return true, ""
			}
		}
		return false, fmt.Sprint(len(evs), " events")
	})

	// oneByOne and counted are mate's message events: those of one message
	// each, and those that count the rest with their number.
	split := func(evs []event) (oneByOne, counted []event) {
		for _, ev := range evs {
			if ev.Kind != "message" || ev.Member != "mate" {
				continue
			}
			if strings.Contains(ev.Detail, "more messages from mate") {
				counted = append(counted, ev)
			} else {
				oneByOne = append(oneByOne, ev)
			}
		}
		return oneByOne, counted
	}
	// At most perMate one by one and one count in each window of a minute
	// the messages' events span: the flood takes a second or two to write
	// and read here, minutes on a loaded machine.
	after := events(t, e, "flood")
	if one, counted := split(after); len(one) > windows(one, counted)*perMate || len(counted) > windows(one, counted) {
		t.Errorf("%d message events one by one and %d counts for %d messages from mate, in %d windows", len(one), len(counted), flood, windows(one, counted))
	}
	checkHistoryKept(t, before, after)

	var one, counted []event
	testenv.Eventually(t, 2*time.Minute, "the count of mate's messages when the minute ends", func() (bool, string) {
		one, counted = split(events(t, e, "flood"))
		n := len(one)
		for _, ev := range counted {
			var k int
			fmt.Sscan(ev.Detail, &k)
			n += k
		}
		return n >= flood, fmt.Sprintf("%d of %d messages reported: %d one by one, counts %v", n, flood, len(one), counted)
	})
	if len(one) > windows(one, counted)*perMate || len(counted) > windows(one, counted) {
		t.Errorf("%d message events one by one and %d counts for %d messages from mate, in %d windows", len(one), len(counted), flood, windows(one, counted))
	}
	// What a person reads: the count, in words.
	text := e.MustRun("events", "--team", "flood").Stdout
	if want := fmt.Sprintf("%d more messages from mate in a minute, counted, not reported one by one", flood-len(one)); len(counted) == 1 && !strings.Contains(text, want) {
		t.Errorf("events does not say %q:\n%s", want, lastLines(text, 20))
	}
	checkHistoryKept(t, before, events(t, e, "flood"))
}

// windows is how many of the supervisor's message windows (a minute each,
// from its first message) the events span, at most.
func windows(evs ...[]event) int {
	var first, last time.Time
	for _, l := range evs {
		for _, ev := range l {
			if first.IsZero() || ev.Time.Before(first) {
				first = ev.Time
			}
			if ev.Time.After(last) {
				last = ev.Time
			}
		}
	}
	if first.IsZero() {
		return 0
	}
	return int(last.Sub(first)/time.Minute) + 1
}

// checkHistoryKept fails unless every event of before is in after, in order.
func checkHistoryKept(t *testing.T, before, after []event) {
	t.Helper()
	if len(after) < len(before) {
		t.Fatalf("%d events after the flood, %d before: the history was rotated away", len(after), len(before))
	}
	for i, ev := range before {
		if got := after[i]; !got.Time.Equal(ev.Time) || got.Kind != ev.Kind || got.Member != ev.Member || got.Detail != ev.Detail {
			t.Fatalf("event %d before the flood: %+v; now the log starts %+v: the history was rotated away", i, ev, after[0])
		}
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

package supervisor

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// budgetWorld is a team of a lead and a teammate, mate, with budget b (and
// mate's own, when given), whose stops go to the returned processes.
func budgetWorld(t *testing.T, b layouts.Budget, mate *layouts.MemberBudget) (*world, *fakeProcs) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	if b.Warn == 0 {
		b.Warn = layouts.DefaultBudgetWarn
	}
	if b.Action == "" {
		b.Action = "notify"
	}
	w.s.lay.Budget = b
	w.s.lay.Members[0].Budget = mate
	procs := &fakeProcs{}
	w.s.procs = procs
	return w, procs
}

// spendAs appends to member's transcript one response of model that cost
// dollars (output tokens of claude-sonnet-4-5, $15 a million), as Claude
// Code writes it (compact JSON), and has the daemon see the change.
func (w *world) spendAs(member, model string, dollars float64) {
	w.t.Helper()
	m, ok := w.s.st.Member(member)
	if !ok {
		w.t.Fatalf("no member %s", member)
	}
	id := m.SessionID
	if m.Role == state.RoleLead {
		id = worldLeadSession
	}
	dir := filepath.Join(w.s.claudeDir, "projects", "-work")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, id+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	responses++
	out := int64(math.Round(dollars / 15e-6))
	fmt.Fprintf(f, `{"type":"assistant","sessionId":"%s","timestamp":"2026-12-01T09:00:%02d.000Z","message":{"id":"msg_%d","model":"%s","role":"assistant","usage":{"input_tokens":0,"output_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`+"\n",
		id, responses%60, responses, model, out)
	f.Close()
	w.changed(filewatch.Transcripts)
}

// responses numbers the responses spendAs writes (their message ids).
var responses int

func (w *world) spend(member string, dollars float64) {
	w.spendAs(member, "claude-sonnet-4-5", dollars)
}

// usageOf is member's usage as the daemon knows it (live.json has it within
// usageSaveEvery: savedUsageOf).
func (w *world) usageOf(member string) state.MemberUsage {
	if u := w.s.live.Usage[member]; u != nil {
		return *u
	}
	return state.MemberUsage{}
}

// savedUsageOf is member's usage as live.json says.
func (w *world) savedUsageOf(member string) state.MemberUsage {
	w.t.Helper()
	l, err := state.ReadLive("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	if u := l.Usage[member]; u != nil {
		return *u
	}
	return state.MemberUsage{}
}

// budgetEvents are the usage, held and released events.
func budgetEvents(evs []state.Event) []state.Event {
	return slices.DeleteFunc(evs, func(e state.Event) bool {
		return e.Kind != state.EventUsage && e.Kind != state.EventHeld && e.Kind != state.EventReleased
	})
}

// TestUsageIsFollowed: what a member's transcript gains is counted into
// live.json when the file watch says it changed (only the new lines read),
// and a model with no price is counted in tokens and said "no price", never
// costed.
func TestUsageIsFollowed(t *testing.T) {
	w, _ := budgetWorld(t, layouts.Budget{}, nil)
	w.spend("lead", 1.5)
	if u := w.usageOf("lead"); u.Turns != 1 || u.Cost != 1.5 || u.Output != 100_000 || u.CostText() != "$1.50" {
		t.Errorf("lead after one response: %+v", u)
	}
	w.spend("lead", 0.75)
	if u := w.usageOf("lead"); u.Turns != 2 || math.Abs(u.Cost-2.25) > 1e-9 {
		t.Errorf("lead after two responses: %+v", u)
	}
	// In live.json within usageSaveEvery, though nothing more is written.
	w.advance(usageSaveEvery)
	w.changed()
	w.advance(usageDelay)
	w.changed()
	if u := w.savedUsageOf("lead"); u.Turns != 2 || math.Abs(u.Cost-2.25) > 1e-9 {
		t.Errorf("live.json's lead %s after the two responses: %+v", usageSaveEvery, u)
	}
	w.spendAs("mate", "claude-nova-9", 1)
	if u := w.usageOf("mate"); u.Turns != 1 || u.Cost != 0 || !slices.Equal(u.NoPrice, []string{"claude-nova-9"}) || u.CostText() != "66.7k tok, no price" {
		t.Errorf("mate on a model with no price: %+v (%s)", u, u.CostText())
	}
	// A turn's end looks too (a change the watch missed), after usageDelay.
	m, _ := w.s.st.Member("mate")
	f, err := os.OpenFile(filepath.Join(w.s.claudeDir, "projects", "-work", m.SessionID+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"assistant","sessionId":"%s","timestamp":"2026-12-01T09:01:00.000Z","message":{"id":"msg_x","model":"claude-sonnet-4-5","usage":{"input_tokens":0,"output_tokens":100000}}}`+"\n", m.SessionID)
	f.Close()
	w.hook("Stop", "mate", "%1")
	w.advance(usageDelay - time.Millisecond)
	w.changed() // what the watcher was told is due (nothing yet)
	if u := w.usageOf("mate"); u.Turns != 1 {
		t.Errorf("looked before usageDelay: %+v", u)
	}
	w.advance(time.Millisecond)
	w.changed() // the look marked due
	if u := w.usageOf("mate"); u.Turns != 2 || u.Cost != 1.5 || u.CostText() != "$1.50 + no price" {
		t.Errorf("mate after a turn ended: %+v (%s)", u, u.CostText())
	}
}

// TestBudgetThresholds: the warning threshold and the budget are each said
// once (a usage event and the notify command), a budget spent with notify
// does nothing more, the team's budget counts every member, and a budget
// raised in the layout is a new threshold.
func TestBudgetThresholds(t *testing.T) {
	w, _ := budgetWorld(t, layouts.Budget{Member: 5, Team: 8}, &layouts.MemberBudget{Member: 2, Warn: 0.5})
	dir := t.TempDir()
	script := filepath.Join(dir, "notify")
	told := filepath.Join(dir, "told")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nline=$(cat)\nprintf '%s %s %s\\n' \"$TEAMCTL_MEMBER\" \"$TEAMCTL_PATTERN\" \"$line\" >> "+told+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.s.lay.Watchdog.Notify.Command = []string{script}
	got := budgetEvents(w.written(func() {
		w.spend("lead", 3)   // 60%
		w.spend("lead", 1.1) // 82%
		w.spend("lead", 0.1) // 84%: nothing new
		w.spend("mate", 1)   // 50% of its own 2
		w.spend("lead", 1)   // 102%
		w.spend("lead", 1)   // spent already
		w.spend("mate", 1.5) // spent its own; the team's 8 too
	}))
	checkEvents(t, got, []wantEvent{
		{state.EventUsage, "lead", "lead has spent $4.10 of its $5.00 budget (82%; warning at 80%)"},
		{state.EventUsage, "mate", "mate has spent $1.00 of its $2.00 budget (50%; warning at 50%)"},
		{state.EventUsage, "lead", "lead has spent its $5.00 budget: $5.20"},
		{state.EventUsage, "", "the team has spent $7.20 of its $8.00 budget (90%; warning at 80%)"},
		{state.EventUsage, "mate", "mate has spent its $2.00 budget: $2.50"},
		{state.EventUsage, "", "the team has spent its $8.00 budget: $8.70"},
	})
	if h := w.s.live.Budgets.Held; len(h) != 0 || len(w.srv.sentKeys("%0")) != 0 {
		t.Errorf("notify held %v or sent keys %q", h, w.srv.sentKeys("%0"))
	}
	// The notify command ran for each, in the background.
	testenv.Eventually(t, 20*time.Second, "the notify command told of six thresholds", func() (bool, string) {
		b, _ := os.ReadFile(told)
		return strings.Count(string(b), "\n") == 6, string(b)
	})
	b, _ := os.ReadFile(told)
	for _, want := range []string{"lead budget-warn decide: lead has spent $4.10", "lead budget-spent decide: lead has spent its $5.00 budget", " budget-spent decide: the team has spent its $8.00 budget"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the notify command was not told %q:\n%s", want, b)
		}
	}
	// A budget raised: said again when it is reached.
	w.s.lay.Budget.Member = 7
	got = budgetEvents(w.written(func() { w.spend("lead", 0.5) }))
	checkEvents(t, got, []wantEvent{{state.EventUsage, "lead", "lead has spent $6.70 of its $7.00 budget (96%; warning at 80%)"}})
}

// TestBudgetInterruptHolds: a member that spends its budget with action
// interrupt gets Escape in its pane and is held: its exit is not restarted,
// the lead queue is not typed into it, watchdog answers are not sent, until
// a released event (teamctl resume-member) lets it go; then what waited is
// typed. Said once, also across a daemon's restart.
func TestBudgetInterruptHolds(t *testing.T) {
	w, _ := budgetWorld(t, layouts.Budget{Member: 2, Action: "interrupt"}, nil)
	w.output("%0", screenFile(t, "claude-working.txt"))
	got := budgetEvents(w.written(func() { w.spend("lead", 2.5) }))
	checkEvents(t, got, []wantEvent{
		{state.EventUsage, "lead", "lead has spent its $2.00 budget: $2.50; interrupted and held until `teamctl resume-member lead`"},
		{state.EventHeld, "lead", "budget: lead has spent its $2.00 budget: $2.50; interrupted"},
	})
	if keys := w.srv.sentKeys("%0"); !slices.Equal(keys, []string{"Escape"}) {
		t.Errorf("keys sent to the lead: %q, want Escape", keys)
	}
	l, _ := state.ReadLive("decide")
	if h, ok := l.HeldMember("lead"); !ok || h.Stopped || !strings.Contains(h.Reason, "budget") {
		t.Errorf("live.json's hold: %+v %v", h, ok)
	}
	// Held: text for the lead waits, idle or not.
	if err := state.QueueForLead("decide", "carry on"); err != nil {
		t.Fatal(err)
	}
	w.changed("queue")
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	if len(w.srv.typed) != 0 {
		t.Errorf("typed into a held lead: %q", w.srv.typed)
	}
	// A daemon started again says nothing again and keeps the hold.
	prev, _ := state.ReadLive("decide")
	w.s.spend = spending{}
	w.s.live.Budgets = nil
	got = budgetEvents(w.written(func() { w.s.usageBegin(w.ctx, prev); w.settle() }))
	checkEvents(t, got, nil)
	if !w.s.heldMember("lead") {
		t.Error("the hold did not outlive the daemon")
	}
	// Released: the text that waited is typed.
	ev, _ := state.OpenEventLog("decide")
	ev.Append(state.Event{Kind: state.EventReleased, Member: "lead"})
	ev.Close()
	w.changed("events")
	if w.s.heldMember("lead") {
		t.Error("still held after its release")
	}
	if !slices.Equal(w.srv.typed, []string{"%0: carry on"}) {
		t.Errorf("typed after the release: %q", w.srv.typed)
	}
	got = budgetEvents(w.written(func() { w.spend("lead", 1) }))
	checkEvents(t, got, nil) // the same budget is not acted on again
}

// TestHeldMemberIsNotRestarted: a teammate held for its budget that exits is
// not restarted, however long.
func TestHeldMemberIsNotRestarted(t *testing.T) {
	w, _ := budgetWorld(t, layouts.Budget{Member: 1, Action: "interrupt"}, nil)
	w.spend("mate", 1)
	w.exit("mate", "1", "")
	w.advance(time.Hour)
	if n := len(w.events(state.EventRestart, "mate")); n != 0 {
		t.Errorf("a held member was restarted %d times", n)
	}
}

// TestBudgetStop: action stop asks a teammate to shut down (Claude Code's
// shutdown_request in its mailbox) and ends its process group as down does
// (a wait, then SIGTERM, grace, SIGKILL); held, it is not restarted; the
// team's budget spent stops every Claude Code member.
func TestBudgetStop(t *testing.T) {
	w, e := budgetWorld(t, layouts.Budget{Team: 3, Action: "stop"}, nil)
	cfg, _ := claudecode.TeamConfigPath(w.s.claudeDir, w.s.st.ClaudeTeam)
	if err := os.MkdirAll(filepath.Join(filepath.Dir(cfg), "inboxes"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.spend("mate", 1)
	got := budgetEvents(w.written(func() { w.spend("lead", 2.5) }))
	checkEvents(t, got, []wantEvent{
		{state.EventUsage, "", "the team has spent its $3.00 budget: $3.50; stopped and held until `teamctl resume-member lead mate`"},
		{state.EventHeld, "lead", "; stopped"},
		{state.EventHeld, "mate", "; stopped"},
	})
	lead, mate := w.srv.pane("%0").PID, w.srv.pane("%1").PID
	testenv.Eventually(t, 10*time.Second, "both stopped", func() (bool, string) { return len(e.calls()) == 2, strings.Join(e.calls(), ", ") })
	want := []string{fmt.Sprintf("%d 0s 10s", lead), fmt.Sprintf("%d 5s 10s", mate)}
	if calls := e.calls(); !slices.Equal(slices.Sorted(slices.Values(calls)), slices.Sorted(slices.Values(want))) {
		t.Errorf("ended %q, want %q", calls, want)
	}
	msgs, err := claudecode.ReadMailbox(mustInbox(t, w, "mate"))
	if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0].Text, `"type":"shutdown_request"`) {
		t.Errorf("mate's mailbox: %v %+v", err, msgs)
	}
	w.exit("mate", "", "15")
	w.advance(time.Hour)
	if n := len(w.events(state.EventRestart, "")); n != 0 {
		t.Errorf("%d restarts of members stopped for the budget", n)
	}
	l, _ := state.ReadLive("decide")
	if h, ok := l.HeldMember("mate"); !ok || !h.Stopped {
		t.Errorf("mate's hold %+v %v", h, ok)
	}
	// Released, a member stopped for its budget is started again.
	ev, _ := state.OpenEventLog("decide")
	ev.Append(state.Event{Kind: state.EventReleased, Member: "mate"})
	ev.Close()
	w.changed("events")
	w.advance(time.Second)
	if n := len(w.events(state.EventRestart, "mate")); n != 1 {
		t.Errorf("released, mate was restarted %d times, want 1", n)
	}
}

// TestSpawnedTeammateCountedWhenItsTranscriptComes: a teammate the lead
// spawned is found by its transcript, which it writes at its first turn,
// after it joined. The look its joining brought found nothing; the next
// looked only a sessionsEvery later and only when a change came, so on a
// team gone quiet its spending was never counted (status showed no usage
// for it while teamctl usage did). Its transcript's first change finds it.
func TestSpawnedTeammateCountedWhenItsTranscriptComes(t *testing.T) {
	w, _ := budgetWorld(t, layouts.Budget{}, nil)
	w.s.st.Members = append(w.s.st.Members, state.Member{Name: "helper", Role: state.RoleTeammate, Origin: state.OriginLead, Pane: "%9"})
	w.changed(filewatch.Transcripts) // helper joined: looked for, nothing yet
	w.advance(usageDelay)
	w.forgeTranscript("aaaaaaaa-0000-4000-8000-00000000000a", "helper", 100_000)
	w.changed(filewatch.Transcripts)
	if u := w.usageOf("helper"); u.Turns != 1 || u.Cost < 1.49 || u.Cost > 1.51 {
		t.Errorf("helper's usage after its transcript came: %+v, want 1 turn, $1.50", u)
	}
	// A change sooner than usageDelay after a look is looked at shortly.
	w.s.st.Members = append(w.s.st.Members, state.Member{Name: "helper2", Role: state.RoleTeammate, Origin: state.OriginLead, Pane: "%8"})
	w.changed(filewatch.Transcripts) // helper2 joined: looked for, nothing yet
	w.forgeTranscript("aaaaaaaa-0000-4000-8000-00000000000b", "helper2", 100_000)
	w.changed(filewatch.Transcripts)
	if u := w.usageOf("helper2"); u.Turns != 0 {
		t.Errorf("helper2 looked for again at once: %+v (at most once a usageDelay)", u)
	}
	w.advance(usageDelay)
	w.changed() // the look marked due
	if u := w.usageOf("helper2"); u.Turns != 1 {
		t.Errorf("helper2's usage a usageDelay after its transcript came: %+v, want 1 turn", u)
	}
}

// TestBudgetOfACodexMember: a Codex member's spending is followed from its
// CLI's records in its home (a rollout's token_usage_record, read when its
// turn ends), priced, and its budget acted on as a Claude Code member's:
// spent with action interrupt, it gets Escape and is held.
func TestBudgetOfACodexMember(t *testing.T) {
	w := newWorldWith(t, "budget: {member: 1, action: interrupt}\n", "", member{"lead", state.RoleLead, ""}, member{"rev", state.RoleProcess, ""})
	m, _ := w.s.st.Member("rev")
	m.Agent = "codex" // as up records a member of agent: codex
	w.s.procs = &fakeProcs{}
	w.changed() // a look: rev's home is followed from now on
	home, err := state.AgentHome("decide", "rev", "codex")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "sessions", "2026", "12", "01")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// gpt-5.5's output is $30 a million: 40,000 tokens are $1.20.
	rollout := `{"timestamp":"2026-12-01T09:00:01.000Z","type":"turn_context","payload":{"turn_id":"t1","model":"gpt-5.5"}}
{"timestamp":"2026-12-01T09:00:02.000Z","type":"token_usage_record","payload":{"turn_id":"t1","response_id":"resp_1","usage":{"input_tokens":0,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":40000,"reasoning_output_tokens":0,"total_tokens":40000}}}
`
	if err := os.WriteFile(filepath.Join(dir, "rollout-2026-12-01T09-00-00-x.jsonl"), []byte(rollout), 0o600); err != nil {
		t.Fatal(err)
	}
	w.output("%1", screenFile(t, "codex-0.171.0-idle.txt"))
	got := budgetEvents(w.written(func() {
		w.hook("Stop", "rev", "%1") // its notify program: its turn ended
		w.advance(usageDelay)
		w.changed()
	}))
	checkEvents(t, got, []wantEvent{
		{state.EventUsage, "rev", "rev has spent its $1.00 budget: $1.20; interrupted and held until `teamctl resume-member rev`"},
		{state.EventHeld, "rev", "budget: rev has spent its $1.00 budget: $1.20; interrupted"},
	})
	if u := w.usageOf("rev"); u.Turns != 1 || u.Output != 40000 || !slices.Equal(u.Models, []string{"gpt-5.5"}) {
		t.Errorf("rev's usage: %+v", u)
	}
	if keys := w.srv.sentKeys("%1"); !slices.Equal(keys, []string{"Escape"}) {
		t.Errorf("keys sent to rev: %q, want Escape", keys)
	}
}

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
	"github.com/teamctl/teamctl/usage"
)

// TestPriceFileFIFODoesNotHoldTheStart: a FIFO put where the price file
// goes (an agent can write the config folder) once held the supervisor at
// its start, which then missed a member's death; it is refused at once, the
// shipped prices are used, and the members are watched.
func TestPriceFileFIFODoesNotHoldTheStart(t *testing.T) {
	conf := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", conf)
	if err := os.Mkdir(filepath.Join(conf, "teamctl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(conf, "teamctl", usage.PriceFileName), 0o600); err != nil {
		t.Skip(err)
	}
	started := make(chan *world, 1)
	go func() {
		started <- newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	}()
	var w *world
	select {
	case w = <-started:
	case <-time.After(time.Minute):
		t.Fatal("the supervisor's start still waits on the FIFO after a minute")
	}
	if w.s.spend.prices == nil || w.s.spend.prices.Source != "shipped" {
		t.Errorf("prices: %+v, want the shipped table", w.s.spend.prices)
	}
	w.exit("mate", "1", "")
	if got := w.live("mate").State; !got.Ended() {
		t.Errorf("mate exited: its state is %s", got)
	}
}

// TestLimitNotWatchedOnAPlainProcess: a `command:` member printing Claude
// Code's limit banner above an input box (a log tail, an agent's echo) is a
// plain process: it is never limited, and nothing is typed into it (a
// shell or a REPL reading its stdin would run the prompt), however long;
// the same screen on a Claude Code teammate is a limit, continued once.
func TestLimitNotWatchedOnAPlainProcess(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
	w := newWorldWith(t, limitsOn, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""}, member{"tool", state.RoleProcess, ""})
	banner := strings.Replace(screenFile(t, "claude-2.1.332-limit-gave-up.txt"),
		"● API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.",
		"You've hit your limit · resets 9:30pm", 1)
	if !strings.Contains(banner, "resets 9:30pm") {
		t.Fatal("the gave-up screen no longer has its API error line")
	}
	w.draw("%2", banner)
	w.draw("%1", banner)
	for range 3 {
		w.advance(10 * time.Minute)
		w.draw("%2", banner+" ")
	}
	w.advanceTo(day(23, 0, 0))
	if typed := w.typedInto("%2"); len(typed) != 0 {
		t.Errorf("typed %q into a plain process", typed)
	}
	if evs := w.events(state.EventLimited, "tool"); len(evs) != 0 {
		t.Errorf("a plain process limited: %+v", evs)
	}
	if got := w.live("tool").State; got == state.StateLimited {
		t.Errorf("tool is %s", got)
	}
	// The Claude Code teammate with that screen: limited, resets 21:30,
	// one continuation at 21:31:10.
	if evs := w.events(state.EventLimited, "mate"); len(evs) != 1 || !evs[0].Reset.Equal(day(21, 30, 0)) {
		t.Errorf("mate's limited events: %+v", evs)
	}
	if typed := w.typedInto("%1"); len(typed) != 1 || typed[0] != "continue" {
		t.Errorf("typed into mate %q, want one continue", typed)
	}
}

// forgeTranscript writes, as a member could, a new transcript under the
// team's Claude Code folder whose compact lines say they are agent's of the
// team's Claude Code team, with one response of output tokens.
func (w *world) forgeTranscript(session, agent string, output int) string {
	w.t.Helper()
	dir := filepath.Join(w.s.claudeDir, "projects", "-tmp-x")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(dir, session+".jsonl")
	line := fmt.Sprintf(`{"type":"assistant","isSidechain":false,"teamName":"%s","agentName":"%s","sessionId":"%s","timestamp":"2026-12-01T09:00:30.000Z","message":{"id":"msg_forged_%s","model":"claude-sonnet-4-5","role":"assistant","usage":{"input_tokens":0,"output_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`+"\n",
		w.s.st.ClaudeTeam, agent, session, session[:8], output)
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// TestBudgetNotSpentByAForgedTranscript: a teammate writing transcripts
// that name the lead and another teammate (teamName and agentName, 100k
// output tokens each: $1.50, over a member budget of $1 with action stop)
// once had the supervisor stop both. The lead's and layout teammates'
// usage comes only from the sessions teamctl recorded: nothing is charged,
// nobody is stopped, and each file is said once (file-refused).
func TestBudgetNotSpentByAForgedTranscript(t *testing.T) {
	w, e := budgetWorld(t, layouts.Budget{Member: 1, Action: "stop"}, nil)
	forged := []string{
		w.forgeTranscript("aaaaaaaa-0000-4000-8000-000000000001", "lead", 100_000),
		w.forgeTranscript("aaaaaaaa-0000-4000-8000-000000000002", "mate", 100_000),
		w.forgeTranscript("aaaaaaaa-0000-4000-8000-000000000003", "team-lead", 100_000),
	}
	for range 3 {
		w.advance(sessionsEvery)
		w.changed(filewatch.Transcripts)
	}
	for _, name := range []string{"lead", "mate", "team-lead"} {
		if u := w.usageOf(name); u.Turns != 0 || u.Cost != 0 {
			t.Errorf("%s charged for a forged transcript: %+v", name, u)
		}
	}
	if got := budgetEvents(w.events("", "")); len(got) != 0 {
		t.Errorf("budget events: %+v", got)
	}
	if calls := e.calls(); len(calls) != 0 {
		t.Errorf("stopped %q", calls)
	}
	refused := w.events(state.EventFileRefused, "")
	if len(refused) != len(forged) {
		t.Fatalf("%d file-refused events, want one for each of the %d forged files: %+v", len(refused), len(forged), refused)
	}
	var said []string
	for _, e := range refused {
		said = append(said, e.Detail)
	}
	for _, p := range forged {
		if !strings.Contains(strings.Join(said, "\n"), "not counted: transcript "+p+" says it is") {
			t.Errorf("file-refused events %q, want one of %s", said, p)
		}
	}
	// The members' own transcripts still count.
	w.spend("mate", 0.75)
	if u := w.usageOf("mate"); u.Turns != 1 || u.Cost != 0.75 {
		t.Errorf("mate's own spending: %+v", u)
	}
}

// TestMemberEventsFromConfigAreBounded: one write of config.json with 15,000
// members (an agent can write it) once made 15,006 events at once, which
// rotated the team's history away. A pass names memberEventsMax members
// joining, in order, and counts the rest in one event; the same when they
// leave.
func TestMemberEventsFromConfigAreBounded(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
	st := w.s.st
	read := func(names []string) configRead {
		cfg := claudecode.MinimalTeamConfig(st.ClaudeTeam, st.LeadSessionID, "/", os.Getpid(), w.clock.Now())
		for _, name := range names {
			cfg.Members = append(cfg.Members, claudecode.TeamMember{AgentID: name + "@" + st.ClaudeTeam, Name: name, BackendType: "tmux"})
		}
		return configRead{path: w.s.files.Paths().Config, cfg: &cfg}
	}
	many := []string{"mate"}
	for i := range 15_000 {
		many = append(many, fmt.Sprintf("m%05d", i))
	}
	var want []wantEvent
	for _, what := range []string{"joined", "left"} {
		for i := range memberEventsMax {
			want = append(want, wantEvent{state.EventMember, fmt.Sprintf("m%05d", i), what + " the team's config.json"})
		}
		want = append(want, wantEvent{state.EventMember, "", fmt.Sprintf("14990 more members %s the team's config.json, not said one by one (m00010, m00011, m00012, m00013, m00014, …)", what)})
	}
	got := w.written(func() {
		w.s.checkConfig(w.ctx, read([]string{"mate"}))
		w.s.checkConfig(w.ctx, read(many))
		w.settle()
		w.s.checkConfig(w.ctx, read([]string{"mate"}))
		w.settle()
	})
	checkEvents(t, slices.DeleteFunc(got, func(e state.Event) bool { return e.Kind != state.EventMember }), want)
	if len(got) > 2*memberEventsMax+2 {
		t.Errorf("%d events", len(got))
	}
}

// TestLeadTextNotTypedIsSaid: a text `send` queued for the lead that tmux
// would not type (send-keys once failed "argument list too long" on 128 KiB)
// is never dropped unsaid: an event says it was not typed, and why.
func TestLeadTextNotTypedIsSaid(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	w.output("%0", screenFile(t, "claude-working.txt"))
	if err := state.QueueForLead("decide", "the plan, at length"); err != nil {
		t.Fatal(err)
	}
	w.srv.mu.Lock()
	w.srv.typeErr = errors.New("tmux send-keys: fork/exec /usr/bin/tmux: argument list too long")
	w.srv.mu.Unlock()
	w.changed("queue")
	w.output("%0", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	var said []string
	for _, e := range w.events(state.EventNotify, "lead") {
		said = append(said, e.Detail)
	}
	if len(said) != 1 || !strings.Contains(said[0], "not typed into the lead (tmux send-keys: fork/exec /usr/bin/tmux: argument list too long): the plan, at length") {
		t.Errorf("notify events %q", said)
	}
}

package cockpit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/team/model"
)

// fake is the Backend and the Feed of a model under test: it records every
// call, as the command it stands for would be run.
type fake struct {
	mu       sync.Mutex
	calls    []string
	teams    []string
	err      error // what the actions return
	answered error
	changes  map[string]*model.Changes // by team, what Changes reads
	merged   *model.MergeResult        // what Merge returns (nil: it lands)
	reads    []string                  // the teams whose changes were read, in turn: reads, not actions
}

func (f *fake) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fake) UpTeams(context.Context) ([]string, error) { return f.teams, nil }

// Answer records the answer as `teamctl answer` would be run, with the
// option the person saw in brackets, and sends what model.Answer would.
func (f *fake) Answer(_ context.Context, team, member string, a model.Answer) (model.Answered, error) {
	var got model.Answered
	switch {
	case len(a.Keys) > 0:
		got.Keys = a.Keys
		f.record("answer %s %s --keys %s", team, member, strings.Join(a.Keys, " "))
	case a.Expect != "":
		got = model.Answered{Keys: []string{a.Reply}, Option: a.Expect}
		f.record("answer %s %s %s (%s)", team, member, a.Reply, a.Expect)
	default:
		got.Keys = []string{a.Reply, "Enter"}
		f.record("answer %s %s %s", team, member, a.Reply)
	}
	if f.answered != nil {
		return got, f.answered
	}
	if f.err != nil {
		return model.Answered{}, f.err
	}
	return got, nil
}
func (f *fake) Approve(_ context.Context, team, member string) (string, error) {
	f.record("approve %s %s", team, member)
	return "perm-1", f.err
}
func (f *fake) Deny(_ context.Context, team, member, reason string) (string, error) {
	f.record("deny %s %s %q", team, member, reason)
	return "perm-1", f.err
}
func (f *fake) Send(_ context.Context, team, member, text string) (string, error) {
	f.record("send %s %s %q", team, member, text)
	return "left in its mailbox", f.err
}
func (f *fake) Restart(_ context.Context, team, member string) (int, error) {
	f.record("restart %s %s", team, member)
	return 4242, f.err
}
func (f *fake) Release(_ context.Context, team, member string) (string, error) {
	f.record("release %s %s", team, member)
	return "budget: lead has spent its $5.00 budget: $5.10; interrupted", f.err
}
func (f *fake) Attach(_ context.Context, team, member string) (*exec.Cmd, string, error) {
	f.record("attach %s %s", team, member)
	return exec.Command("true"), "C-b", f.err
}
func (f *fake) Changes(_ context.Context, team string) (*model.Changes, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, team)
	if ch := f.changes[team]; ch != nil {
		return ch, nil
	}
	return &model.Changes{Team: team}, nil
}
func (f *fake) DiffCmd(_ context.Context, team, member string) (*exec.Cmd, error) {
	f.record("diff %s %s", team, member)
	return exec.Command("true"), f.err
}
func (f *fake) Merge(_ context.Context, team, member string) (*model.MergeResult, error) {
	f.record("merge %s %s", team, member)
	if f.merged != nil {
		return f.merged, f.err
	}
	l := model.Landed{Member: member}
	l.Branch, l.Into, l.Commits = "teamctl/"+team+"/"+member, "main", 2
	return &model.MergeResult{Team: team, Landed: []model.Landed{l}}, f.err
}
func (f *fake) Follow(teams []string, others bool) {
	if others {
		f.record("follow %s +others", strings.Join(teams, ","))
		return
	}
	f.record("follow %s", strings.Join(teams, ","))
}
func (f *fake) Focus(team, pane string) { f.record("focus %s %s", team, pane) }

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newModel(t *testing.T, f *fake, color bool) *Model {
	t.Helper()
	m := New(Options{Team: "alpha", Backend: f, Feed: f, Color: color, Bell: true, Now: func() time.Time { return t0 }})
	start(t, m, f)
	return m
}

// start starts m as the program would: Init, then the teams up listed (its
// clock's ticks left out).
func start(t *testing.T, m *Model, f *fake) {
	t.Helper()
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(teamsMsg{teams: f.teams})
}

// do runs a command the way the program would, feeding what it returns back
// to the model (batches too); it returns the messages that were not the
// model's to handle (tea.QuitMsg, the output of tea.Raw, an exec).
func do(t *testing.T, m *Model, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	var out []tea.Msg
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			out = append(out, do(t, m, c)...)
		}
	case tea.QuitMsg, tea.RawMsg:
		out = append(out, msg)
	default:
		if strings.Contains(fmt.Sprintf("%T", msg), "execMsg") {
			return append(out, msg) // the program would suspend itself here
		}
		_, next := m.Update(msg)
		out = append(out, do(t, m, next)...)
	}
	return out
}

func press(t *testing.T, m *Model, keys ...string) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		_, cmd := m.Update(msg)
		out = append(out, do(t, m, cmd)...)
	}
	return out
}

func typeText(t *testing.T, m *Model, text string) {
	t.Helper()
	for _, r := range text {
		_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		do(t, m, cmd)
	}
}

// team is a status of five members: a lead at work, an idle teammate, one
// stalled at a yes/no prompt for 10s, one waiting 5s for approval of a Bash
// command, and a failed process.
func teamSnap() *Snapshot {
	code := 1
	return &Snapshot{Status: &model.Status{Team: "alpha", Supervisor: model.SupervisorStatus{Running: true, PID: 9}, Members: []model.MemberStatus{
		{Name: "lead", Role: "lead", Origin: "layout", Pane: "%0", State: "running", StartedAt: t0.Add(-3 * time.Minute)},
		{Name: "idler", Role: "teammate", Origin: "layout", Pane: "%1", State: "idle", Since: t0.Add(-90 * time.Second), Result: "done with it"},
		{Name: "asker", Role: "teammate", Origin: "layout", Pane: "%2", State: "stalled", Restarts: 2,
			Stall: &model.Stall{Pattern: "yes-no", Line: "Overwrite? (y/n)", Since: t0.Add(-10 * time.Second)}},
		{Name: "perms", Role: "teammate", Origin: "lead", Pane: "%3", State: "waiting-approval",
			Request: &Request{ID: "perm-1", Tool: "Bash", Input: `{"command":"rm -rf build"}`, Description: "Clean the build", Since: t0.Add(-5 * time.Second)}},
		{Name: "web", Role: "process", Origin: "layout", Pane: "%4", State: "failed", ExitCode: &code, Reason: "exited 6 times within 2m0s; not restarting"},
	}}, Worktrees: map[string]Worktree{"asker": {Path: "/src/.teamctl/worktrees/alpha/asker", Branch: "teamctl/alpha/asker"}}}
}

func look(t *testing.T, m *Model, s *Snapshot) []tea.Msg {
	t.Helper()
	_, cmd := m.Update(StatusMsg{Team: s.Team, Snap: s})
	return do(t, m, cmd)
}

func view(m *Model) string { return m.View().Content }

// rows are the table's rows as shown: the lines after the header, up to the rule.
func rows(m *Model) []string {
	lines := strings.Split(view(m), "\n")
	var out []string
	for _, l := range lines[2:] {
		if strings.HasPrefix(l, "──") {
			break
		}
		out = append(out, l)
	}
	return out
}

func TestWhoeverWaitsForAPersonComesFirst(t *testing.T) {
	m := newModel(t, &fake{}, false)
	look(t, m, teamSnap())
	got := rows(m)
	want := []struct{ name, rest string }{
		{"asker", `stalled +10s +2 "Overwrite\? \(y/n\)"`},
		{"perms", `spawned +waiting-approval +5s +0 Bash: rm -rf build`},
		{"web", `process +failed +- +0 exited 6 times`},
		{"lead", `lead +working +3m +0`},
		{"idler", `teammate +idle +1m +0`},
	}
	if len(got) != len(want) {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !regexp.MustCompile(`^[> ] ` + w.name + ` .*` + w.rest).MatchString(got[i]) {
			t.Errorf("row %d = %q, want %s then %s", i, got[i], w.name, w.rest)
		}
	}
	if !strings.HasPrefix(got[0], "> asker") {
		t.Errorf("the first row is not the one selected at the start: %q", got[0])
	}
	if v := view(m); !strings.Contains(v, "2 waiting for you") {
		t.Errorf("title does not count who waits:\n%s", v)
	}
}

func TestKeysActThroughTheCommandsFunctions(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	// asker is selected (first), at a prompt: y, n and enter answer it as
	// `teamctl answer` does.
	press(t, m, "y", "n", "enter")
	press(t, m, "j") // perms, waiting for approval
	press(t, m, "a")
	press(t, m, "d")
	typeText(t, m, "not now")
	press(t, m, "enter")
	press(t, m, "s")
	typeText(t, m, "look at the logs")
	press(t, m, "enter")
	press(t, m, "j", "j") // lead
	press(t, m, "r", "y")
	press(t, m, "r", "x") // a restart not confirmed
	out := press(t, m, "t")
	var acts []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "focus") && !strings.HasPrefix(c, "follow") {
			acts = append(acts, c)
		}
	}
	want := []string{
		"answer alpha asker y",
		"answer alpha asker n",
		"answer alpha asker --keys Enter",
		"approve alpha perms",
		`deny alpha perms "not now"`,
		`send alpha perms "look at the logs"`,
		"restart alpha lead",
		"attach alpha lead",
	}
	if !slices.Equal(acts, want) {
		t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(acts, "\n"), strings.Join(want, "\n"))
	}
	if len(out) != 1 || !strings.Contains(fmt.Sprintf("%T", out[0]), "execMsg") {
		t.Errorf("t did not suspend the program to attach: %#v", out)
	}
	if v := view(m); !strings.Contains(v, "attached to lead; detach (C-b d) to come back") {
		t.Errorf("no word of the attachment:\n%s", v)
	}
	m.Update(detachedMsg{member: "lead"})
	if v := view(m); !strings.Contains(v, "back from lead") || !strings.Contains(v, "> lead") {
		t.Errorf("back from attaching, the table is not shown with lead selected:\n%s", v)
	}
}

func TestKeysRefuseWhatTheMemberIsNotWaitingFor(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	press(t, m, "j", "j", "j") // lead, working
	press(t, m, "y", "n", "enter", "a", "d")
	press(t, m, "k", "k") // perms: spawned by the lead
	press(t, m, "r", "y")
	press(t, m, "k") // asker: stalled, no request
	press(t, m, "a")
	press(t, m, "j", "j") // web, a process: no mailbox
	press(t, m, "s")
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "focus") && !strings.HasPrefix(c, "follow") {
			t.Errorf("acted although the member was not waiting for it: %s", c)
		}
	}
	if v := view(m); !strings.Contains(v, "web is a plain process, not Claude Code") {
		t.Errorf("no reason given:\n%s", v)
	}
}

func TestActionOutcomesAreShown(t *testing.T) {
	f := &fake{err: errors.New("team alpha has no member \"asker\"")}
	m := newModel(t, f, false)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	look(t, m, teamSnap())
	press(t, m, "y")
	if v := view(m); !strings.Contains(v, `team alpha has no member "asker"`) {
		t.Errorf("an action's error is not shown:\n%s", v)
	}
	f.err, f.answered = nil, &model.NotRecordedError{Err: errors.New("read-only file system")}
	press(t, m, "y")
	if v := view(m); !strings.Contains(v, "sent y Enter to asker; warning:") || !strings.Contains(v, "read-only file system") {
		t.Errorf("an answer sent but not recorded is not told as such:\n%s", v)
	}
	f.answered = nil
	press(t, m, "j", "a")
	if v := view(m); !strings.Contains(v, "approved perms's request perm-1") {
		t.Errorf("approve's outcome:\n%s", v)
	}
	press(t, m, "d", "esc")
	if v := view(m); !strings.Contains(v, "deny cancelled") {
		t.Errorf("esc did not cancel deny:\n%s", v)
	}
	if c := f.Calls(); slices.ContainsFunc(c, func(s string) bool { return strings.HasPrefix(s, "deny") }) {
		t.Errorf("a cancelled deny was sent: %v", c)
	}
}

func TestSelectionFollowsItsMemberAndTheDetailItsPane(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	press(t, m, "j", "j", "j") // lead
	s := teamSnap()
	s.Members[2].State, s.Members[2].Stall = "running", nil // asker answered: no longer first
	look(t, m, s)
	if got := rows(m); !strings.HasPrefix(got[2], "> lead") {
		t.Errorf("the selection did not stay on lead:\n%s", strings.Join(got, "\n"))
	}
	var focus []string
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "focus") {
			focus = append(focus, c)
		}
	}
	if want := []string{"focus alpha ", "focus alpha %2", "focus alpha %3", "focus alpha %4", "focus alpha %0"}; !slices.Equal(focus, want) {
		t.Errorf("the feed was told to focus %q, want %q", focus, want)
	}
	m.Update(ScreenMsg{Team: "alpha", Pane: "%0", Lines: []string{"✻ Claude Code", "", "compiling the world", "", ""}})
	m.Update(ScreenMsg{Team: "alpha", Pane: "%1", Lines: []string{"SOMEONE ELSE'S SCREEN"}})
	v := view(m)
	if !strings.Contains(v, "│ compiling the world") || strings.Contains(v, "SOMEONE ELSE") {
		t.Errorf("the detail does not show the selected member's pane:\n%s", v)
	}
	// The feed is told at once, in order, not by commands that the program
	// runs in any order: two quick moves leave it on the second member.
	m.Update(tea.KeyPressMsg{Code: 'k', Text: "k"})
	m.Update(tea.KeyPressMsg{Code: 'k', Text: "k"})
	if c := f.Calls(); c[len(c)-1] != "focus alpha %3" || c[len(c)-2] != "focus alpha %4" {
		t.Errorf("two moves up from lead told the feed %v, want focus %%4 then %%3", c)
	}
	press(t, m, "G") // asker, last now: its worktree and branch
	if v := view(m); !strings.Contains(v, "asker · pane %2 · branch teamctl/alpha/asker · worktree /src/.teamctl/worktrees/alpha/asker") {
		t.Errorf("the detail does not name asker's worktree and branch:\n%s", v)
	}
}

func TestEventsAreShownOneLineEachVisible(t *testing.T) {
	m := newModel(t, &fake{}, false)
	look(t, m, teamSnap())
	code := 1
	m.Update(EventsMsg{Team: "alpha", Events: []Event{
		{Time: t0, Member: "asker", Kind: "stall", Pattern: "yes-no", Line: "Overwrite?\x1b[2J (y/n)"},
		{Time: t0, Member: "web", Kind: "exit", ExitCode: &code},
		{Time: t0, Member: "perms", Kind: "message", Detail: "line one\nline two\x07\u202e"},
		{Time: t0, Member: "asker", Kind: "answer", Keys: []string{"y", "Enter"}, Detail: "by a person (teamctl answer)"},
		{Time: t0, Member: "lead", Kind: "answer", Keys: []string{"4"}, Option: "4. No\x1b[2J", Detail: "by a person (teamctl answer)"},
	}})
	m.Update(EventsMsg{Team: "beta", Events: []Event{{Time: t0, Member: "x", Kind: "OTHER-TEAM"}}})
	v := view(m)
	for _, want := range []string{
		`asker stall "Overwrite?\x1b[2J (y/n)"`,
		"web exit exit 1",
		`perms message line one\nline two\a\u202e`,
		"asker answer y Enter by a person (teamctl answer)",
		`lead answer chose "4. No\x1b[2J", 4 by a person (teamctl answer)`,
	} {
		if !strings.Contains(v, want) {
			t.Errorf("feed lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "OTHER-TEAM") {
		t.Errorf("another team's events are shown:\n%s", v)
	}
	if strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Errorf("a control character reached the screen: %q", v)
	}
	// asker's own last events are in its detail too.
	if n := strings.Count(v, "answer y Enter by a person"); n != 2 {
		t.Errorf("asker's answer shows %d times, want in the feed and in its detail:\n%s", n, v)
	}
}

// TestADeadMembersLastLinesAreItsPreview: the detail of a member that ended
// shows the last lines its pane printed (status's last_lines), not its dead
// pane's blank screen, made visible.
func TestADeadMembersLastLinesAreItsPreview(t *testing.T) {
	m := newModel(t, &fake{}, false)
	s := teamSnap()
	s.Members[4].LastLines = []string{"listening on :8080", "Error: listen EADDRINUSE :8080 \x1b[31m", "    at Server.listen"}
	look(t, m, s)
	press(t, m, "j", "j") // web, failed
	m.Update(ScreenMsg{Team: "alpha", Pane: "%4", Lines: []string{"", "", "", "Pane is dead (status 1, Fri May  1 12:00:00 2026)"}})
	v := view(m)
	for _, want := range []string{"│ listening on :8080", `│ Error: listen EADDRINUSE :8080 \x1b[31m`, "│     at Server.listen"} {
		if !strings.Contains(v, want) {
			t.Errorf("the detail of a failed member lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Pane is dead") || strings.ContainsAny(v, "\x1b") {
		t.Errorf("the detail shows the dead pane's screen, or a raw escape:\n%q", v)
	}
}

func TestScreenTextIsMadeVisible(t *testing.T) {
	m := newModel(t, &fake{}, false)
	s := teamSnap()
	s.Members[2].Stall.Line = "Delete \x1b]0;pwned\x07? (y/n)"
	look(t, m, s)
	m.Update(ScreenMsg{Team: "alpha", Pane: "%2", Lines: []string{"evil \x1b[31mred\x1b[0m \u202eend"}})
	v := view(m)
	if strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Errorf("a control character reached the screen: %q", v)
	}
	if !strings.Contains(v, `evil \x1b[31mred\x1b[0m \u202eend`) {
		t.Errorf("the pane's text is not shown made visible:\n%s", v)
	}
}

func TestColourOnlyWithColour(t *testing.T) {
	plain := newModel(t, &fake{}, false)
	look(t, plain, teamSnap())
	if v := view(plain); strings.Contains(v, "\x1b[") {
		t.Errorf("escape sequences without colour (NO_COLOR): %q", v)
	}
	color := newModel(t, &fake{}, true)
	look(t, color, teamSnap())
	v := view(color)
	if !strings.Contains(v, "\x1b[") {
		t.Errorf("no colour with colour on:\n%s", v)
	}
	if ansi.Strip(v) != view(plain) {
		t.Errorf("with colour the text differs:\n%s\nwithout:\n%s", ansi.Strip(v), view(plain))
	}
}

func TestFitsTheTerminalAndScrollsManyMembers(t *testing.T) {
	s := teamSnap()
	for i := range 35 {
		s.Members = append(s.Members, model.MemberStatus{Name: fmt.Sprintf("mate-%02d", i), Role: "teammate", Origin: "layout", Pane: fmt.Sprintf("%%%d", i+5), State: "running", StartedAt: t0})
	}
	for _, size := range [][2]int{{80, 24}, {120, 50}, {40, 10}} {
		m := newModel(t, &fake{}, true)
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		look(t, m, s)
		check := func(when string) {
			lines := strings.Split(view(m), "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d %s: %d lines", size[0], size[1], when, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d %s: a line of %d cells: %q", size[0], size[1], when, w, ansi.Strip(l))
				}
			}
			if !strings.Contains(ansi.Strip(view(m)), "> "+m.sel.name) {
				t.Errorf("%dx%d %s: the selected row (%s) is not on screen:\n%s", size[0], size[1], when, m.sel.name, ansi.Strip(view(m)))
			}
		}
		check("at the top")
		for range 30 {
			press(t, m, "j")
		}
		check("30 rows down")
		if m.sel.name != "mate-25" { // five before the mates
			t.Errorf("%dx%d: 30 rows down is %s", size[0], size[1], m.sel.name)
		}
		press(t, m, "G")
		check("at the end")
		if size[1] >= 14 && !strings.Contains(view(m), "of 40)") {
			t.Errorf("%dx%d: no word of the rows out of sight:\n%s", size[0], size[1], ansi.Strip(view(m)))
		}
	}
}

func TestBellWhenSomeoneStartsWaiting(t *testing.T) {
	rang := func(out []tea.Msg) []string {
		var r []string
		for _, o := range out {
			if raw, ok := o.(tea.RawMsg); ok {
				r = append(r, fmt.Sprint(raw.Msg))
			}
		}
		return r
	}
	m := newModel(t, &fake{}, false)
	if r := rang(look(t, m, teamSnap())); len(r) != 0 {
		t.Errorf("rang for those already waiting when top started: %q", r)
	}
	s := teamSnap()
	s.Members[0].State = "stalled"
	s.Members[0].Stall = &model.Stall{Line: "Continue?", Since: t0}
	if r := rang(look(t, m, s)); !slices.Equal(r, []string{"\a"}) {
		t.Errorf("a new waiter rang %q, want BEL", r)
	}
	if r := rang(look(t, m, s)); len(r) != 0 {
		t.Errorf("the same waiter rang again: %q", r)
	}
	press(t, m, "b")
	s.Members[1].State = "stalled"
	s.Members[1].Stall = &model.Stall{Line: "Continue?", Since: t0}
	if r := rang(look(t, m, s)); len(r) != 0 {
		t.Errorf("rang with the bell off: %q", r)
	}
	if !strings.Contains(view(m), "bell off") {
		t.Errorf("the bell's state is not shown:\n%s", view(m))
	}
	// OSC 9 where the terminal shows notifications: who, and on what, made visible.
	of := &fake{}
	o := New(Options{Team: "alpha", Backend: of, Feed: of, Bell: true, Notify: "osc9", Now: func() time.Time { return t0 }})
	start(t, o, of)
	look(t, o, teamSnap())
	s = teamSnap()
	s.Members[0].State = "stalled"
	s.Members[0].Stall = &model.Stall{Line: "Go on\x07\x1b\\?", Since: t0}
	r := rang(look(t, o, s))
	if want := ansi.Notify(`teamctl alpha: lead waits: "Go on\a\x1b\\?"`); !slices.Equal(r, []string{want}) {
		t.Errorf("OSC 9: %q, want %q", r, want)
	}
}

func TestTabFollowsTheNextTeam(t *testing.T) {
	f := &fake{teams: []string{"alpha", "beta"}}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	press(t, m, "tab")
	if c := f.Calls(); !slices.Contains(c, "follow beta") {
		t.Fatalf("tab did not follow beta: %v", c)
	}
	look(t, m, teamSnap()) // a late look at alpha
	if v := view(m); !strings.Contains(v, "team beta (2 of 2 up") || strings.Contains(v, "asker") {
		t.Errorf("after tab:\n%s", v)
	}
	f.teams = []string{"beta"}
	press(t, m, "tab")
	if v := view(m); !strings.Contains(v, "no other team is up") {
		t.Errorf("tab with one team up:\n%s", v)
	}
}

func TestHelpAndQuit(t *testing.T) {
	m := newModel(t, &fake{}, false)
	look(t, m, teamSnap())
	press(t, m, "?")
	v := view(m)
	for _, k := range []string{"y / n", "enter", "approve", "deny", "send", "attach", "restart", "tab", "bell", "q "} {
		if !strings.Contains(v, k) {
			t.Errorf("help lacks %q:\n%s", k, v)
		}
	}
	press(t, m, "x")
	if strings.Contains(view(m), "y / n") {
		t.Errorf("a key did not close the help")
	}
	out := press(t, m, "q")
	if len(out) != 1 || out[0] != (tea.QuitMsg{}) {
		t.Errorf("q: %#v", out)
	}
}

func TestATeamThatCannotBeLookedAt(t *testing.T) {
	m := newModel(t, &fake{}, false)
	look(t, m, teamSnap())
	m.Update(StatusMsg{Team: "alpha", Err: errors.New("state.json: \x1b[2J bad")})
	v := view(m)
	if !strings.Contains(v, `cannot look at team alpha: state.json: \x1b[2J bad`) || !strings.Contains(v, "asker") {
		t.Errorf("the error with the last look:\n%s", v)
	}
	s := teamSnap()
	now := t0
	s.StoppedAt = &now
	look(t, m, s)
	if v := view(m); !strings.Contains(v, "DOWN since") {
		t.Errorf("a team down:\n%s", v)
	}
}

// twoTeams are the looks at two teams up: alpha with a teammate waiting 5s
// for approval, and beta, whose tester has been stalled for 20s — longer —
// in pane %2, as alpha's perms' pane is called in alpha's server.
func twoTeams() (alpha, beta *Snapshot) {
	code := 1
	alpha = &Snapshot{Status: &model.Status{Team: "alpha", Supervisor: model.SupervisorStatus{Running: true, PID: 9}, Members: []model.MemberStatus{
		{Name: "lead", Role: "lead", Origin: "layout", Pane: "%0", State: "running", StartedAt: t0.Add(-3 * time.Minute)},
		{Name: "web", Role: "process", Origin: "layout", Pane: "%1", State: "failed", ExitCode: &code, Reason: "exited 6 times"},
		{Name: "perms", Role: "teammate", Origin: "layout", Pane: "%2", State: "waiting-approval",
			Request: &Request{ID: "perm-1", Tool: "Bash", Input: `{"command":"rm -rf build"}`, Since: t0.Add(-5 * time.Second)}},
	}}}
	beta = &Snapshot{Status: &model.Status{Team: "beta", Supervisor: model.SupervisorStatus{Running: true, PID: 10}, Members: []model.MemberStatus{
		{Name: "lead", Role: "lead", Origin: "layout", Pane: "%0", State: "idle", Since: t0.Add(-time.Minute)},
		{Name: "tester", Role: "teammate", Origin: "layout", Pane: "%2", State: "stalled",
			Stall: &model.Stall{Pattern: "yes-no", Line: "Delete the fixtures? (y/n)", Since: t0.Add(-20 * time.Second)}},
	}}, Worktrees: map[string]Worktree{"tester": {Path: "/src/.teamctl/worktrees/beta/tester", Branch: "teamctl/beta/tester"}}}
	return alpha, beta
}

func allModel(t *testing.T, f *fake) *Model {
	t.Helper()
	f.teams = []string{"alpha", "beta"}
	m := New(Options{All: true, Teams: f.teams, Backend: f, Feed: f, Bell: true, Now: func() time.Time { return t0 }})
	start(t, m, f)
	return m
}

// lastFollow is what the feed was last told to follow.
func lastFollow(f *fake) string {
	c := f.Calls()
	for i := len(c) - 1; i >= 0; i-- {
		if strings.HasPrefix(c[i], "follow") {
			return c[i]
		}
	}
	return ""
}

func acts(f *fake) []string {
	var out []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "focus") && !strings.HasPrefix(c, "follow") {
			out = append(out, c)
		}
	}
	return out
}

// The all-teams view: every member of both teams in one list with its team;
// whoever waits for a person first across teams (beta's tester, stalled
// longest, above alpha's perms), then the rest team by team as one team's
// view orders them.
func TestAllTeamsViewPutsWhoeverWaitsFirstAcrossTeams(t *testing.T) {
	f := &fake{}
	m := allModel(t, f)
	if c := f.Calls(); !slices.Contains(c, "follow alpha,beta +others") {
		t.Fatalf("the feed does not follow both teams (and watch for others): %v", c)
	}
	alpha, beta := twoTeams()
	look(t, m, alpha)
	look(t, m, beta)
	got := rows(m)
	want := []struct{ team, name, rest string }{
		{"beta", "tester", `stalled +20s +0 "Delete the fixtures\? \(y/n\)"`},
		{"alpha", "perms", `waiting-approval +5s +0 Bash: rm -rf build`},
		{"alpha", "web", `failed`},
		{"alpha", "lead", `working +3m`},
		{"beta", "lead", `idle +1m`},
	}
	if len(got) != len(want) {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !regexp.MustCompile(`^[> ] ` + w.team + ` +` + w.name + ` .*` + w.rest).MatchString(got[i]) {
			t.Errorf("row %d = %q, want %s %s then %s", i, got[i], w.team, w.name, w.rest)
		}
	}
	if !strings.HasPrefix(got[0], "> beta") {
		t.Errorf("beta's tester, first, is not selected: %q", got[0])
	}
	v := view(m)
	if !strings.Contains(v, "  TEAM  MEMBER") || !strings.Contains(v, "all teams (2 up)") || !strings.Contains(v, "2 waiting for you") {
		t.Errorf("the all view's title or header:\n%s", v)
	}
	// The detail is tester's, in beta: its worktree and its pane, not
	// alpha's pane of the same id.
	if c := f.Calls(); c[len(c)-1] != "focus beta %2" {
		t.Errorf("the feed was last told %q, want focus beta %%2", c[len(c)-1])
	}
	m.Update(ScreenMsg{Team: "alpha", Pane: "%2", Lines: []string{"ALPHA'S PERMS SCREEN"}})
	m.Update(ScreenMsg{Team: "beta", Pane: "%2", Lines: []string{"BETA'S TESTER SCREEN"}})
	v = view(m)
	if !strings.Contains(v, "│ BETA'S TESTER SCREEN") || strings.Contains(v, "ALPHA'S") {
		t.Errorf("the detail does not show beta's pane %%2:\n%s", v)
	}
	if !strings.Contains(v, "beta/tester · pane %2 · branch teamctl/beta/tester") {
		t.Errorf("the detail does not name the member with its team:\n%s", v)
	}
	// The teams' events, one list in time order, each with its team.
	m.Update(EventsMsg{Team: "beta", Events: []Event{{Time: t0.Add(-20 * time.Second), Member: "tester", Kind: "stall", Line: "Delete the fixtures? (y/n)"}}})
	m.Update(EventsMsg{Team: "alpha", Events: []Event{{Time: t0.Add(-30 * time.Second), Member: "web", Kind: "exit"}}})
	v = view(m)
	if i, j := strings.Index(v, "alpha/web exit"), strings.Index(v, "beta/tester stall"); i < 0 || j < 0 || i > j {
		t.Errorf("the events are not both teams' in time order:\n%s", v)
	}
}

// An action on a member of another team than the first acts on its own team.
func TestAllTeamsViewActsOnTheMembersOwnTeam(t *testing.T) {
	f := &fake{}
	m := allModel(t, f)
	alpha, beta := twoTeams()
	look(t, m, alpha)
	look(t, m, beta)
	press(t, m, "y") // beta's tester, first
	press(t, m, "j") // alpha's perms
	press(t, m, "a")
	press(t, m, "G") // beta's lead
	press(t, m, "s")
	typeText(t, m, "hello")
	press(t, m, "enter")
	press(t, m, "r", "y")
	out := press(t, m, "t")
	want := []string{
		"answer beta tester y",
		"approve alpha perms",
		`send beta lead "hello"`,
		"restart beta lead",
		"attach beta lead",
	}
	if got := acts(f); !slices.Equal(got, want) {
		t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(out) != 1 || !strings.Contains(fmt.Sprintf("%T", out[0]), "execMsg") {
		t.Errorf("t did not suspend the program to attach: %#v", out)
	}
	if v := view(m); !strings.Contains(v, "attached to beta/lead") {
		t.Errorf("the status line does not name the member with its team:\n%s", v)
	}
}

// v shows the selected member's team alone, and all teams again; tab goes
// through all teams and each team in turn.
func TestKeysSwitchBetweenAllTeamsAndOne(t *testing.T) {
	f := &fake{}
	m := allModel(t, f)
	alpha, beta := twoTeams()
	look(t, m, alpha)
	look(t, m, beta)
	if v := view(m); !strings.Contains(v, "v one team") || !strings.Contains(v, "tab team") {
		t.Errorf("the footer does not say which key shows one team:\n%s", v)
	}
	press(t, m, "v") // tester is selected: beta alone
	if c := lastFollow(f); c != "follow beta" {
		t.Errorf("v did not follow beta alone: %s", c)
	}
	v := view(m)
	if !strings.Contains(v, "team beta (2 of 2 up") || strings.Contains(v, "perms") || strings.Contains(v, "TEAM") {
		t.Errorf("after v, not beta alone:\n%s", v)
	}
	if got := rows(m); len(got) != 2 || !strings.HasPrefix(got[0], "> tester ") {
		t.Errorf("after v, the selection did not stay on tester:\n%s", strings.Join(got, "\n"))
	}
	look(t, m, alpha) // a late look at alpha
	if strings.Contains(view(m), "perms") {
		t.Errorf("a team not shown is shown:\n%s", view(m))
	}
	if !strings.Contains(view(m), "v all teams") {
		t.Errorf("the footer does not say which key shows all teams:\n%s", view(m))
	}
	press(t, m, "v")
	if c := lastFollow(f); c != "follow alpha,beta +others" {
		t.Errorf("v did not follow both teams again: %s", c)
	}
	look(t, m, alpha)
	if got := rows(m); len(got) != 5 || !regexp.MustCompile(`^> beta +tester `).MatchString(got[0]) {
		t.Errorf("back in the all view:\n%s", strings.Join(got, "\n"))
	}
	// tab: all → alpha → beta → all.
	for _, want := range []string{"team alpha (1 of 2 up", "team beta (2 of 2 up", "all teams (2 up)"} {
		press(t, m, "tab")
		if v := view(m); !strings.Contains(v, want) {
			t.Errorf("tab: want %q:\n%s", want, v)
		}
	}
	press(t, m, "?")
	if v := view(m); !regexp.MustCompile(`(?m)^  v +all teams in one list`).MatchString(v) {
		t.Errorf("the help does not say what v does:\n%s", v)
	}
}

// In the all view, teams coming up and going down appear and disappear: the
// feed's word that they may have changed lists them again, and so does a
// team found down.
func TestAllTeamsViewFollowsTeamsComingAndGoing(t *testing.T) {
	f := &fake{}
	m := allModel(t, f)
	alpha, beta := twoTeams()
	look(t, m, alpha)
	look(t, m, beta)
	f.teams = []string{"alpha", "beta", "gamma"}
	_, cmd := m.Update(TeamsChangedMsg{})
	do(t, m, cmd)
	if c := lastFollow(f); c != "follow alpha,beta,gamma +others" {
		t.Errorf("a team come up is not followed: %s", c)
	}
	gamma := &Snapshot{Status: &model.Status{Team: "gamma", Supervisor: model.SupervisorStatus{Running: true}, Members: []model.MemberStatus{
		{Name: "solo", Role: "lead", Origin: "layout", Pane: "%0", State: "running", StartedAt: t0},
	}}}
	look(t, m, gamma)
	if v := view(m); !regexp.MustCompile(`gamma +solo`).MatchString(v) || !strings.Contains(v, "all teams (3 up)") {
		t.Errorf("gamma is not shown:\n%s", v)
	}
	// beta goes down.
	f.teams = []string{"alpha", "gamma"}
	down := t0
	_, beta = twoTeams() // a new look, as the feed takes
	beta.StoppedAt = &down
	for i := range beta.Members {
		beta.Members[i].State, beta.Members[i].Stall = "exited", nil
	}
	look(t, m, beta)
	if c := lastFollow(f); c != "follow alpha,gamma +others" {
		t.Errorf("a team gone down is still followed: %s", c)
	}
	if v := view(m); strings.Contains(v, "tester") || !strings.Contains(v, "all teams (2 up)") {
		t.Errorf("beta is still shown:\n%s", v)
	}
	// Outside the all view the teams are not listed on the feed's word.
	press(t, m, "v")
	if _, cmd := m.Update(TeamsChangedMsg{}); cmd != nil {
		t.Errorf("one team's view lists the teams on the feed's word")
	}
}

// The bell rings for a newcomer in any team shown, not for those already
// waiting when a team is first seen.
func TestAllTeamsViewRingsForAnyTeam(t *testing.T) {
	m := allModel(t, &fake{})
	alpha, beta := twoTeams()
	for _, s := range []*Snapshot{alpha, beta} {
		for _, o := range look(t, m, s) {
			if _, ok := o.(tea.RawMsg); ok {
				t.Errorf("rang for one already waiting when %s was first seen", s.Team)
			}
		}
	}
	_, beta = twoTeams()
	beta.Members[0].State, beta.Members[0].Stall = "stalled", &model.Stall{Line: "Continue?", Since: t0}
	if out := look(t, m, beta); len(out) != 1 || fmt.Sprint(out[0].(tea.RawMsg).Msg) != "\a" {
		t.Errorf("beta's lead newly waiting did not ring: %#v", out)
	}
}

// A plain process running is "running", as status says, not "working" (a
// Claude Code word, as against idle); and a key refused says so.
func TestAProcessRunningIsRunningNotWorking(t *testing.T) {
	m := newModel(t, &fake{}, false)
	s := teamSnap()
	s.Members[4].State, s.Members[4].ExitCode, s.Members[4].Reason = "running", nil, ""
	s.Members[4].StartedAt = t0.Add(-time.Minute)
	look(t, m, s)
	var web, lead string
	for _, r := range rows(m) {
		switch {
		case strings.Contains(r, " web "):
			web = r
		case strings.Contains(r, " lead "):
			lead = r
		}
	}
	if !regexp.MustCompile(`process +running +1m`).MatchString(web) {
		t.Errorf("a running process reads %q, want running", web)
	}
	if !regexp.MustCompile(`lead +working +3m`).MatchString(lead) {
		t.Errorf("a running lead reads %q, want working", lead)
	}
	press(t, m, "G", "y")
	if v := view(m); !strings.Contains(v, "web is running, not stalled") {
		t.Errorf("the refusal does not say running:\n%s", v)
	}
}

// screenLines is a screen captured from the real Claude Code (stallwatch's
// testdata), as the feed hands it over: capture-pane's lines.
func screenLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "stallwatch", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// dialogSnap is a team whose lead waits at a permission dialog, a teammate at
// a plan approval and another at the trust dialog, the longest first.
func dialogSnap() *Snapshot {
	stall := func(pattern, line string, ago time.Duration) *model.Stall {
		return &model.Stall{Pattern: pattern, Line: line, Since: t0.Add(-ago)}
	}
	return &Snapshot{Status: &model.Status{Team: "alpha", Supervisor: model.SupervisorStatus{Running: true, PID: 9}, Members: []model.MemberStatus{
		{Name: "lead", Role: "lead", Origin: "layout", Pane: "%0", State: "stalled", Stall: stall("claude-permission", "Do you want to proceed?", 30*time.Second)},
		{Name: "planner", Role: "teammate", Origin: "layout", Pane: "%1", State: "stalled", Stall: stall("claude-plan", "Would you like to proceed?", 20*time.Second)},
		{Name: "newbie", Role: "teammate", Origin: "layout", Pane: "%2", State: "stalled", Stall: stall("claude-trust", "Quick safety check", 10*time.Second)},
		{Name: "worker", Role: "teammate", Origin: "layout", Pane: "%3", State: "running"},
	}}}
}

// TestDialogOptionsAndNumberKeys: a stalled member's Claude Code dialog shows
// its options, read from its screen as `teamctl answer` reads them; 1-9
// choose one, y and n only the option they plainly mean (which the person
// sees), enter the selected one; each answer carries the option the person
// saw, so that a dialog changed since is not answered.
func TestDialogOptionsAndNumberKeys(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	look(t, m, dialogSnap())
	acts := func() []string {
		var out []string
		for _, c := range f.Calls() {
			if strings.HasPrefix(c, "answer") {
				out = append(out, c)
			}
		}
		return out
	}

	// lead, first: the permission dialog of Claude Code 2.1.328. Until its
	// screen is in, y and n do not answer it blind.
	press(t, m, "n")
	if v := view(m); !strings.Contains(v, "lead waits at a Claude Code dialog whose options are not on screen (yet): t attaches") {
		t.Errorf("n answered a dialog whose options were not shown:\n%s", v)
	}
	m.Update(ScreenMsg{Team: "alpha", Pane: "%0", Lines: screenLines(t, "claude-permission.txt")})
	v := view(m)
	for _, want := range []string{
		`stalled at "Do you want to proceed?" (claude-permission)  (1-4 choose · y 1. Yes · n 4. No · enter 1. Yes · t attach)`,
		"  1. Yes · 2. Yes, and always allow acces… · 3. Yes, and switch to auto mod… · 4. No",
		"1-4 choose  y yes  n no",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	press(t, m, "4", "n", "y", "enter", "2")
	press(t, m, "7") // no such option
	if v := view(m); !strings.Contains(v, "lead's dialog has no option 7: 1. Yes · 2. Yes, and always allow acces…") {
		t.Errorf("no word of option 7:\n%s", v)
	}

	// planner: a plan approval has two kinds of yes and no No.
	press(t, m, "j")
	m.Update(ScreenMsg{Team: "alpha", Pane: "%1", Lines: screenLines(t, "claude-2.1.332-plan.txt")})
	press(t, m, "y")
	if v := view(m); !strings.Contains(v, "planner's dialog has no single plain yes: choose its option by number (1. Yes, and use auto mode · 2. Yes, manually approve edits · 3. Tell Claude what to chan…") {
		t.Errorf("a y with no plain yes is not refused with the options:\n%s", v)
	}
	press(t, m, "n")
	press(t, m, "2")

	// newbie: the trust dialog, unnumbered: choices by place, n its "No, exit".
	press(t, m, "j")
	m.Update(ScreenMsg{Team: "alpha", Pane: "%2", Lines: screenLines(t, "claude-trust.txt")})
	if v := view(m); !strings.Contains(v, "  1: No, exit · 2: Yes, I trust this folder") {
		t.Errorf("the trust dialog's options are not shown:\n%s", v)
	}
	press(t, m, "n", "2")

	// worker is not stalled: no number answers it.
	press(t, m, "j", "1")
	if v := view(m); !strings.Contains(v, "worker is working, not stalled: 1 chooses an option of a stalled member's dialog") {
		t.Errorf("a number for a working member is not refused:\n%s", v)
	}

	want := []string{
		"answer alpha lead 4 (4. No)",
		"answer alpha lead n (4. No)",
		"answer alpha lead y (1. Yes)",
		"answer alpha lead 1 (1. Yes)",
		"answer alpha lead 2 (2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project)",
		"answer alpha planner 2 (2. Yes, manually approve edits)",
		"answer alpha newbie n (No, exit)",
		"answer alpha newbie 2 (Yes, I trust this folder)",
	}
	if got := acts(); !slices.Equal(got, want) {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := view(m); strings.Contains(v, "planner n") {
		t.Errorf("n answered a plan approval, which has no No:\n%s", v)
	}
}

// TestConflictsAreMarked: two members whose work would conflict (the
// supervisor's radar) have a ! before their names, and the detail of either
// names the other and the files.
func TestConflictsAreMarked(t *testing.T) {
	m := newModel(t, &fake{}, false)
	s := teamSnap()
	s.Members[0].Conflicts = []model.MemberConflict{{With: "idler", Files: []string{"app.go", "a\x1bb.go"}}}
	s.Members[1].Conflicts = []model.MemberConflict{{With: "lead", Files: []string{"app.go", "a\x1bb.go"}}}
	look(t, m, s)
	for _, r := range rows(m) {
		conflicted := strings.HasPrefix(r[2:], "lead ") || strings.HasPrefix(r[2:], "idler ")
		if got := len(r) > 1 && r[1] == '!'; got != conflicted {
			t.Errorf("row %q: marked %v, want %v", r, got, conflicted)
		}
	}
	press(t, m, "j", "j", "j") // lead
	if v := view(m); !strings.Contains(v, `! its work would conflict with idler's in app.go, a\x1bb.go  (teamctl conflicts)`) {
		t.Errorf("the lead's detail does not name the conflict:\n%s", v)
	}
}

// changesOf is a team's changes as diff --stat reads them: asker's worktree
// with files files, +added −deleted; the root the others share, with a file
// of its own that is no one member's.
func changesOf(files, added, deleted int) *model.Changes {
	return &model.Changes{Team: "alpha", Work: []model.WorkChanges{
		{Member: "asker", Members: []string{"asker"}, Worktree: true, Files: make([]FileChange, files), Added: added, Deleted: deleted},
		{Members: []string{"lead", "idler", "perms", "web"}, Files: make([]FileChange, 1), Added: 7},
	}}
}

func (f *fake) Reads() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reads)
}

// The CHANGES column: each worktree's files and lines, read at the first look
// and again when a turn ends or the radar speaks — not on every look, tick or
// other event; the shared root is no member's.
func TestChangesColumnIsReadAfterTurnsNotPerFrame(t *testing.T) {
	f := &fake{changes: map[string]*model.Changes{"alpha": changesOf(3, 40, 2)}}
	m := newModel(t, f, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	look(t, m, teamSnap())
	if r := f.Reads(); !slices.Equal(r, []string{"alpha"}) {
		t.Fatalf("reads at the first look: %v", r)
	}
	check := func(want string) {
		t.Helper()
		v := view(m)
		if !strings.Contains(strings.Split(v, "\n")[1], "CHANGES") {
			t.Errorf("no CHANGES column:\n%s", v)
		}
		for _, r := range rows(m) {
			has := strings.Contains(r, want)
			if r[2:7] == "asker" && !has || r[2:7] != "asker" && strings.ContainsAny(r, "+−") && !strings.Contains(r, "Bash") {
				t.Errorf("row %q: want %q on asker's row alone", r, want)
			}
		}
		lines := strings.Split(v, "\n")
		if len(lines) != 24 {
			t.Errorf("80x24: %d lines", len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("80x24: a line of %d cells: %q", w, l)
			}
		}
	}
	check("3 +40 −2")
	f.mu.Lock()
	f.changes["alpha"] = changesOf(5, 41, 2)
	f.mu.Unlock()
	look(t, m, teamSnap())
	m.Update(tickMsg(t0))
	_, cmd := m.Update(EventsMsg{Team: "alpha", Events: []Event{{Time: t0, Kind: "working", Member: "asker"}}})
	do(t, m, cmd)
	if r := f.Reads(); len(r) != 1 {
		t.Errorf("read again on a look, a tick or a member starting work: %v", r)
	}
	for _, e := range []Event{{Time: t0, Kind: "idle", Member: "asker"}, {Time: t0, Kind: "conflict"}} {
		_, cmd := m.Update(EventsMsg{Team: "alpha", Events: []Event{e}})
		do(t, m, cmd)
	}
	if r := f.Reads(); len(r) != 3 {
		t.Errorf("not read after a turn ended and a conflict: %v", r)
	}
	check("5 +41 −2")

	// Asked while a read runs, it reads once more after it, not twice at once.
	_, first := m.Update(EventsMsg{Team: "alpha", Events: []Event{{Time: t0, Kind: "idle"}}})
	_, second := m.Update(EventsMsg{Team: "alpha", Events: []Event{{Time: t0, Kind: "exit"}}})
	if first == nil || second != nil {
		t.Fatalf("a second read while one runs: %v %v", first != nil, second != nil)
	}
	do(t, m, first)
	if r := f.Reads(); len(r) != 5 {
		t.Errorf("what was asked during the read was not read after it: %v", r)
	}
}

// A team whose members all work in its root shows no CHANGES column.
func TestNoChangesColumnWithoutWorktrees(t *testing.T) {
	f := &fake{changes: map[string]*model.Changes{"alpha": {Team: "alpha", Work: []model.WorkChanges{
		{Members: []string{"lead", "idler"}, Files: make([]FileChange, 2), Added: 3}}}}}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	if v := view(m); strings.Contains(v, "CHANGES") {
		t.Errorf("a CHANGES column with no worktree to count:\n%s", v)
	}
}

// c shows the selected member's diff through the pager (the UI suspended, as
// t does); m merges it once y confirms, says what landed or why not, and has
// the changes read again.
func TestDiffAndMergeKeys(t *testing.T) {
	f := &fake{changes: map[string]*model.Changes{"alpha": changesOf(3, 40, 2)}}
	m := newModel(t, f, false)
	look(t, m, teamSnap()) // asker, with a worktree, is selected
	if v := view(m); !strings.Contains(v, "c diff") || !strings.Contains(v, "m merge") {
		t.Errorf("the footer does not offer diff and merge:\n%s", v)
	}
	out := press(t, m, "c")
	if len(out) != 1 || !strings.Contains(fmt.Sprintf("%T", out[0]), "execMsg") {
		t.Errorf("c did not suspend the UI for the pager: %#v", out)
	}
	if a := acts(f); !slices.Equal(a, []string{"diff alpha asker"}) {
		t.Errorf("actions: %v", a)
	}
	if v := view(m); !strings.Contains(v, "showing asker's diff; quit the pager (q) to come back") {
		t.Errorf("the status line does not say how to come back:\n%s", v)
	}

	press(t, m, "m")
	if v := view(m); !strings.Contains(v, "merge asker's teamctl/alpha/asker into its base? y merges it") {
		t.Errorf("m does not ask first:\n%s", v)
	}
	press(t, m, "x")
	if v := view(m); !strings.Contains(v, "merge cancelled") || slices.ContainsFunc(acts(f), func(c string) bool { return strings.HasPrefix(c, "merge") }) {
		t.Errorf("merge not cancelled: %v\n%s", acts(f), v)
	}
	reads := len(f.Reads())
	press(t, m, "m", "y")
	if a := acts(f); a[len(a)-1] != "merge alpha asker" {
		t.Errorf("y did not merge asker: %v", a)
	}
	if v := view(m); !strings.Contains(v, "merged asker's teamctl/alpha/asker into main (2 commits)") {
		t.Errorf("the merge's outcome is not shown:\n%s", v)
	}
	if len(f.Reads()) != reads+1 {
		t.Errorf("the changes were not read again after the merge: %v", f.Reads())
	}

	f.merged = &model.MergeResult{Team: "alpha", Landed: []model.Landed{}, Refused: &model.Refusal{Member: "asker",
		Why: `merging teamctl/alpha/asker into main would conflict in "app.go" (contents): nothing was merged`}}
	press(t, m, "m", "y")
	if v := view(m); !strings.Contains(v, `merge of asker refused: merging teamctl/alpha/asker into main would conflict in "app.go"`) {
		t.Errorf("the refusal is not shown:\n%s", v)
	}

	press(t, m, "j", "j", "j") // lead: no worktree of its own
	calls := len(acts(f))
	press(t, m, "m")
	v := view(m)
	press(t, m, "y")
	if !strings.Contains(v, "lead has no worktree of its own") || len(acts(f)) != calls {
		t.Errorf("a member without a worktree was merged: %v\n%s", acts(f), v)
	}
}

// The help lists c and m and still fits 80×24, its footer on the last line.
func TestHelpFitsWithDiffAndMerge(t *testing.T) {
	m := newModel(t, &fake{}, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	look(t, m, teamSnap())
	press(t, m, "?")
	lines := strings.Split(view(m), "\n")
	if len(lines) != 24 || !strings.Contains(lines[23], "any key back") {
		t.Fatalf("help at 80x24: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	v := view(m)
	for _, k := range []string{"(teamctl diff M)", "(teamctl merge M)", "CHANGES", "q     this help / quit"} {
		if !strings.Contains(v, k) {
			t.Errorf("help lacks %q:\n%s", k, v)
		}
	}
}

// TestALimitedMemberSaysWhenItsLimitResets: top shows a limited member's
// state and its reset time (as Claude Code showed it, and how long until
// the end of that minute) in its row, and what said so in its detail.
func TestALimitedMemberSaysWhenItsLimitResets(t *testing.T) {
	m := newModel(t, &fake{}, false)
	s := teamSnap()
	s.Status.Members = append(s.Status.Members[:1], model.MemberStatus{Name: "capped", Role: "teammate", Origin: "layout", Pane: "%5", State: "limited", Since: t0.Add(-time.Minute),
		Limit: &model.Limit{Line: "✻ 5-hour limit reached · retrying in 4s (12:05pm) · attempt 2/10", Since: t0.Add(-time.Minute), Reset: t0.Add(5 * time.Minute), ResetShown: "12:05pm"}})
	look(t, m, s)
	var row string
	for _, r := range rows(m) {
		if strings.Contains(r, "capped") {
			row = r
		}
	}
	if !regexp.MustCompile(`capped .*limited .*resets 12:05pm \(in 6m0s\)`).MatchString(row) {
		t.Errorf("row %q", row)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if v := view(m); !strings.Contains(v, `limited: resets 12:05pm (in 6m0s)  ("✻ 5-hour limit reached`) {
		t.Errorf("detail does not say the limit:\n%s", v)
	}
}

// TestCursorStaysOnTheRowAfterAnAction: y on the first waiting member
// answers it; when it sorts lower, the cursor stays on the first row, now
// the next waiting member, so that the next key (a) goes to that one, not
// to the member answered. Moving the cursor ends that: a member selected by
// a move is followed as rows re-sort.
func TestCursorStaysOnTheRowAfterAnAction(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	look(t, m, teamSnap())
	press(t, m, "y")       // asker, first
	look(t, m, teamSnap()) // not answered yet: the cursor stays with it
	if got := rows(m); !strings.HasPrefix(got[0], "> asker") {
		t.Fatalf("before the answer shows, the cursor left asker:\n%s", strings.Join(got, "\n"))
	}
	s := teamSnap()
	s.Members[2].State, s.Members[2].Stall = "running", nil // asker answered: it sorts lower
	look(t, m, s)
	if got := rows(m); !strings.HasPrefix(got[0], "> perms") {
		t.Errorf("after the answer the cursor is not on the first row, the next waiting member:\n%s", strings.Join(got, "\n"))
	}
	press(t, m, "a")
	if c := f.Calls(); !slices.Contains(c, "approve alpha perms") {
		t.Errorf("a after y did not approve perms: %v\n%s", c, view(m))
	}
	// A move ends the hold: the member moved to is followed.
	press(t, m, "j", "j")  // lead
	look(t, m, teamSnap()) // asker stalled again, first: rows shift down one
	if got := rows(m); !slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, "> lead") }) {
		t.Errorf("a member picked by moving is not followed:\n%s", strings.Join(got, "\n"))
	}
}

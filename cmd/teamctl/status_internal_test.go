package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// statusHeadings are the status table's columns, in order.
var statusHeadings = []string{"MEMBER", "ROLE", "PANE", "PID", "STATE", "UPTIME", "CWD", "DETAIL"}

// tableStarts returns the visible column at which each heading starts on
// the heading line of a status table in out, and the table's lines (escapes
// stripped), heading first.
func tableStarts(t *testing.T, out string) ([]int, []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(ansi.Strip(out), "\n"), "\n")
	for i, ln := range lines {
		if !strings.HasPrefix(ln, "MEMBER ") {
			continue
		}
		var starts []int
		for _, h := range statusHeadings {
			at := strings.Index(ln, h)
			if at < 0 {
				t.Fatalf("no heading %s in %q", h, ln)
			}
			starts = append(starts, ansi.StringWidth(ln[:at]))
		}
		return starts, lines[i:]
	}
	t.Fatalf("no status table in:\n%s", out)
	return nil, nil
}

// checkAligned checks that on every line of a status table each column's
// value starts where its heading does: the two columns before it are blank and
// the one there is not. Empty cells (DETAIL) are skipped.
func checkAligned(t *testing.T, out string, starts []int, lines []string) {
	t.Helper()
	for n, ln := range lines[1:] {
		w := ansi.StringWidth(ln)
		for i, at := range starts {
			if at >= w {
				continue // an empty last cell
			}
			if ansi.Cut(ln, at-2, at) != "  " && i > 0 || ansi.Cut(ln, at, at+1) == " " {
				t.Errorf("row %d: column %s does not start at %d: %q\n%s", n+1, statusHeadings[i], at, ansi.Cut(ln, max(0, at-2), w), out)
			}
		}
	}
}

func testStatus(cwd string) *team.Status {
	now := time.Now()
	code := 3
	return &team.Status{Team: "wide", Socket: "teamctl-wide", Supervisor: team.SupervisorStatus{Running: true, PID: 42},
		Members: []team.MemberStatus{
			{Name: "lead", Role: "lead", Pane: "%0", PID: 100, State: state.StateRunning, Cwd: cwd, StartedAt: now.Add(-time.Minute)},
			{Name: "研究者", Role: "teammate", Pane: "%1", PID: 101, State: state.StateStalled, Cwd: cwd, StartedAt: now.Add(-time.Minute),
				Stall: &team.Stall{Line: "上書きしますか？ (y/n) 🦀", Since: now.Add(-5 * time.Second)}},
			{Name: "web🦀", Role: "process", Pane: "%12", PID: 1234567, State: state.StateExited, ExitCode: &code, Cwd: "/srv", Restarts: 2},
			{Name: "asker", Role: "teammate", Pane: "%3", PID: 103, State: state.StateWaitingApproval, Cwd: cwd, StartedAt: now.Add(-time.Hour),
				Request: &state.Request{Tool: "Bash", Input: `{"command":"go test ./... -run TestEverythingThatThereIsToRunInThisRepository"}`, Since: now}},
		}}
}

// TestStatusColumnsAlignWithColour: with colour on, every column of status
// starts at the same visible offset on every line, whatever the escape codes
// around STATE and the wide runes in names and lines.
func TestStatusColumnsAlignWithColour(t *testing.T) {
	var out bytes.Buffer
	io := iostreams.Terminal(strings.NewReader(""), &out, &out, 0, true)
	got := renderStatus(io, testStatus("/src/app"), time.Now())
	if !strings.Contains(got, "\x1b[31mstalled\x1b[0m") || !strings.Contains(got, "\x1b[32mworking\x1b[0m") {
		t.Fatalf("no colour:\n%q", got)
	}
	starts, lines := tableStarts(t, got)
	if len(lines) != 5 {
		t.Fatalf("%d table lines:\n%s", len(lines), got)
	}
	checkAligned(t, got, starts, lines)
	if !strings.Contains(got, "TestEverythingThatThereIsToRunInThisRepository") {
		t.Errorf("a terminal of unknown width cut a value:\n%s", got)
	}
}

// TestStatusFitsEightyColumns: on an 80-column terminal a long cwd shows as
// ~/…/last, DETAIL is cut with "…", no line is wider than 80 and the columns
// still line up; piped, every value is whole.
func TestStatusFitsEightyColumns(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	cwd := "/home/ann/src/a-rather-long-folder-name/and-another-long-one/services/auth-api"
	st := testStatus(cwd)

	var out bytes.Buffer
	got := renderStatus(iostreams.Terminal(strings.NewReader(""), &out, &out, 80, true), st, time.Now())
	starts, lines := tableStarts(t, got)
	checkAligned(t, got, starts, lines)
	for _, ln := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if w := ansi.StringWidth(ln); w > 80 {
			t.Errorf("a line of %d columns: %q", w, ansi.Strip(ln))
		}
	}
	if !strings.Contains(got, "~/…/auth-api") || strings.Contains(got, "a-rather-long") {
		t.Errorf("the cwd is not shortened to ~/…/auth-api:\n%s", got)
	}
	if !strings.Contains(got, "…") || strings.Contains(got, "InThisRepository") {
		t.Errorf("the long detail is not cut:\n%s", got)
	}

	piped := renderStatus(iostreams.Test(strings.NewReader(""), &out, &out), st, time.Now())
	if !strings.Contains(piped, cwd) || !strings.Contains(piped, "TestEverythingThatThereIsToRunInThisRepository") || strings.Contains(piped, "\x1b[") {
		t.Errorf("piped, values are cut or coloured:\n%s", piped)
	}
	starts, lines = tableStarts(t, piped)
	checkAligned(t, piped, starts, lines)
}

// TestTerminalWidthFromColumns: a terminal whose size cannot be had is as
// wide as $COLUMNS says; output that is not a terminal has no limit.
func TestTerminalWidthFromColumns(t *testing.T) {
	t.Setenv("COLUMNS", "72")
	var out bytes.Buffer
	if w := iostreams.Terminal(strings.NewReader(""), &out, &out, 0, false).Width(); w != 72 {
		t.Errorf("width %d, want $COLUMNS", w)
	}
	if w := iostreams.Test(strings.NewReader(""), &out, &out).Width(); w != 0 {
		t.Errorf("piped width %d, want no limit", w)
	}
}

// TestLastLineCutsWholeCharacters: an ended member's last line, cut short in
// DETAIL, keeps an emoji ZWJ sequence whole or leaves it out, and says it was
// cut; it never shows a part of it (another emoji).
func TestLastLineCutsWholeCharacters(t *testing.T) {
	const family = "👨\u200d👩\u200d👧"
	for _, pad := range []int{50, 55, 57, 58, 59} {
		line := strings.Repeat("x", pad) + family + " and the rest of the line"
		got := lastLine(team.MemberStatus{State: state.StateExited, LastLines: []string{line}})
		if !strings.HasSuffix(got, `…"`) {
			t.Errorf("pad %d: %s does not end with \"…\"", pad, got)
		}
		if strings.Contains(got, "👨") && !strings.Contains(got, `👨\u200d👩\u200d👧`) {
			t.Errorf("pad %d: %s shows part of the family", pad, got)
		}
	}
}

// bufIO is streams for a run function's test: in as standard input, what is
// printed in out and errOut; not a terminal.
func bufIO(in string) (io *iostreams.IO, out, errOut *bytes.Buffer) {
	out, errOut = new(bytes.Buffer), new(bytes.Buffer)
	return iostreams.Test(strings.NewReader(in), out, errOut), out, errOut
}

// TestNewCmdStatus: argv becomes the options (--json, -w, --team), and
// nothing is done but the run function; -w with --json is a usage error.
func TestNewCmdStatus(t *testing.T) {
	for _, c := range []struct {
		args        []string
		json, watch bool
		team        string
		err         string
	}{
		{args: nil},
		{args: []string{"--json", "--team", "auth-fix"}, json: true, team: "auth-fix"},
		{args: []string{"-w"}, watch: true},
		{args: []string{"--watch", "--json"}, err: "--watch and --json do not go together"},
		{args: []string{"extra"}, err: `unknown command "extra" for "status"`},
	} {
		var got *statusOptions
		g := &globals{}
		ios, _, _ := bufIO("")
		cmd := newStatusCmd(ios, g, func(_ context.Context, o *statusOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || err.Error() != c.err || got != nil {
				t.Errorf("%q: error %v, run %v; want the error %q", c.args, err, got != nil, c.err)
			}
			continue
		}
		if err != nil || got == nil || got.JSON != c.json || got.Watch != c.watch || g.team != c.team {
			t.Errorf("%q: %v, options %+v, team %q", c.args, err, got, g.team)
		}
	}
}

// fakeStatuser is a team whose status is st.
type fakeStatuser struct {
	st     *team.Status
	err    error
	looked int
}

func (f *fakeStatuser) Status(context.Context) (*team.Status, error) {
	f.looked++
	return f.st, f.err
}

// TestStatusRun: the team's status as its table, or as JSON; with -w the
// watch alone; an error is the team's, with nothing printed.
func TestStatusRun(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	code := 1
	st := &team.Status{Team: "auth", Socket: "teamctl-auth", Supervisor: team.SupervisorStatus{Running: true, PID: 42},
		Members: []team.MemberStatus{
			{Name: "lead", Role: "lead", Pane: "%0", PID: 100, State: state.StateRunning, Cwd: "/src", StartedAt: now.Add(-90 * time.Second)},
			{Name: "web", Role: "process", Pane: "%1", PID: 101, State: state.StateExited, ExitCode: &code, Cwd: "/srv", Restarts: 1},
		}}
	table := "team auth (tmux -L teamctl-auth), supervisor pid 42\n" +
		"MEMBER  ROLE     PANE  PID  STATE       UPTIME  CWD   DETAIL\n" +
		"lead    lead     %0    100  working     1m30s   /src\n" +
		"web     process  %1    101  exited (1)  -       /srv  (1 restart)\n"
	for _, c := range []struct {
		name        string
		json, watch bool
		team        *fakeStatuser
		out         string
		err         string
		looked      int
	}{
		{name: "the table", team: &fakeStatuser{st: st}, out: table, looked: 1},
		{name: "JSON", json: true, team: &fakeStatuser{st: &team.Status{Team: "auth", Members: []team.MemberStatus{}}}, out: "{\n  \"team\": \"auth\",", looked: 1},
		{name: "watch", watch: true, team: &fakeStatuser{st: st}, err: "followed"},
		{name: "the team's error", team: &fakeStatuser{err: errors.New("no server")}, err: "no server", looked: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, _ := bufIO("")
			followed := false
			err := statusRun(context.Background(), &statusOptions{IO: ios, JSON: c.json, Watch: c.watch, Now: func() time.Time { return now },
				Open:   func(context.Context) (statuser, error) { return c.team, nil },
				Follow: func(context.Context) error { followed = true; return errors.New("followed") },
			})
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if c.team.looked != c.looked || followed != c.watch {
				t.Errorf("looked %d times (want %d), followed %v", c.team.looked, c.looked, followed)
			}
			if got := out.String(); c.json && !strings.HasPrefix(got, c.out) || !c.json && got != c.out {
				t.Errorf("printed:\n%s\nwant:\n%s", got, c.out)
			}
		})
	}
}

// TestLimitedDetail: a limited member says when its limit resets (the time
// Claude Code showed, and how long until the end of that minute, or since),
// or that it was not shown, and what said so.
func TestLimitedDetail(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 3, 0, 0, time.UTC)
	line := "✻ 5-hour limit reached · retrying in 4s (9:05am) · attempt 2/10"
	for _, c := range []struct {
		limit team.Limit
		want  string
	}{
		{team.Limit{Line: line, Since: now.Add(-time.Minute), Reset: now.Add(2 * time.Minute), ResetShown: "9:05am"},
			`resets 9:05am (in 3m0s); "` + line + `" 1m0s ago`},
		{team.Limit{Line: line, Since: now.Add(-time.Hour), Reset: now.Add(-10 * time.Minute), ResetShown: "8:53am"},
			`reset 8:53am (9m0s ago); "` + line + `" 1h0m0s ago`},
		{team.Limit{Line: "● API Error: Request rejected (429)", Since: now},
			`reset time not shown; "● API Error: Request rejected (429)" 0s ago`},
	} {
		l := c.limit
		if got := memberDetail(team.MemberStatus{State: state.StateLimited, Limit: &l}, now); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

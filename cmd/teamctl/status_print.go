package main

import (
	"fmt"
	goio "io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// renderStatus is status's output: a line about the team, then the table, with
// durations as of now. Every value is made visible (textsafe): stall lines,
// requests and results come from the members' screens and messages.
func renderStatus(io *iostreams.IO, st *team.Status, now time.Time) string {
	var b strings.Builder
	team, socket := textsafe.Visible(st.Team), textsafe.Visible(st.Socket)
	switch {
	case st.StoppedAt != nil:
		fmt.Fprintf(&b, "team %s is down (since %s)\n", team, st.StoppedAt.Local().Format(time.DateTime))
	case st.Lost && st.LayoutProblem != "":
		// Not `teamctl up FILE` blindly: that file is not the one the team
		// was brought up from.
		fmt.Fprintf(&b, "team %s is down (lost%s): it was not brought down, but its tmux server is gone; %s: look at it, then `teamctl up %s` brings it back, every conversation resumed\n",
			team, lastSeen(st.LastSeen, now), textsafe.Visible(st.LayoutProblem), textsafe.Visible(st.Layout))
	case st.Lost:
		fmt.Fprintf(&b, "team %s is down (lost%s): it was not brought down, but its tmux server is gone; `teamctl up %s` brings it back, every conversation resumed (`--fresh` starts it anew)\n",
			team, lastSeen(st.LastSeen, now), textsafe.Visible(st.Layout))
	case st.Supervisor.Running && st.Usage != nil && st.Usage.Turns > 0:
		fmt.Fprintf(&b, "team %s (tmux -L %s), supervisor pid %d, spent %s\n", team, socket, st.Supervisor.PID, st.Usage.CostText())
	case st.Supervisor.Running:
		fmt.Fprintf(&b, "team %s (tmux -L %s), supervisor pid %d\n", team, socket, st.Supervisor.PID)
	default:
		fmt.Fprintf(&b, "team %s (tmux -L %s), supervisor NOT running: `teamctl supervise --team %s` or `teamctl up` starts it\n", team, socket, team)
	}
	writeStatusTable(&b, io, st, now)
	return b.String()
}

func printStatusTable(io *iostreams.IO, st *team.Status) {
	writeStatusTable(io.Out, io, st, time.Now())
}

// writeStatusTable writes the members' table to w, with uptimes and ages as of
// now. Its columns line up by what a terminal shows (the coloured STATE, wide
// names), and on a terminal it fits the width: CWD gives way first (home as
// ~, then ~/…/last), then DETAIL is cut with "…". Piped, every value is whole.
// COST is there once some member has spent something, as the supervisor
// read its transcripts.
func writeStatusTable(w goio.Writer, io *iostreams.IO, st *team.Status, now time.Time) {
	home, _ := os.UserHomeDir() // none: paths are only shortened, not with ~
	cols := []table.Column{
		{Title: "MEMBER"}, {Title: "ROLE"}, {Title: "PANE"}, {Title: "PID"}, {Title: "STATE"}, {Title: "UPTIME"},
		{Title: "CWD", Fit: table.Path(home)}, {Title: "DETAIL", Fit: table.Cut},
	}
	withCost := st.Usage != nil && st.Usage.Turns > 0
	if withCost {
		cols = slices.Insert(cols, 6, table.Column{Title: "COST"})
	}
	tb := table.New(cols...)
	v := textsafe.Visible
	for _, m := range st.Members {
		shown := m.State.Shown(m.Role, m.Agent)
		word, uptime := string(shown), "-"
		if !m.State.Ended() {
			uptime = now.Sub(m.StartedAt).Round(time.Second).String()
		}
		if m.ExitCode != nil {
			word = fmt.Sprintf("%s (%d)", shown, *m.ExitCode)
		}
		cells := []table.Cell{table.Text(v(m.Name)), table.Text(v(string(m.Role))), table.Text(v(m.Pane)), table.Text(strconv.Itoa(m.PID)),
			{Text: v(word), Style: stateColor(io, m.State)}, table.Text(uptime),
			table.Text(v(m.Cwd)), table.Text(v(memberDetail(m, now)))}
		if withCost {
			cells = slices.Insert(cells, 6, table.Text(v(memberCost(m))))
		}
		tb.Add(cells...)
	}
	fmt.Fprint(w, tb.Render(io.Width()))
}

// lastLineWidth bounds an ended member's last line in DETAIL, in columns.
const lastLineWidth = 60

// lastLine is what an ended member's pane showed last, quoted and cut short
// (status --json has its last lines whole).
func lastLine(m team.MemberStatus) string {
	if !m.State.Ended() || len(m.LastLines) == 0 {
		return ""
	}
	line := strings.TrimSpace(m.LastLines[len(m.LastLines)-1])
	// Cut between characters as the table cuts (an emoji sequence whole).
	line = table.Cut(line, lastLineWidth)
	return fmt.Sprintf("last: %q", line)
}

// memberDetail is what there is to say of a member beyond its state: what it
// waits on, why it failed, who spawned it, how often it was restarted.
func memberDetail(m team.MemberStatus, now time.Time) string {
	detail := ""
	switch {
	case m.Stall != nil:
		detail = fmt.Sprintf("%q %s ago", m.Stall.Line, now.Sub(m.Stall.Since).Round(time.Second))
	case m.Limit != nil:
		detail = fmt.Sprintf("%s; %q %s ago", m.Limit.ResetText(now), m.Limit.Line, now.Sub(m.Limit.Since).Round(time.Second))
	case m.Request != nil:
		detail = fmt.Sprintf("%s %s %s ago (teamctl approve|deny %s)", m.Request.Tool, m.Request.Input, now.Sub(m.Request.Since).Round(time.Second), m.Name)
	case m.Reason != "":
		detail = m.Reason
	case m.Origin == state.OriginLead:
		detail = "spawned by the lead"
	}
	if last := lastLine(m); last != "" {
		detail = strings.TrimPrefix(detail+"; "+last, "; ")
	}
	for _, c := range m.Conflicts {
		with := c.With
		if c.Base {
			with = "its base " + c.With
		}
		detail = strings.TrimPrefix(fmt.Sprintf("%s; conflicts with %s in %s", detail, with, strings.Join(c.Files, ", ")), "; ")
	}
	switch {
	case m.Restarts == 1:
		detail = strings.TrimSpace(detail + " (1 restart)")
	case m.Restarts > 1:
		detail = strings.TrimSpace(fmt.Sprintf("%s (%d restarts)", detail, m.Restarts))
	}
	return detail
}

// memberCost is a member's COST: "-" for a plain process.
func memberCost(m team.MemberStatus) string {
	if m.Role == state.RoleProcess {
		return "-"
	}
	return m.Usage.CostText()
}

// stateColor is the colour of a member's state: green running (working),
// red for what needs a look, yellow for waiting.
func stateColor(io *iostreams.IO, s state.MemberState) func(string) string {
	code := ""
	switch s {
	case state.StateRunning, state.StateWorking:
		code = "32"
	case state.StateExited, state.StateFailed, state.StateStalled, state.StateHeld:
		code = "31"
	case state.StateIdle, state.StateWaitingApproval, state.StateLimited:
		code = "33"
	default:
		return nil
	}
	return func(text string) string { return io.Color(code, text) }
}

// lastSeen says when a lost team was last seen alive, for "down (lost…)".
func lastSeen(at *time.Time, now time.Time) string {
	if at == nil {
		return ""
	}
	return fmt.Sprintf(": last seen %s, %s ago", at.Local().Format(time.DateTime), now.Sub(*at).Round(time.Second))
}

package main

import (
	"encoding/json"
	"fmt"
	goio "io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

func newStatusCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var asJSON, watch bool
	cmd := &cobra.Command{
		Use: "status",
		Example: `  teamctl status
  teamctl status -w
  teamctl status --json --team auth-fix`,
		Short: "Show every member of the team: pane, pid, state, uptime, folder",
		Long: `Show every member of the team: pane, pid, state, uptime, folder.

With --watch, redraw it whenever the team's state changes (and every second in
a terminal, so uptimes tick) until Ctrl-C. When the output is not a terminal,
each changed frame is printed after a blank line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if watch && asJSON {
				return usagef(cmd, "--watch and --json do not go together")
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			if watch {
				return watchStatus(cmd.Context(), io, t)
			}
			st, err := t.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(io, st)
			}
			fmt.Fprint(io.Out, renderStatus(io, st, time.Now()))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "redraw whenever the team's state changes, until Ctrl-C")
	return cmd
}

// renderStatus is status's output: a line about the team, then the table, with
// durations as of now. Every value is made visible (textsafe): stall lines,
// requests and results come from the members' screens and messages.
func renderStatus(io *iostreams.IO, st *team.Status, now time.Time) string {
	var b strings.Builder
	team, socket := textsafe.Visible(st.Team), textsafe.Visible(st.Socket)
	switch {
	case st.StoppedAt != nil:
		fmt.Fprintf(&b, "team %s is down (since %s)\n", team, st.StoppedAt.Local().Format(time.DateTime))
	case st.Lost:
		fmt.Fprintf(&b, "team %s is down (lost%s): it was not brought down, but its tmux server is gone; `teamctl up %s` brings it back, every conversation resumed (`--fresh` starts it anew)\n",
			team, lastSeen(st.LastSeen, now), textsafe.Visible(st.Layout))
	case st.Supervisor.Running:
		fmt.Fprintf(&b, "team %s (tmux -L %s), supervisor pid %d\n", team, socket, st.Supervisor.PID)
	default:
		fmt.Fprintf(&b, "team %s (tmux -L %s), supervisor NOT running: `teamctl supervise --team %s` or `teamctl up` starts it\n", team, socket, team)
	}
	writeStatusTable(&b, io, st, now)
	return b.String()
}

func writeJSON(io *iostreams.IO, v any) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printStatusTable(io *iostreams.IO, st *team.Status) {
	writeStatusTable(io.Out, io, st, time.Now())
}

// writeStatusTable writes the members' table to w, with uptimes and ages as of now.
func writeStatusTable(w goio.Writer, io *iostreams.IO, st *team.Status, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tROLE\tPANE\tPID\tSTATE\tUPTIME\tCWD\tDETAIL")
	for _, m := range st.Members {
		word, uptime := string(m.State), "-"
		if !m.State.Ended() {
			uptime = now.Sub(m.StartedAt).Round(time.Second).String()
		}
		if m.ExitCode != nil {
			word = fmt.Sprintf("%s (%d)", m.State, *m.ExitCode)
		}
		v := textsafe.Visible
		detail := ""
		switch {
		case m.Stall != nil:
			detail = fmt.Sprintf("%q %s ago", m.Stall.Line, now.Sub(m.Stall.Since).Round(time.Second))
		case m.Request != nil:
			detail = fmt.Sprintf("%s %s %s ago (teamctl approve|deny %s)", v(m.Request.Tool), v(m.Request.Input), now.Sub(m.Request.Since).Round(time.Second), v(m.Name))
		case m.Reason != "":
			detail = m.Reason
		case m.Origin == "lead":
			detail = "spawned by the lead"
		}
		if last := lastLine(m); last != "" {
			detail = strings.TrimPrefix(detail+"; "+last, "; ")
		}
		if m.Restarts > 0 {
			detail = strings.TrimSpace(fmt.Sprintf("%s (%d restarts)", detail, m.Restarts))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", v(m.Name), v(m.Role), v(m.Pane), m.PID, colorState(io, m.State, v(word)), uptime, v(m.Cwd), v(detail))
	}
	tw.Flush()
}

// lastLineWidth bounds an ended member's last line in DETAIL.
const lastLineWidth = 60

// lastLine is what an ended member's pane showed last, quoted and cut short
// (status --json has its last lines whole).
func lastLine(m team.MemberStatus) string {
	if !m.State.Ended() || len(m.LastLines) == 0 {
		return ""
	}
	line := strings.TrimSpace(m.LastLines[len(m.LastLines)-1])
	if r := []rune(line); len(r) > lastLineWidth {
		line = string(r[:lastLineWidth-1]) + "…"
	}
	return fmt.Sprintf("last: %q", line)
}

func colorState(io *iostreams.IO, s state.MemberState, text string) string {
	switch s {
	case state.StateRunning:
		return io.Color("32", text)
	case state.StateExited, state.StateFailed, state.StateStalled:
		return io.Color("31", text)
	case state.StateIdle, state.StateWaitingApproval:
		return io.Color("33", text)
	}
	return text
}

// lastSeen says when a lost team was last seen alive, for "down (lost…)".
func lastSeen(at *time.Time, now time.Time) string {
	if at == nil {
		return ""
	}
	return fmt.Sprintf(": last seen %s, %s ago", at.Local().Format(time.DateTime), now.Sub(*at).Round(time.Second))
}

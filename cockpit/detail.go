package cockpit

// The selected member's detail (what it waits on, its screen, its last
// events) and the events under it.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/state"
	teamview "github.com/teamctl/teamctl/team/view"

	"github.com/teamctl/teamctl/internal/textsafe"
)

func (m *Model) detailTitle() string {
	r := m.selected()
	if r == nil {
		return "detail"
	}
	parts := []string{m.who(r.key()), "pane " + textsafe.Visible(r.Pane)}
	if wt, ok := m.snaps[r.Team].Worktrees[r.Name]; ok {
		parts = append(parts, "branch "+textsafe.Visible(wt.Branch), "worktree "+textsafe.Visible(wt.Path))
	} else if r.Cwd != "" {
		parts = append(parts, "no worktree, in "+textsafe.Visible(r.Cwd))
	}
	return strings.Join(parts, " · ")
}

// detail is the selected member: what it waits on in full, the bottom of its
// pane (of one that ended, its last lines), its last events.
func (m *Model) detail(h int) []string {
	r := m.selected()
	if r == nil {
		return pad(nil, h)
	}
	var info []string
	switch {
	case r.State == state.StateWaitingApproval && r.Request != nil:
		q := r.Request
		target := teamview.RequestTarget(q.Tool, q.Input, q.Description)
		info = append(info, fmt.Sprintf("asks to run %s: %s  (a approve · d deny)", textsafe.Visible(q.Tool), textsafe.Visible(target)))
		if q.Description != "" && q.Description != target {
			info = append(info, "  "+textsafe.Visible(q.Description))
		}
	case r.State == state.StateStalled && r.Stall != nil:
		at := fmt.Sprintf("stalled at %s (%s)", textsafe.Visible(fmt.Sprintf("%q", r.Stall.Line)), textsafe.Visible(r.Stall.Pattern))
		d, ok := m.dialogOf(r)
		if !ok {
			info = append(info, at+"  (y/n answer · enter · t attach)")
			break
		}
		info = append(info, at+"  ("+strings.Join(dialogKeys(d), " · ")+" · t attach)")
		info = append(info, "  "+textsafe.Visible(d.Describe(optionWidth)))
	case r.State == state.StateFailed:
		info = append(info, "failed: "+textsafe.Visible(r.Reason))
	case r.State == state.StateLimited && r.Limit != nil:
		info = append(info, fmt.Sprintf("limited: %s  (%s)", textsafe.Visible(r.Limit.ResetText(m.o.Now())), textsafe.Visible(fmt.Sprintf("%q", r.Limit.Line))))
	case r.State == state.StateIdle && r.Result != "":
		info = append(info, "said: "+textsafe.Visible(r.Result))
	}
	for _, c := range r.Conflicts {
		with := textsafe.Visible(c.With) + "'s"
		if c.Base {
			with = "its base " + textsafe.Visible(c.With) + " as that moved on"
		}
		info = append(info, fmt.Sprintf("! its work would conflict with %s in %s  (teamctl conflicts)", with, textsafe.Visible(strings.Join(c.Files, ", "))))
	}
	var mine []Event
	for i := len(m.events) - 1; i >= 0 && len(mine) < 3; i-- {
		if m.events[i].Member == r.Name && m.events[i].Team == r.Team {
			mine = append(mine, m.events[i])
		}
	}
	slices.Reverse(mine)
	nev := min(len(mine), max(0, (h-len(info))/3))
	mine = mine[len(mine)-nev:]
	info = info[:min(len(info), h)]
	out := slices.Clone(info)
	for _, e := range mine {
		out = append(out, m.eventLine(e, false))
	}
	// The bottom of the pane, at the bottom of the section, as on its screen.
	screenH := max(0, h-len(out))
	screen := m.screen.Lines
	if m.screen.Team != r.Team || m.screen.Pane != r.Pane {
		screen = nil
	}
	if r.State.Ended() && len(r.LastLines) > 0 {
		// A dead pane shows little (a cleared screen, a relaunch's new pane
		// not up yet, tmux's "Pane is dead"): what it printed last says why.
		screen = r.LastLines
	}
	for len(screen) > 0 && strings.TrimSpace(screen[len(screen)-1]) == "" {
		screen = screen[:len(screen)-1]
	}
	if len(screen) > screenH {
		screen = screen[len(screen)-screenH:]
	}
	out = pad(out, h-len(screen))
	for _, l := range screen {
		out = append(out, m.st.render(m.st.faint, "│ ")+textsafe.Visible(l))
	}
	return out
}

// dialogKeys are the keys that answer dialog d: its numbers, y and n where
// they name an option, enter for the selected one.
func dialogKeys(d Dialog) []string {
	keys := []string{fmt.Sprintf("1-%d choose", min(9, len(d.Options)))}
	if o, ok := d.Yes(); ok {
		keys = append(keys, "y "+textsafe.Visible(o.String()))
	}
	if o, ok := d.No(); ok {
		keys = append(keys, "n "+textsafe.Visible(o.String()))
	}
	return append(keys, "enter "+textsafe.Visible(d.Options[d.Selected].String()))
}

func pad(lines []string, h int) []string {
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// feed is the team's latest events, newest last.
func (m *Model) feed(h int) []string {
	evs := m.events
	if len(evs) > h {
		evs = evs[len(evs)-h:]
	}
	var out []string
	for _, e := range evs {
		out = append(out, m.eventLine(e, true))
	}
	return pad(out, h)
}

// eventLine is one event on one line, every value made visible.
func (m *Model) eventLine(e Event, member bool) string {
	var parts []string
	if e.Line != "" {
		parts = append(parts, fmt.Sprintf("%q", e.Line))
	}
	if e.Option != "" {
		parts = append(parts, fmt.Sprintf("chose %q,", e.Option))
	}
	if len(e.Keys) > 0 {
		parts = append(parts, strings.Join(e.Keys, " "))
	}
	if e.Tool != "" && !strings.HasPrefix(e.Detail, e.Tool) {
		parts = append(parts, e.Tool)
	}
	if e.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *e.ExitCode))
	}
	if e.Signal != 0 {
		parts = append(parts, fmt.Sprintf("signal %d", e.Signal))
	}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	who := ""
	if member {
		who = textsafe.Visible(e.Member)
		switch {
		case m.all && who != "":
			who = textsafe.Visible(e.Team) + "/" + who
		case m.all:
			who = textsafe.Visible(e.Team)
		case who == "":
			who = "-"
		}
		who += " "
	}
	return m.st.render(m.st.faint, e.Time.Local().Format(time.TimeOnly)) + " " + who +
		m.st.render(m.st.key, textsafe.Visible(string(e.Kind))) + " " + textsafe.Visible(strings.Join(parts, " "))
}

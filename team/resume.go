package team

import (
	"fmt"

	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/state"
)

// resuming says, before a lost team is started again, what comes back and
// how: each Claude Code member resumes its conversation when Claude Code
// stored one, or starts afresh (said, never in the way of the rest); the
// teammates the lead had spawned are gone with the server and left to the
// lead, whose team config still lists them. Each is said in up's output and
// recorded as an event.
func (u *upRun) resuming(prev *state.Team, plan []launch.Launch) {
	ev, err := state.OpenEventLog(u.l.Team)
	if err != nil {
		u.note("the team's events cannot be written (%v); resuming all the same", err)
	}
	record := func(e state.Event) {
		if ev != nil {
			ev.Append(e)
		}
	}
	if ev != nil {
		defer ev.Close()
	}
	u.progress("resuming team %s: its tmux server is gone (`teamctl up --fresh` starts it anew)", u.l.Team)
	for _, x := range plan {
		kind := x.Member.OtherAgent()
		if x.SessionID == "" && kind == "" {
			continue // a plain process: started as it was
		}
		name := x.Member.Name
		session := x.SessionID
		if kind != "" {
			session = "its " + kind + " session" // its CLI's last, in its own home
		}
		if u.resumes(x) {
			u.res.Resumed = append(u.res.Resumed, name)
			u.progress("%-16s resumes its conversation (%s)", name, session)
			record(state.Event{Kind: state.EventResume, Member: name, Detail: "resumes its conversation " + session})
			continue
		}
		u.res.Afresh = append(u.res.Afresh, name)
		why := fmt.Sprintf("no conversation of session %s is stored (Claude Code keeps them in projects/); starts afresh", x.SessionID)
		if kind != "" {
			why = fmt.Sprintf("no %s session is stored in its home; starts afresh", kind)
		}
		u.note("%s: %s", name, why)
		record(state.Event{Kind: state.EventResume, Member: name, Detail: why})
	}
	for _, m := range prev.Members {
		if m.Origin != state.OriginLead {
			continue
		}
		u.res.Lost = append(u.res.Lost, m.Name)
		why := "spawned by the lead, gone with the team's server; the lead's to spawn again (its team config still lists it)"
		u.note("%s was %s", m.Name, why)
		record(state.Event{Kind: state.EventLost, Member: m.Name, Pane: m.Pane, Origin: state.OriginLead, Detail: why})
	}
}

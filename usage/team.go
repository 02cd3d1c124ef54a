package usage

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/state"
)

// Member is what one member spent.
type Member struct {
	Name     string       `json:"name"`
	Role     state.Role   `json:"role"`
	Origin   state.Origin `json:"origin,omitempty"`
	Agent    string       `json:"agent,omitempty"` // another vendor's agent CLI ("codex", "gemini"), read from its own records
	Sessions []string     `json:"sessions"`        // its Claude Code sessions, earlier lives' included
	Gone     bool         `json:"gone,omitempty"`  // no longer in the team's state; found by its transcripts
	Totals
}

// Report is what a team spent, member by member.
type Report struct {
	Team        string     `json:"team"`
	Up          bool       `json:"up"`
	Since       *time.Time `json:"since,omitempty"`
	PricesDate  string     `json:"prices_date"`
	PriceSource string     `json:"prices_source"`
	Members     []Member   `json:"members"`
	Total       Totals     `json:"total"`
	Notes       []string   `json:"notes,omitempty"` // what was wrong in the transcripts

	// PriceFileError is why the price file was not used (its mistakes, each
	// at line:col); "" when it was, or there is none.
	PriceFileError string `json:"price_file_error,omitempty"`
}

// Options are what ForTeam reports.
type Options struct {
	ClaudeDir string    // Claude Code's folder the team runs with
	Prices    *Table    // nil: the shipped table
	Since     time.Time // responses from then on; zero: all
	Members   []string  // only these members; none: all
}

// Sessions are the Claude Code sessions of a team's members (MemberSessions).
type Sessions struct {
	ByMember map[string][]string // by member name
	Gone     []string            // teammates found only by their transcripts (gone from the state), sorted
	// Refused are transcripts that name the lead (by its name or Claude
	// Code's, team-lead), a teammate teamctl launched with a session of its
	// own or a plain process, from a session teamctl did not record: not
	// counted for anyone.
	Refused []Refused
}

// Refused is a transcript whose usage is not counted, and why.
type Refused struct {
	Path, Session, Name string
}

func (r Refused) String() string {
	return fmt.Sprintf("%s says it is %q's, whose usage comes only from the sessions teamctl recorded (%s is none of them): ignored (what one member writes never counts for another)", r.Path, r.Name, r.Session)
}

// MemberSessions are the Claude Code sessions of each member of st, by
// name, and the names of teammates found only by their transcripts (gone
// from the state): the lead's session of every life of the team; a layout
// teammate's recorded session and the one teamctl derives for it in every
// life; and every session whose transcript says it is a teammate of one of
// the team's Claude Code teams (how a teammate the lead spawned is found).
// A transcript's teamName and agentName are what it says of itself, and any
// member can write one: found that way, a session counts only for a
// teammate the lead spawned (one teamctl did not launch with a session id
// of its own), or one gone from the state; one naming the lead or a layout
// teammate is Refused (their usage comes only from the sessions teamctl
// recorded).
func MemberSessions(st *state.Team, claudeDir string) (Sessions, error) {
	out := Sessions{ByMember: map[string][]string{}}
	recorded := map[string]bool{} // the sessions teamctl launched members with
	add := func(name, id string) {
		if claudecode.ValidSessionID(id) && !slices.Contains(out.ByMember[name], id) {
			out.ByMember[name] = append(out.ByMember[name], id)
		}
	}
	record := func(name, id string) {
		if claudecode.ValidSessionID(id) {
			recorded[id] = true
			add(name, id)
		}
	}
	lives := st.Lives()
	var teams []string
	for _, l := range lives {
		if l.ClaudeTeam != "" {
			teams = append(teams, l.ClaudeTeam)
		}
	}
	for _, m := range st.Members {
		switch m.Role {
		case state.RoleLead:
			for _, l := range lives {
				record(m.Name, l.LeadSessionID)
			}
			record(m.Name, m.SessionID)
		case state.RoleTeammate:
			record(m.Name, m.SessionID)
			if m.Origin != state.OriginLead {
				for _, l := range lives {
					if claudecode.ValidSessionID(l.LeadSessionID) {
						record(m.Name, claudecode.TeammateSessionID(l.LeadSessionID, m.Name))
					}
				}
			}
		}
	}
	found, err := transcript.FindTeammates(claudeDir, teams, st.CreatedAt.Add(-time.Minute))
	if err != nil {
		return out, err
	}
	for _, f := range found {
		if recorded[f.Session] {
			continue // a session teamctl launched: counted for its member already
		}
		m, ok := st.Member(f.Name)
		switch {
		case f.Name == claudecode.LeadMailboxName, ok && !SpawnedByLead(m):
			out.Refused = append(out.Refused, Refused{Path: f.Path, Session: f.Session, Name: f.Name})
			continue
		case !ok && !slices.Contains(out.Gone, f.Name):
			out.Gone = append(out.Gone, f.Name)
		}
		add(f.Name, f.Session)
	}
	sort.Strings(out.Gone)
	return out, nil
}

// SpawnedByLead reports whether m is a teammate the lead spawned itself,
// which teamctl did not launch with a session id of its own: the one kind
// of member whose sessions are found by what their transcripts say.
func SpawnedByLead(m *state.Member) bool {
	return m.Role == state.RoleTeammate && m.Origin == state.OriginLead && m.SessionID == ""
}

// ForTeam reads what the team of st spent, member by member; a team that is
// down is read the same way, from the sessions its state recorded.
func ForTeam(st *state.Team, o Options) (*Report, error) {
	if o.Prices == nil {
		o.Prices = Shipped()
	}
	found, err := MemberSessions(st, o.ClaudeDir)
	if err != nil {
		return nil, err
	}
	sessions, gone := found.ByMember, found.Gone
	r := &Report{Team: st.Team, Up: st.Running(), PricesDate: o.Prices.Date, PriceSource: o.Prices.Source}
	for _, x := range found.Refused {
		r.Notes = append(r.Notes, x.String())
	}
	if !o.Since.IsZero() {
		r.Since = &o.Since
	}
	type row struct {
		name   string
		role   state.Role
		origin state.Origin
		gone   bool
		agent  string
	}
	var rows []row
	for _, m := range st.Members {
		if m.Role != state.RoleProcess || m.Agent != "" {
			rows = append(rows, row{m.Name, m.Role, m.Origin, false, m.Agent})
		}
	}
	for _, name := range gone {
		rows = append(rows, row{name, state.RoleTeammate, state.OriginLead, true, ""})
	}
	if len(o.Members) > 0 {
		var names []string
		for _, x := range rows {
			names = append(names, x.name)
		}
		var keep []row
		for _, want := range o.Members {
			i := slices.IndexFunc(rows, func(x row) bool { return x.name == want })
			if i < 0 {
				return nil, fmt.Errorf("team %s has no agent member %q (it has %s)", st.Team, want, strings.Join(names, ", "))
			}
			keep = append(keep, rows[i])
		}
		rows = keep
	}
	meters := make([]*Meter, len(rows))
	for i, x := range rows {
		m, err := NewMeter(o.ClaudeDir, sessions[x.name], o.Prices, o.Since)
		if err != nil {
			return nil, err
		}
		if x.agent != "" {
			home, err := state.AgentHome(st.Team, x.name, x.agent)
			if err == nil {
				err = m.AddAgent(x.agent, home)
			}
			if err != nil {
				return nil, err
			}
		}
		meters[i] = m
	}
	// The members' transcripts are read at once, one member a processor.
	totals, notes := UpdateAll(meters, runtime.GOMAXPROCS(0))
	for i, x := range rows {
		ids, t := sessions[x.name], totals[i]
		r.Notes = append(r.Notes, notes[i]...)
		if ids == nil {
			ids = []string{}
		}
		r.Members = append(r.Members, Member{Name: x.name, Role: x.role, Origin: x.origin, Agent: x.agent, Sessions: ids, Gone: x.gone, Totals: t})
		r.Total.Add(t)
	}
	if r.Total.ByModel == nil {
		r.Total.ByModel = map[string]Model{}
	}
	return r, nil
}

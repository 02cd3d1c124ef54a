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
	Sessions []string     `json:"sessions"`       // its Claude Code sessions, earlier lives' included
	Gone     bool         `json:"gone,omitempty"` // no longer in the team's state; found by its transcripts
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

// MemberSessions are the Claude Code sessions of each member of st, by
// name, and the names of teammates found only by their transcripts (gone
// from the state): the lead's session of every life of the team; a layout
// teammate's recorded session and the one teamctl derives for it in every
// life; and every session whose transcript says it is a teammate of one of
// the team's Claude Code teams (how a teammate the lead spawned is found).
func MemberSessions(st *state.Team, claudeDir string) (map[string][]string, []string, error) {
	out := map[string][]string{}
	add := func(name, id string) {
		if claudecode.ValidSessionID(id) && !slices.Contains(out[name], id) {
			out[name] = append(out[name], id)
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
				add(m.Name, l.LeadSessionID)
			}
			add(m.Name, m.SessionID)
		case state.RoleTeammate:
			add(m.Name, m.SessionID)
			if m.Origin != state.OriginLead {
				for _, l := range lives {
					if claudecode.ValidSessionID(l.LeadSessionID) {
						add(m.Name, claudecode.TeammateSessionID(l.LeadSessionID, m.Name))
					}
				}
			}
		}
	}
	found, err := transcript.FindTeam(claudeDir, teams, st.CreatedAt.Add(-time.Minute))
	if err != nil {
		return out, nil, err
	}
	var gone []string
	for name, ids := range found {
		if _, ok := st.Member(name); !ok {
			gone = append(gone, name)
		}
		for _, id := range ids {
			add(name, id)
		}
	}
	sort.Strings(gone)
	return out, gone, nil
}

// ForTeam reads what the team of st spent, member by member; a team that is
// down is read the same way, from the sessions its state recorded.
func ForTeam(st *state.Team, o Options) (*Report, error) {
	if o.Prices == nil {
		o.Prices = Shipped()
	}
	sessions, gone, err := MemberSessions(st, o.ClaudeDir)
	if err != nil {
		return nil, err
	}
	r := &Report{Team: st.Team, Up: st.Running(), PricesDate: o.Prices.Date, PriceSource: o.Prices.Source}
	if !o.Since.IsZero() {
		r.Since = &o.Since
	}
	type row struct {
		name   string
		role   state.Role
		origin state.Origin
		gone   bool
	}
	var rows []row
	for _, m := range st.Members {
		if m.Role != state.RoleProcess {
			rows = append(rows, row{m.Name, m.Role, m.Origin, false})
		}
	}
	for _, name := range gone {
		rows = append(rows, row{name, state.RoleTeammate, state.OriginLead, true})
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
				return nil, fmt.Errorf("team %s has no Claude Code member %q (it has %s)", st.Team, want, strings.Join(names, ", "))
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
		r.Members = append(r.Members, Member{Name: x.name, Role: x.role, Origin: x.origin, Sessions: ids, Gone: x.gone, Totals: t})
		r.Total.Add(t)
	}
	if r.Total.ByModel == nil {
		r.Total.ByModel = map[string]Model{}
	}
	return r, nil
}

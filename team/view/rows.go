package view

import (
	"time"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team/model"
)

// Row is one member as a cockpit lists it, every text made here: the page
// draws these as they are.
type Row struct {
	Team      string    `json:"team"`
	Member    string    `json:"member"`
	Role      string    `json:"role"`       // Role: lead, teammate, spawned, process
	State     string    `json:"state"`      // as status has it (what a style keys on)
	StateText string    `json:"state_text"` // StateWord: working, idle, stalled, …
	Waits     bool      `json:"waits"`      // it waits for a person
	Since     time.Time `json:"since"`      // when it entered its state (zero: not known)
	For       string    `json:"for"`        // how long, at the view's time: 42s, 12m, "-"
	WaitsOn   string    `json:"waits_on"`   // what it waits on, on one line
	Cost      string    `json:"cost"`       // what it spent: $1.23, "-"
	Restarts  int       `json:"restarts"`
	Conflicts []string  `json:"conflicts,omitempty"` // whose work its own would conflict with
	Host      string    `json:"host,omitempty"`      // the host it runs on; "" for this machine
}

// Rows are the members of teams (each team's status, in the order of teams)
// as both cockpits list them (Order), at now.
func Rows(teams []*model.Status, now time.Time) []Row {
	type item struct {
		team string
		m    Member
	}
	var items []item
	var names []string
	for _, s := range teams {
		if s == nil {
			continue
		}
		names = append(names, s.Team)
		for _, m := range s.Members {
			items = append(items, item{s.Team, m})
		}
	}
	items = Order(items, names, func(i item) (string, Member) { return i.team, i.m })
	rows := make([]Row, 0, len(items))
	for _, i := range items {
		m := i.m
		r := Row{Team: i.team, Member: m.Name, Role: Role(m), State: string(m.State), StateText: StateWord(m),
			Waits: WaitsForPerson(m), Since: Since(m), For: For(m, now), WaitsOn: WaitsOn(m, false, now),
			Cost: Cost(m), Restarts: m.Restarts, Host: textsafe.Visible(m.Host)}
		for _, c := range m.Conflicts {
			r.Conflicts = append(r.Conflicts, textsafe.Visible(c.With))
		}
		rows = append(rows, r)
	}
	return rows
}

// TeamsUp are the statuses of the teams up, in the order given.
func TeamsUp(teams []*model.Status) []*model.Status {
	var up []*model.Status
	for _, s := range teams {
		if Up(s) {
			up = append(up, s)
		}
	}
	return up
}

// Shown is a member's name as both cockpits list it: with its host when it
// runs on another ("trainer@gpu1").
func Shown(m Member) string {
	if m.Host != "" {
		return m.Name + "@" + m.Host
	}
	return m.Name
}

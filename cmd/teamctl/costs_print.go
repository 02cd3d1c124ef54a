package main

import (
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/usage"
)

// renderUsage is `teamctl usage`'s table: a row per member and one for the
// team, then which prices were used.
func renderUsage(r *usage.Report, width int) string {
	var b strings.Builder
	up := "down"
	if r.Up {
		up = "up"
	}
	fmt.Fprintf(&b, "team %s (%s)", r.Team, up)
	if r.Since != nil {
		fmt.Fprintf(&b, " since %s", r.Since.Local().Format("2006-01-02 15:04"))
	}
	b.WriteString("\n")
	t := table.New(table.Column{Title: "MEMBER"}, table.Column{Title: "TURNS"}, table.Column{Title: "INPUT"},
		table.Column{Title: "OUTPUT"}, table.Column{Title: "CACHE WRITE"}, table.Column{Title: "CACHE READ"},
		table.Column{Title: "COST"}, table.Column{Title: "MODELS", Fit: table.Cut})
	row := func(name string, x usage.Totals) {
		t.Add(table.Text(name), table.Text(fmt.Sprint(x.Turns)), table.Text(state.TokenCount(x.Input)), table.Text(state.TokenCount(x.Output)),
			table.Text(state.TokenCount(x.CacheWrite)), table.Text(state.TokenCount(x.CacheRead)), table.Text(cost(x)), table.Text(textsafe.Visible(strings.Join(x.Models(), ", "))))
	}
	for _, m := range r.Members {
		name := m.Name
		if m.Gone {
			name += " (gone)"
		}
		if m.Agent != "" {
			name += " (" + m.Agent + ")"
		}
		row(name, m.Totals)
	}
	row("TEAM", r.Total)
	b.WriteString(t.Render(width))
	fmt.Fprintf(&b, "prices of %s (%s)", r.PricesDate, r.PriceSource)
	if np := r.Total.NoPrice(); len(np) > 0 {
		fmt.Fprintf(&b, "; no price for %s: their tokens are counted, not their cost", textsafe.Visible(strings.Join(np, ", ")))
	}
	b.WriteString("\n")
	return b.String()
}

// cost is the cost of x's priced models, and says when some had none, as
// every view of a cost says it (state.CostText).
func cost(x usage.Totals) string {
	return state.CostText(x.Turns, x.Cost, len(x.ByModel), len(x.NoPrice()))
}

package state

import (
	"fmt"
	"slices"
	"time"
)

// MemberUsage is what a member has spent so far, as the supervisor follows
// its Claude Code sessions' transcripts (package usage): every life of the
// team, its subagents included. Cost is what the priced models cost; NoPrice
// are the models it used that teamctl has no price for, whose tokens are
// counted and whose cost is not known (never guessed).
type MemberUsage struct {
	Input      int64     `json:"input"`
	Output     int64     `json:"output"`
	CacheWrite int64     `json:"cache_write"`
	CacheRead  int64     `json:"cache_read"`
	Turns      int       `json:"turns"`
	Cost       float64   `json:"cost"`
	Models     []string  `json:"models,omitempty"`
	NoPrice    []string  `json:"no_price,omitempty"`
	Updated    time.Time `json:"updated,omitzero"` // when the supervisor last read its transcripts
}

// Tokens are all its tokens together.
func (u MemberUsage) Tokens() int64 { return u.Input + u.Output + u.CacheWrite + u.CacheRead }

// Budgets is what the supervisor's budgets (the layout's budget:) have done:
// which thresholds were said (each once, across supervisor restarts) and
// which members it holds.
type Budgets struct {
	// Said are the thresholds crossed and said, as keys the supervisor
	// makes ("member/lead/warn/5", "team/limit/25"): a budget changed in
	// the layout is another key, said again.
	Said []string `json:"said,omitempty"`
	// Held are the members held (StateHeld), by name.
	Held map[string]Hold `json:"held,omitempty"`
}

// Hold is why and since when a member is held.
type Hold struct {
	Since   time.Time `json:"since"`
	Reason  string    `json:"reason"`            // "budget: spent $5.02 of its $5.00 member budget"
	Stopped bool      `json:"stopped,omitempty"` // action stop: shut down, not only interrupted
}

// HeldMember is the hold on member name, if any.
func (l *Live) HeldMember(name string) (Hold, bool) {
	if l == nil || l.Budgets == nil {
		return Hold{}, false
	}
	h, ok := l.Budgets.Held[name]
	return h, ok
}

// CostText is the cost as every view shows it: "$1.23"; "1.20M tok, no
// price" when none of its models has a price; "$1.23 + no price" when some
// have none; "-" before its first response.
func (u *MemberUsage) CostText() string {
	switch {
	case u == nil || u.Turns == 0:
		return "-"
	case len(u.NoPrice) > 0 && len(u.NoPrice) == len(u.Models):
		return TokenCount(u.Tokens()) + " tok, no price"
	}
	return CostText(u.Turns, u.Cost, len(u.Models), len(u.NoPrice))
}

// CostText is a cost as every view says it, of turns responses costing
// cost in the models priced: "-" before the first response, "no price" when
// none of its models has one, "$1.23 + no price" when some have none, else
// "$1.23". Never a guess at what has no price.
func CostText(turns int, cost float64, models, noPrice int) string {
	switch {
	case turns == 0:
		return "-"
	case noPrice > 0 && noPrice == models:
		return "no price"
	case noPrice > 0:
		return fmt.Sprintf("$%.2f + no price", cost)
	}
	return fmt.Sprintf("$%.2f", cost)
}

// Add adds o's counts to u (a team's total).
func (u *MemberUsage) Add(o *MemberUsage) {
	if o == nil {
		return
	}
	u.Input += o.Input
	u.Output += o.Output
	u.CacheWrite += o.CacheWrite
	u.CacheRead += o.CacheRead
	u.Turns += o.Turns
	u.Cost += o.Cost
	for _, m := range o.Models {
		if !slices.Contains(u.Models, m) {
			u.Models = append(u.Models, m)
		}
	}
	for _, m := range o.NoPrice {
		if !slices.Contains(u.NoPrice, m) {
			u.NoPrice = append(u.NoPrice, m)
		}
	}
}

// TokenCount is a token count in a few characters: 950, 12.3k, 4.56M.
func TokenCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	}
}

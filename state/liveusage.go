package state

import "time"

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

// Package usage is what a team's members spent: tokens by kind, turns,
// models and cost of each member's Claude Code sessions (their subagents'
// included), read from Claude Code's transcripts (claudecode/transcript) and
// priced from a dated price table shipped with teamctl, which a file in
// teamctl's config folder may override; never fetched from the network. A
// model missing from the table is counted in tokens and said "no price",
// never guessed. Meter follows a member's transcripts incrementally (for live
// views and budgets); ForTeam reports a whole team, up or down. It reads only.
package usage

import (
	"sort"
	"time"

	"github.com/teamctl/teamctl/claudecode/transcript"
)

// Tokens are token counts by kind. CacheWrite is both lifetimes together;
// CacheWrite1h is the 1-hour part of it (the rest is 5-minute).
type Tokens struct {
	Input        int64 `json:"input"`
	Output       int64 `json:"output"`
	CacheWrite   int64 `json:"cache_write"`
	CacheWrite1h int64 `json:"cache_write_1h"`
	CacheRead    int64 `json:"cache_read"`
}

// Total is all the tokens together.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheWrite + t.CacheRead }

func (t *Tokens) add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheWrite += o.CacheWrite
	t.CacheWrite1h += o.CacheWrite1h
	t.CacheRead += o.CacheRead
}

func tokensOf(u transcript.Usage) Tokens {
	t := Tokens{Input: u.Input, Output: u.Output, CacheWrite: u.CacheWrite, CacheRead: u.CacheRead}
	if u.Split {
		t.CacheWrite1h = min(u.CacheWrite1h, u.CacheWrite)
	}
	return t
}

// Model is one model's part of Totals.
type Model struct {
	Tokens
	Turns  int     `json:"turns"`
	Cost   float64 `json:"cost"`             // 0 without a price
	Priced bool    `json:"priced"`           // false: "no price" (tokens counted, not costed)
	Family string  `json:"family,omitempty"` // the price table's family it was priced as
}

// Totals are what responses used: tokens, turns (responses), cost of the
// priced ones, and the same per model.
type Totals struct {
	Tokens
	Turns   int              `json:"turns"`
	Cost    float64          `json:"cost"`
	ByModel map[string]Model `json:"models"`
	First   time.Time        `json:"first,omitzero"` // the earliest response counted
	Last    time.Time        `json:"last,omitzero"`  // the latest
}

// Models are the models used, sorted.
func (t Totals) Models() []string {
	out := make([]string, 0, len(t.ByModel))
	for m := range t.ByModel {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// NoPrice are the models used that the price table has no price for, sorted.
func (t Totals) NoPrice() []string {
	var out []string
	for _, m := range t.Models() {
		if !t.ByModel[m].Priced {
			out = append(out, m)
		}
	}
	return out
}

// Add adds o to t.
func (t *Totals) Add(o Totals) {
	t.Tokens.add(o.Tokens)
	t.Turns += o.Turns
	t.Cost += o.Cost
	if t.ByModel == nil && len(o.ByModel) > 0 {
		t.ByModel = map[string]Model{}
	}
	for name, m := range o.ByModel {
		x := t.ByModel[name]
		x.Tokens.add(m.Tokens)
		x.Turns += m.Turns
		x.Cost += m.Cost
		x.Priced, x.Family = m.Priced, m.Family
		t.ByModel[name] = x
	}
	if !o.First.IsZero() && (t.First.IsZero() || o.First.Before(t.First)) {
		t.First = o.First
	}
	if o.Last.After(t.Last) {
		t.Last = o.Last
	}
}

func (t *Totals) count(r transcript.Response, prices *Table) {
	tok := tokensOf(r.Usage)
	t.Tokens.add(tok)
	t.Turns++
	if t.ByModel == nil {
		t.ByModel = map[string]Model{}
	}
	m := t.ByModel[r.Model]
	m.Tokens.add(tok)
	m.Turns++
	if p, family, ok := prices.Lookup(r.Model); ok {
		c := p.Cost(r.Usage)
		m.Cost += c
		t.Cost += c
		m.Priced, m.Family = true, family
	}
	t.ByModel[r.Model] = m
	if !r.Time.IsZero() {
		if t.First.IsZero() || r.Time.Before(t.First) {
			t.First = r.Time
		}
		if r.Time.After(t.Last) {
			t.Last = r.Time
		}
	}
}

// synthetic is the model Claude Code names on an answer it makes up itself
// (an API error shown as a message): not a response of a model, no tokens.
const synthetic = "<synthetic>"

// Counter counts responses once each: a response written on several lines
// (one per content block), or found in two files, is one (transcript's
// Response.Key). Responses from before Since are left out.
type Counter struct {
	Prices *Table
	Since  time.Time
	seen   map[uint64]struct{}
	Totals Totals
}

// NewCounter returns a Counter pricing with prices (nil: the shipped table).
func NewCounter(prices *Table, since time.Time) *Counter {
	if prices == nil {
		prices = Shipped()
	}
	return &Counter{Prices: prices, Since: since, seen: map[uint64]struct{}{}}
}

// Add counts r unless it was counted already, is before Since, or is not a
// model's; it reports whether it counted it.
func (c *Counter) Add(r transcript.Response) bool {
	if !wanted(r, c.Since) {
		return false
	}
	if k, ok := keyOf(r); ok {
		if _, dup := c.seen[k]; dup {
			return false
		}
		c.seen[k] = struct{}{}
	}
	c.Totals.count(r, c.Prices)
	return true
}

// wanted reports whether r is a model's response from since on (a response
// of unknown time is left out when there is a since).
func wanted(r transcript.Response, since time.Time) bool {
	if r.Model == synthetic {
		return false
	}
	return since.IsZero() || !r.Time.IsZero() && !r.Time.Before(since)
}

// keyOf is a hash of r's Key (64-bit FNV-1a: a few bytes a response however
// long the session, where the string would be tens), ok false when r has no
// key.
func keyOf(r transcript.Response) (uint64, bool) {
	// Response.Key's string, hashed as it would be read, without making it
	// (a busy team's transcripts hold thousands of responses a second).
	switch {
	case r.MessageID != "":
		return fnv64a(fnv64a(fnvOffset, "m:"), r.MessageID), true
	case r.RequestID != "":
		return fnv64a(fnv64a(fnvOffset, "r:"), r.RequestID), true
	}
	return 0, false
}

// FNV-1a, 64 bits (hash/fnv's New64a), over strings.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv64a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

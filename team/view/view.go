// Package view is the view of teams that both cockpits draw — `teamctl top`
// in a terminal and `teamctl serve`'s page in a browser — computed once:
// the members in the order a person reads them (whoever waits for a person
// first, the longest waiting on top; then the failed and the held; then the
// rest in the layout's order, team by team), who waits and since when, what
// each waits on, how its state and role read, what it cost, how long it has
// been so. The page receives it as JSON and only draws it.
package view

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
)

// Member is a member as `teamctl status` reports it.
type Member = model.MemberStatus

// WaitsForPerson: stalled at a prompt, or a permission request no rule
// answered.
func WaitsForPerson(m Member) bool {
	return m.State == state.StateStalled || m.State == state.StateWaitingApproval
}

// WaitSince is since when a member waits for a person (its stall's or its
// request's time), else since when it is in its state.
func WaitSince(m Member) time.Time {
	switch {
	case m.Stall != nil:
		return m.Stall.Since
	case m.Request != nil:
		return m.Request.Since
	}
	return m.Since
}

// Since is when the member entered its state, as far as anyone knows (zero:
// not known).
func Since(m Member) time.Time {
	if t := WaitSince(m); !t.IsZero() {
		return t
	}
	if m.State == state.StateRunning || m.State == state.StateIdle {
		return m.StartedAt
	}
	return time.Time{}
}

// rank is where a member's state puts it: 0 waits for a person, 1 failed or
// held (a person must act for it to go on), 2 the rest.
func rank(m Member) int {
	switch {
	case WaitsForPerson(m):
		return 0
	case m.State == state.StateFailed, m.State == state.StateHeld:
		return 1
	}
	return 2
}

// Order sorts items — members of the teams named in teams, in that order of
// teams — as both cockpits list them: whoever waits for a person first, in
// whichever team, the longest waiting first; then, team by team, the failed
// and the held, then everyone else in the layout's order (the order items
// come in). of says an item's team and member. items is not changed.
func Order[T any](items []T, teams []string, of func(T) (string, Member)) []T {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b T) int {
		ta, ma := of(a)
		tb, mb := of(b)
		ra, rb := rank(ma), rank(mb)
		switch {
		case ra == 0 && rb == 0:
			return WaitSince(ma).Compare(WaitSince(mb))
		case ra == 0 || rb == 0:
			return ra - rb
		}
		if d := slices.Index(teams, ta) - slices.Index(teams, tb); d != 0 {
			return d
		}
		return ra - rb
	})
	return out
}

// StateWord is how a member's state reads, as status has it too
// (state.MemberState.Shown): a running Claude Code is "working" (as against
// idle); a plain process is never idle, so it stays "running".
func StateWord(m Member) string { return string(m.State.Shown(m.Role, m.Agent)) }

// Role is how a member's role reads: "spawned" for a teammate the lead
// spawned itself.
func Role(m Member) string {
	if m.Origin == state.OriginLead {
		return "spawned"
	}
	return string(m.Role)
}

// Cost is what a member spent, as status says it; "-" for a plain process.
func Cost(m Member) string {
	if m.Role == state.RoleProcess {
		return "-"
	}
	return m.Usage.CostText()
}

// WaitsOn is what a member waits on, or what there is to say of its state,
// on one line: the line it stalled at, the tool and command, file or address
// its request is about, why it failed or is held, its limit's reset, its
// exit; with full, an idle member's last answer too. Made visible: it comes
// from the members.
func WaitsOn(m Member, full bool, now time.Time) string {
	switch m.State {
	case state.StateStalled:
		if m.Stall != nil {
			return textsafe.Visible(fmt.Sprintf("%q", m.Stall.Line))
		}
	case state.StateWaitingApproval:
		if m.Request != nil {
			return textsafe.Visible(m.Request.Tool + ": " + RequestTarget(m.Request.Tool, m.Request.Input, m.Request.Description))
		}
	case state.StateFailed, state.StateHeld:
		return textsafe.Visible(m.Reason)
	case state.StateLimited:
		if m.Limit != nil {
			return textsafe.Visible(m.Limit.ResetText(now))
		}
	case state.StateExited:
		if m.ExitCode != nil {
			return fmt.Sprintf("exit %d", *m.ExitCode)
		}
	case state.StateIdle:
		if full && m.Result != "" {
			return textsafe.Visible(m.Result)
		}
	}
	return ""
}

// RequestTarget is the command, file, address or pattern a tool request is
// about, from its input (JSON, possibly cut short by the supervisor), else
// its description.
func RequestTarget(tool, input, description string) string {
	keys := []string{"command", "file_path", "notebook_path", "path", "url", "pattern", "query"}
	var obj map[string]any
	if json.Unmarshal([]byte(input), &obj) == nil {
		for _, k := range keys {
			if v, ok := obj[k].(string); ok && v != "" {
				return v
			}
		}
	} else {
		// Cut short: the value runs to the end of what is left.
		for _, k := range keys {
			if _, rest, ok := strings.Cut(input, `"`+k+`":"`); ok {
				var v string
				if json.Unmarshal([]byte(`"`+strings.TrimSuffix(strings.TrimSuffix(rest, "…"), `"`)+`"`), &v) == nil {
					return v + "…"
				}
				return rest
			}
		}
	}
	if description != "" {
		return description
	}
	return input
}

// Age is a compact duration: 42s, 12m, 3h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// For is how long a member has been in its state at now ("-" when not
// known), as both cockpits' FOR column says it.
func For(m Member, now time.Time) string {
	if t := Since(m); !t.IsZero() {
		return Age(now.Sub(t))
	}
	return "-"
}

// Up says whether a team is up: not brought down, and some member's program
// not ended.
func Up(s *model.Status) bool {
	if s == nil || s.StoppedAt != nil {
		return false
	}
	return slices.ContainsFunc(s.Members, func(m Member) bool { return !m.State.Ended() })
}

// TeamCost is what a team's members spent together, as Cost says a
// member's: "$3.45", "$3.45 + no price", "-" before any response.
func TeamCost(s *model.Status) string { return TotalCost([]*model.Status{s}) }

// TotalCost is what the members of every team of teams spent together.
func TotalCost(teams []*model.Status) string {
	var total state.MemberUsage
	for _, s := range teams {
		if s == nil {
			continue
		}
		for _, m := range s.Members {
			if m.Role != state.RoleProcess {
				total.Add(m.Usage)
			}
		}
	}
	return total.CostText()
}

package layouts

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Budget is what the team's members may spend (the `budget:` mapping), in US
// dollars of the usage teamctl reads from their transcripts: at Warn of a
// budget the supervisor says so (an event, watchdog.notify's command); when
// it is spent, it says so again and takes Action.
type Budget struct {
	Team   float64 // the whole team's; 0: none
	Member float64 // each Claude Code member's; 0: none (a member's own budget: may set it)
	Warn   float64 // the warning threshold, a fraction of a budget: 0.8 for 80% (the default)
	Action string  // one of BudgetActions; default "notify"
	Line   int     // where budget: is, for messages (0: not in the file)
	Column int
}

// MemberBudget is a member's own `budget:` (its member: amount, warn: and
// action: taking the team's place for it); zero fields take the team's.
type MemberBudget struct {
	Member float64
	Warn   float64
	Action string
}

// BudgetActions are the values of budget.action: notify only tells;
// interrupt sends Escape to the member and holds it until `teamctl
// resume-member`; stop shuts it down as `teamctl down` does its members.
var BudgetActions = []string{"notify", "interrupt", "stop"}

// DefaultBudgetWarn is budget.warn when it is not set.
const DefaultBudgetWarn = 0.8

// maxBudget bounds a budget (a million dollars): a larger one is a typo.
const maxBudget = 1e6

var (
	budgetKeys       = []string{"team", "member", "warn", "action"}
	memberBudgetKeys = []string{"member", "warn", "action", "team"} // team: known, for a precise message
)

// MemberLimit is the budget of the member called name (its own, else the
// team's member:), the warning fraction and the action for it; limit 0: it
// has none.
func (l *Layout) MemberLimit(name string) (limit, warn float64, action string) {
	b := l.Budget
	limit, warn, action = b.Member, b.Warn, b.Action
	for _, m := range l.All() {
		if m.Name != name || m.Budget == nil {
			continue
		}
		if m.Budget.Member > 0 {
			limit = m.Budget.Member
		}
		if m.Budget.Warn > 0 {
			warn = m.Budget.Warn
		}
		if m.Budget.Action != "" {
			action = m.Budget.Action
		}
	}
	if warn == 0 {
		warn = DefaultBudgetWarn
	}
	if action == "" {
		action = BudgetActions[0]
	}
	return limit, warn, action
}

// spending reads the top-level budget: mapping, which may be absent.
func (w *walker) spending(n *yaml.Node) Budget {
	b := Budget{Warn: DefaultBudgetWarn, Action: BudgetActions[0]}
	if n == nil || !w.isMapping(n, "budget") {
		return b
	}
	b.Line, b.Column = n.Line, n.Column
	f := w.fields(n, "budget", budgetKeys)
	b.Team = w.dollars(f.get("team"), "budget.team")
	b.Member = w.dollars(f.get("member"), "budget.member")
	if v := f.get("warn"); v != nil {
		b.Warn = w.percent(v, "budget.warn", DefaultBudgetWarn)
	}
	b.Action = w.choice(f.get("action"), "budget.action", BudgetActions, BudgetActions[0])
	if b.Team > 0 && b.Member > b.Team {
		w.add(f.get("member"), "budget.member", "is more than the team's budget (budget.team: %s): a member could never spend it", fmtDollars(b.Team))
	}
	return b
}

// memberBudget reads a member's own budget: mapping at path.
func (w *walker) memberBudget(n *yaml.Node, path string) *MemberBudget {
	if n == nil || !w.isMapping(n, path) {
		return nil
	}
	f := w.fields(n, path, memberBudgetKeys)
	if k := f["team"]; k.key != nil {
		w.add(k.key, join(path, "team"), "a member has no team budget: set it in the top-level budget: (budget.team), and this member's own with member:")
	}
	b := &MemberBudget{Member: w.dollars(f.get("member"), join(path, "member"))}
	if v := f.get("warn"); v != nil {
		b.Warn = w.percent(v, join(path, "warn"), 0)
	}
	b.Action = w.choice(f.get("action"), join(path, "action"), BudgetActions, "")
	return b
}

// dollars is the amount n holds: a number of US dollars above 0 (0 when n is
// nil or invalid).
func (w *walker) dollars(n *yaml.Node, path string) float64 {
	s, ok := w.text(n, path)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case n.Tag == "!!str" && n.Style != 0, err != nil && strings.HasPrefix(strings.TrimSpace(s), "$"):
		w.add(n, path, "must be a number of US dollars, such as 25 or 2.5, written without quotes or $ (got %q)", s)
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		w.add(n, path, "must be a number of US dollars, such as 25 or 2.5 (got %q)", s)
	case v <= 0:
		w.add(n, path, "must be more than 0 US dollars (got %s); leave it out for no budget", s)
	case v > maxBudget:
		w.add(n, path, "must be at most %s US dollars (got %s)", fmtDollars(maxBudget), s)
	default:
		return v
	}
	return 0
}

// percent is the fraction the percentage n holds ("80%", or 80): from 1% to
// 100%; def when invalid.
func (w *walker) percent(n *yaml.Node, path string, def float64) float64 {
	s, ok := w.text(n, path)
	if !ok {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || v < 1 || v > 100 {
		w.add(n, path, "must be a percentage of the budget from 1%% to 100%%, such as 80%% (got %q)", s)
		return def
	}
	return v / 100
}

// fmtDollars writes an amount as the messages say it: $25, $2.50.
func fmtDollars(v float64) string {
	if v == math.Trunc(v) {
		return "$" + strconv.FormatFloat(v, 'f', 0, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}

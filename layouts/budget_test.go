package layouts

import (
	"strings"
	"testing"
)

func TestBudget(t *testing.T) {
	l := mustParse(t, `team: t
budget: {team: 25, member: 5, warn: 90%, action: interrupt}
lead: {budget: {member: 2.5}}
members:
  - name: a
  - name: b
    budget: {warn: 50, action: stop}
`)
	if b := l.Budget; b.Team != 25 || b.Member != 5 || b.Warn != 0.9 || b.Action != "interrupt" || b.Line != 2 || b.Column != 9 {
		t.Errorf("Budget = %+v", b)
	}
	for _, c := range []struct {
		name        string
		limit, warn float64
		action      string
	}{
		{"lead", 2.5, 0.9, "interrupt"},
		{"a", 5, 0.9, "interrupt"},
		{"b", 5, 0.5, "stop"},
		{"nobody", 5, 0.9, "interrupt"},
	} {
		limit, warn, action := l.MemberLimit(c.name)
		if limit != c.limit || warn != c.warn || action != c.action {
			t.Errorf("MemberLimit(%s) = %v, %v, %s; want %v, %v, %s", c.name, limit, warn, action, c.limit, c.warn, c.action)
		}
	}
}

func TestBudgetDefaults(t *testing.T) {
	l := mustParse(t, "team: t\n")
	if b := l.Budget; b.Team != 0 || b.Member != 0 || b.Warn != DefaultBudgetWarn || b.Action != "notify" {
		t.Errorf("Budget = %+v", b)
	}
	if limit, warn, action := l.MemberLimit("lead"); limit != 0 || warn != 0.8 || action != "notify" {
		t.Errorf("MemberLimit = %v, %v, %s", limit, warn, action)
	}
}

func TestBudgetProblems(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"team: t\nbudget: {team: 0}\n",
			[]string{"t.yaml:2:16: budget.team: must be more than 0 US dollars (got 0); leave it out for no budget"}},
		{"team: t\nbudget: {member: -1}\n",
			[]string{"t.yaml:2:18: budget.member: must be more than 0 US dollars (got -1); leave it out for no budget"}},
		{"team: t\nbudget: {team: $25}\n",
			[]string{`t.yaml:2:16: budget.team: must be a number of US dollars, such as 25 or 2.5, written without quotes or $ (got "$25")`}},
		{"team: t\nbudget: {team: \"25\"}\n",
			[]string{`t.yaml:2:16: budget.team: must be a number of US dollars, such as 25 or 2.5, written without quotes or $ (got "25")`}},
		{"team: t\nbudget: {team: lots}\n",
			[]string{`t.yaml:2:16: budget.team: must be a number of US dollars, such as 25 or 2.5 (got "lots")`}},
		{"team: t\nbudget: {team: .nan}\n",
			[]string{`t.yaml:2:16: budget.team: must be a number of US dollars, such as 25 or 2.5 (got ".nan")`}},
		{"team: t\nbudget: {team: 2000000}\n",
			[]string{"t.yaml:2:16: budget.team: must be at most $1000000 US dollars (got 2000000)"}},
		{"team: t\nbudget: {warn: 0%}\n",
			[]string{`t.yaml:2:16: budget.warn: must be a percentage of the budget from 1% to 100%, such as 80% (got "0%")`}},
		{"team: t\nbudget: {warn: 120%}\n",
			[]string{`t.yaml:2:16: budget.warn: must be a percentage of the budget from 1% to 100%, such as 80% (got "120%")`}},
		{"team: t\nbudget: {warn: high}\n",
			[]string{`t.yaml:2:16: budget.warn: must be a percentage of the budget from 1% to 100%, such as 80% (got "high")`}},
		{"team: t\nbudget: {action: kill}\n",
			[]string{`t.yaml:2:18: budget.action: must be one of notify, interrupt, stop (got "kill")`}},
		{"team: t\nbudget: {action: stpo}\n",
			[]string{`t.yaml:2:18: budget.action: must be one of notify, interrupt, stop (got "stpo"); did you mean "stop"?`}},
		{"team: t\nbudget: {team: 5, member: 6}\n",
			[]string{"t.yaml:2:27: budget.member: is more than the team's budget (budget.team: $5): a member could never spend it"}},
		{"team: t\nbudget: 25\n",
			[]string{"t.yaml:2:9: budget: must be a mapping"}},
		{"team: t\nbudget: {tema: 5}\n",
			[]string{`t.yaml:2:10: budget: unknown key "tema"; did you mean "team"?`}},
		{"team: t\nlead: {budget: {team: 5}}\n",
			[]string{"t.yaml:2:17: lead.budget.team: a member has no team budget: set it in the top-level budget: (budget.team), and this member's own with member:"}},
		{"team: t\nmembers:\n  - name: a\n    budget: {member: 0, warn: 101, action: halt}\n",
			[]string{
				"t.yaml:4:22: members[0].budget.member: must be more than 0 US dollars (got 0); leave it out for no budget",
				`t.yaml:4:31: members[0].budget.warn: must be a percentage of the budget from 1% to 100%, such as 80% (got "101")`,
				`t.yaml:4:44: members[0].budget.action: must be one of notify, interrupt, stop (got "halt")`,
			}},
		{"team: t\nmembers:\n  - name: a\n    command: [sleep, '9']\n    budget: {member: 1}\n",
			[]string{"t.yaml:5:5: members[0].budget: only for Claude Code members, not with command"}},
	}
	for _, tc := range tests {
		got := problemLines(t, tc.src)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

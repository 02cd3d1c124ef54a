package supervisor

import (
	"context"
	"fmt"
	"os"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/permrules"
	"github.com/teamctl/teamctl/state"
)

// fromEvent takes one event appended to the team's event log: a hook
// (fromHook), or an answer that `teamctl approve` or `deny` recorded, which
// clears the request it answers.
func (s *daemon) fromEvent(ctx context.Context, e state.Event) {
	if e.Kind == state.EventHook {
		s.fromHook(e)
		return
	}
	if e.Kind == state.EventReleased {
		s.release(ctx, e.Member) // budget.go
		return
	}
	if e.Kind == state.EventStopRequested {
		s.stopRequested(e.Member, e.Detail) // stopped.go
		return
	}
	if e.Kind != state.EventPermissionAnswer {
		return
	}
	w := s.watchOf(e.Member)
	if w == nil || w.live.Request == nil || w.live.Request.ID != e.RequestID {
		return
	}
	w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
	s.live.Members[e.Member] = w.live
}

// answerByRule answers a permission request when the layout's rules decide it
// (the member's and the team's; deny wins), records both the request and the
// answer naming the rule, and reports whether it did. No rule, no answer.
func (s *daemon) answerByRule(ctx context.Context, member string, p claudecode.PermissionRequest, req *state.Request) bool {
	if s.lay == nil {
		return false
	}
	allow, deny := toRules(s.lay.Permissions.Allow), toRules(s.lay.Permissions.Deny)
	for _, m := range s.lay.All() {
		if m.Name == member {
			allow = append(toRules(m.Permissions.Allow), allow...)
			deny = append(toRules(m.Permissions.Deny), deny...)
		}
	}
	// Relative patterns anchor at the folder teamctl placed the member in,
	// never at one state.json says: an agent that moved its record's folder
	// away would have a Read(.env) deny watch another folder.
	cwd := launch.RuleFolder(s.lay, s.st, member)
	// Members run as the supervisor's user: ~/ in a rule is this home. With
	// none, ~/ rules match nothing and a ~/ deny rule leaves calls to a person.
	home, _ := os.UserHomeDir()
	c := permrules.Call{Tool: p.ToolName, Input: p.Input, Cwd: cwd, Home: home}
	d, rule := permrules.Decide(c, allow, deny)
	if d == permrules.Ask {
		return false
	}
	how, reason := "automatic: allowed by rule "+rule.Text, ""
	if d == permrules.Deny {
		how, reason = "automatic: denied by rule "+rule.Text, "denied by rule "+rule.Text
	}
	if err := claudecode.AnswerRequest(ctx, s.claudeDir, s.st.ClaudeTeam, member, p, reason); err != nil {
		s.log.Warn("answer by rule", "member", member, "err", err)
		return false // a person can still answer it
	}
	s.event(state.Event{Kind: state.EventPermissionRequest, Member: member, Detail: fmt.Sprintf("%s %s: %s", p.ToolName, p.RequestID, req.Input), RequestID: p.RequestID, Tool: p.ToolName})
	s.event(state.Event{Kind: state.EventPermissionAnswer, Member: member, RequestID: p.RequestID, Tool: p.ToolName, Detail: how})
	return true
}

func toRules(rs []layouts.Rule) []permrules.Rule {
	out := make([]permrules.Rule, 0, len(rs))
	for _, r := range rs {
		out = append(out, permrules.Rule{Text: r.Text, Tool: r.Tool, Pattern: r.Pattern})
	}
	return out
}

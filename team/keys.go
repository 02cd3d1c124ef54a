package team

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
)

// reply is what Answer.Reply may be: y/n, yes/no, or a number.
var reply = regexp.MustCompile(`^(?i:y|n|yes|no|[1-9][0-9]?)$`)

func checkAnswer(a Answer) error {
	n := 0
	for _, set := range []bool{a.Reply != "", a.Option != "", len(a.Keys) > 0} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return errors.New("answer with one of: y or n, an option's number, an option's text, or keys")
	case a.Reply != "" && !reply.MatchString(a.Reply):
		return fmt.Errorf("answer %q: want y, n or an option's number (--option TEXT chooses by text, --keys sends keys as they are)", a.Reply)
	}
	return nil
}

// answer answers a member and records it as an event. Unless a.Force, the
// member must be stalled (the supervisor says so), and its screen, looked at
// now, must not be Claude Code's idle input box: keys typed into a working or
// idle Claude Code are a prompt, not an answer. A Claude Code dialog on its
// screen is answered by choosing one of the options it shows (see
// chooseAnswer). The keys go first and the record after, so the log never
// tells of an answer that was not sent; when only the record fails, the error
// is a *NotRecordedError. Any other error means nothing was sent, so trying
// again is safe.
func (t *Team) answer(ctx context.Context, member string, a Answer) (*Answered, error) {
	team := t.Name
	if err := checkAnswer(a); err != nil {
		return nil, err
	}
	st, err := loadRunning(team)
	if err != nil {
		return nil, err
	}
	m, ok := st.Member(member)
	if !ok {
		return nil, fmt.Errorf("team %s has no member %q", team, member)
	}
	var stall *Stall
	if !a.Force {
		if stall, err = t.stalledOn(ctx, member); err != nil {
			return nil, err
		}
	}
	srv := t.srv()
	screen, err := srv.CapturePane(ctx, m.Pane)
	if err != nil {
		return nil, fmt.Errorf("answer %s: look at its screen: %w", member, err)
	}
	if !a.Force && stallwatch.New(stallwatch.DefaultPatterns()).Check(screen).Kind == stallwatch.Idle {
		return nil, fmt.Errorf("%s is at its input box now, no longer stalled: the answer would be a prompt (--force sends it anyway)", member)
	}
	ans, err := chooseAnswer(member, a, screen, stall)
	if err != nil {
		return nil, err
	}
	args := append([]string{"send-keys", "-t", m.Pane, "--"}, ans.Keys...)
	if _, err := srv.Run(ctx, args...); err != nil {
		return nil, fmt.Errorf("answer %s: %w", member, err)
	}
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return &ans, &NotRecordedError{Err: err}
	}
	defer ev.Close()
	if err := ev.Append(t.by.mark(state.Event{Kind: state.EventAnswer, Member: member, Pane: m.Pane, Keys: ans.Keys, Option: ans.Option, Detail: t.by.detail("teamctl answer")})); err != nil {
		return &ans, &NotRecordedError{Err: err}
	}
	return &ans, nil
}

// stalledOn is what member is stalled on, as status says (the supervisor's
// verdict), or why it is not to be answered.
func (t *Team) stalledOn(ctx context.Context, member string) (*Stall, error) {
	team := t.Name
	s, err := getStatus(ctx, t.w, team)
	if err != nil {
		return nil, err
	}
	for _, ms := range s.Members {
		if ms.Name != member {
			continue
		}
		switch {
		case ms.State == state.StateStalled && ms.Stall != nil:
			return ms.Stall, nil
		case ms.State == state.StateLimited && ms.Agent == layouts.AgentGemini && ms.Limit != nil:
			// Gemini CLI's limit is its quota dialog: answered as one
			// ("Keep trying", "Stop"), as the supervisor continues it.
			return &Stall{Pattern: stallwatch.GeminiQuota, Line: ms.Limit.Line, Since: ms.Limit.Since}, nil
		case !s.Supervisor.Running:
			return nil, fmt.Errorf("no supervisor runs for team %s, so nothing says %s is stalled: `teamctl up` starts it (--force answers anyway)", team, member)
		case ms.State == state.StateWaitingApproval:
			return nil, fmt.Errorf("%s is not stalled but waiting for its permission request to be answered: `teamctl approve %s` or `teamctl deny %s`", member, member, member)
		}
		return nil, fmt.Errorf("%s is %s, not stalled: the answer would be typed into it as input (--force sends it anyway)", member, ms.State.Shown(ms.Role, ms.Agent))
	}
	return nil, fmt.Errorf("team %s has no member %q", team, member)
}

// chooseAnswer turns a person's answer into keys for what the screen shows.
// Keys go as they are. A Claude Code dialog (one ReadDialog reads) is
// answered by choosing an option, and a reply that does not name one
// unambiguously is refused with the options, so that no answer ever picks
// what happens to be selected ("1. Yes"). A member stalled on one of Claude
// Code's dialogs whose options cannot be read is not answered by reply at
// all. Anything else is a prompt: the reply is typed, then Enter.
func chooseAnswer(member string, a Answer, screen string, stall *Stall) (Answered, error) {
	if len(a.Keys) > 0 {
		return Answered{Keys: a.Keys}, nil
	}
	pattern := ""
	if stall != nil {
		pattern = stall.Pattern
	}
	d, ok := stallwatch.ReadDialog(screen)
	if !ok {
		if stallwatch.IsDialog(pattern) {
			return Answered{}, fmt.Errorf("%s waits at a Claude Code dialog (%s) whose options teamctl cannot read: answer it attached (`teamctl attach %s`), or send keys with --keys", member, pattern, member)
		}
		if a.Option != "" {
			return Answered{}, fmt.Errorf("%s waits at a prompt, not a menu of options: answer y or n, or send keys with --keys", member)
		}
		return Answered{Keys: []string{a.Reply, "Enter"}}, nil
	}
	o, err := chooseOption(member, d, a)
	if err != nil {
		return Answered{}, err
	}
	if a.Expect != "" && o.String() != a.Expect {
		return Answered{}, fmt.Errorf("%s's dialog changed: it now offers %s, not %s; nothing was sent", member, quoteOption(o), a.Expect)
	}
	return Answered{Keys: d.Keys(o), Option: o.String()}, nil
}

// chooseOption is the option of d that a names.
func chooseOption(member string, d stallwatch.Dialog, a Answer) (stallwatch.Option, error) {
	options := d.Describe(optionWidth)
	if a.Option != "" {
		o, candidates := d.Find(a.Option)
		switch {
		case len(candidates) == 1:
			return o, nil
		case len(candidates) > 1:
			return o, fmt.Errorf("%q is the start of several of %s's options: %s", a.Option, member, describeOptions(candidates))
		}
		return o, fmt.Errorf("%s's dialog has no option %q; it offers: %s", member, a.Option, options)
	}
	r := strings.ToLower(a.Reply)
	var (
		o  stallwatch.Option
		ok bool
	)
	switch r {
	case "y", "yes":
		if o, ok = d.Yes(); !ok {
			return o, fmt.Errorf("%s waits at a Claude Code dialog with no single plain yes: choose an option by its number (`teamctl answer %s N`) or --option TEXT: %s", member, member, options)
		}
	case "n", "no":
		if o, ok = d.No(); !ok {
			return o, fmt.Errorf("%s waits at a Claude Code dialog with no plain no and no Esc to cancel: choose an option by its number (`teamctl answer %s N`) or --option TEXT: %s", member, member, options)
		}
	default:
		var n int
		fmt.Sscan(r, &n)
		if o, ok = d.Number(n); !ok {
			return o, fmt.Errorf("%s's dialog has no option %d; it offers: %s", member, n, options)
		}
	}
	return o, nil
}

// optionWidth is how much of an option's text a message quotes.
const optionWidth = 60

func quoteOption(o stallwatch.Option) string { return fmt.Sprintf("%q", o.String()) }

func describeOptions(opts []stallwatch.Option) string {
	var s []string
	for _, o := range opts {
		s = append(s, quoteOption(o))
	}
	return strings.Join(s, ", ")
}

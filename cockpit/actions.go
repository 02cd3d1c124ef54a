package cockpit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team/model"
)

// The actions: each one the command's own function, run off the UI with a
// deadline, its outcome shown on the status line.

func (m *Model) action(do func(ctx context.Context) (string, error)) tea.Cmd {
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		text, err := do(ctx)
		if err != nil {
			var nr *model.NotRecordedError
			if errors.As(err, &nr) {
				return failMsg{fmt.Errorf("%s; warning: %w", text, err)}
			}
			return failMsg{err}
		}
		return doneMsg{text}
	}
}

// Each acts on the member's own team.

// dialogOf is the Claude Code dialog on r's screen as last captured, read
// as `teamctl answer` reads it.
func (m *Model) dialogOf(r *row) (Dialog, bool) {
	if m.screen.Team != r.Team || m.screen.Pane != r.Pane {
		return Dialog{}, false
	}
	return readDialog(m.screen.Lines)
}

// yesNo answers y or n: on a Claude Code dialog the option it means, where
// one plainly is (the person sees which, and it must still be there when
// the answer goes); at a prompt the letter, then Enter.
func (m *Model) yesNo(r *row, reply string) tea.Cmd {
	d, ok := m.dialogOf(r)
	switch {
	case !ok && r.Stall != nil && isDialog(r.Stall.Pattern):
		m.say(fmt.Sprintf("%s waits at a Claude Code dialog whose options are not on screen (yet): t attaches", m.who(r.key())), true)
		return nil
	case !ok:
		return m.answer(r.key(), model.Answer{Reply: reply})
	}
	o, ok := d.Yes()
	word := "yes"
	if reply == "n" {
		o, ok = d.No()
		word = "no"
	}
	if !ok {
		m.say(fmt.Sprintf("%s's dialog has no single plain %s: choose its option by number (%s)", m.who(r.key()), word, d.Describe(optionWidth)), true)
		return nil
	}
	return m.answer(r.key(), model.Answer{Reply: reply, Expect: o.String()})
}

// choose answers with the option numbered n of the dialog on r's screen.
func (m *Model) choose(r *row, n string) tea.Cmd {
	who := m.who(r.key())
	d, ok := m.dialogOf(r)
	if !ok {
		m.say(fmt.Sprintf("%s shows no options to choose from: y/n answer a prompt, t attaches", who), true)
		return nil
	}
	i, _ := strconv.Atoi(n)
	o, ok := d.Number(i)
	if !ok {
		m.say(fmt.Sprintf("%s's dialog has no option %d: %s", who, i, d.Describe(optionWidth)), true)
		return nil
	}
	return m.answer(r.key(), model.Answer{Reply: n, Expect: o.String()})
}

// optionWidth is how much of an option's text the status line quotes.
const optionWidth = 28

func (m *Model) answer(k memberKey, a model.Answer) tea.Cmd {
	m.acted(k)
	who := m.who(k)
	m.say(fmt.Sprintf("answering %s…", who), false)
	return m.action(func(ctx context.Context) (string, error) {
		got, err := m.o.Backend.Answer(ctx, k.team, k.name, a)
		if got.Option != "" {
			return fmt.Sprintf("chose %q for %s (sent %s)", got.Option, who, strings.Join(got.Keys, " ")), err
		}
		return fmt.Sprintf("sent %s to %s", strings.Join(got.Keys, " "), who), err
	})
}

func (m *Model) approve(k memberKey) tea.Cmd {
	m.acted(k)
	who := m.who(k)
	return m.action(func(ctx context.Context) (string, error) {
		id, err := m.o.Backend.Approve(ctx, k.team, k.name)
		return fmt.Sprintf("approved %s's request %s", who, textsafe.Visible(id)), err
	})
}

func (m *Model) deny(k memberKey, reason string) tea.Cmd {
	m.acted(k)
	who := m.who(k)
	return m.action(func(ctx context.Context) (string, error) {
		id, err := m.o.Backend.Deny(ctx, k.team, k.name, reason)
		return fmt.Sprintf("denied %s's request %s", who, textsafe.Visible(id)), err
	})
}

func (m *Model) send(k memberKey, text string) tea.Cmd {
	who := m.who(k)
	return m.action(func(ctx context.Context) (string, error) {
		how, err := m.o.Backend.Send(ctx, k.team, k.name, text)
		return fmt.Sprintf("sent to %s: %s", who, how), err
	})
}

func (m *Model) restart(k memberKey) tea.Cmd {
	m.acted(k)
	who := m.who(k)
	m.say("restarting "+who+"…", false)
	return m.action(func(ctx context.Context) (string, error) {
		pid, err := m.o.Backend.Restart(ctx, k.team, k.name)
		return fmt.Sprintf("restarted %s (pid %d)", who, pid), err
	})
}

// release lets a member its budget held go (teamctl resume-member).
func (m *Model) release(k memberKey) tea.Cmd {
	m.acted(k)
	who := m.who(k)
	m.say("releasing "+who+"…", false)
	return m.action(func(ctx context.Context) (string, error) {
		reason, err := m.o.Backend.Release(ctx, k.team, k.name)
		return fmt.Sprintf("released %s (held for %s)", who, reason), err
	})
}

// attach prepares the attachment off the UI; attachMsg then suspends the UI
// for it (tea.ExecProcess) until the person detaches.
func (m *Model) attach(k memberKey) tea.Cmd {
	who, ctx := m.who(k), m.o.Ctx
	return func() tea.Msg {
		cmd, prefix, err := m.o.Backend.Attach(ctx, k.team, k.name)
		if err != nil {
			return failMsg{err}
		}
		return attachMsg{member: who, prefix: prefix, cmd: cmd}
	}
}

func (m *Model) detachKeys(prefix string) string {
	if prefix == "" {
		prefix = "C-b"
	}
	if m.o.Nested {
		return prefix + " " + prefix + " d"
	}
	return prefix + " d"
}

package cockpit

// The members' work: what each worktree changed (the table's CHANGES),
// read off the UI when a team is first looked at and again after a turn
// ends or the radar speaks, never per frame; its diff in the pager; its merge.

import (
	"context"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team/model"
)

// readChanges reads the team's changes off the UI; asked while a read runs,
// it reads once more after it (what changed meanwhile is not lost).
func (m *Model) readChanges(team string) tea.Cmd {
	if m.reading[team] {
		m.readAgain[team] = true
		return nil
	}
	m.reading[team], m.readAgain[team] = true, false
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		ch, err := m.o.Backend.Changes(ctx, team)
		return changesMsg{team, ch, err}
	}
}

// setChanges keeps what each member's worktree changed. Members without a
// worktree of their own share a checkout: it is no one member's work, so
// their cells stay empty (teamctl diff shows it, once).
func (m *Model) setChanges(msg changesMsg) tea.Cmd {
	m.reading[msg.team] = false
	if !m.followsTeam(msg.team) {
		return nil // a team no longer shown
	}
	byMember := map[string]change{}
	if msg.err == nil && msg.ch != nil {
		for _, w := range msg.ch.Work {
			if !w.Worktree || w.Member == "" {
				continue
			}
			byMember[w.Member] = change{files: len(w.Files), added: w.Added, deleted: w.Deleted, err: w.Error != ""}
		}
	}
	m.changes[msg.team] = byMember // also on an error: read again after the next turn, not on every look
	if m.readAgain[msg.team] {
		return m.readChanges(msg.team)
	}
	return nil
}

func (m *Model) followsTeam(team string) bool { return slices.Contains(m.followed, team) }

// changeCell is a member's CHANGES: files +added −deleted; empty without a
// worktree of its own or before its changes are read.
func (m *Model) changeCell(r *row) string {
	c, ok := m.changes[r.Team][r.Name]
	switch {
	case !ok:
		return ""
	case c.err:
		return "?"
	case c.files == 0:
		return "0"
	}
	return fmt.Sprintf("%d +%d −%d", c.files, c.added, c.deleted)
}

// hasWorktree says whether teamctl made the member a worktree of its own.
func (m *Model) hasWorktree(k memberKey) bool {
	s := m.snaps[k.team]
	if s == nil {
		return false
	}
	_, ok := s.Worktrees[k.name]
	return ok
}

// diff prepares the member's diff off the UI; diffMsg then suspends the UI
// for the pager (tea.ExecProcess) until the person quits it.
func (m *Model) diff(k memberKey) tea.Cmd {
	who, ctx := m.who(k), m.o.Ctx
	return func() tea.Msg {
		cmd, err := m.o.Backend.DiffCmd(ctx, k.team, k.name)
		if err != nil {
			return failMsg{err}
		}
		return diffMsg{member: who, cmd: cmd}
	}
}

// merge lands the member's branch in its base, off the UI; mergedMsg then
// says how it went and has the team's changes read again (what landed is no
// longer the member's alone).
func (m *Model) merge(k memberKey) tea.Cmd {
	m.acted(k)
	who, ctx := m.who(k), m.o.Ctx
	m.say("merging "+who+"…", false)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		res, err := m.o.Backend.Merge(ctx, k.team, k.name)
		if err != nil {
			return mergedMsg{team: k.team, err: fmt.Errorf("merge %s: %w", who, err)}
		}
		text, err := mergeOutcome(who, res)
		return mergedMsg{k.team, text, err}
	}
}

// mergedMsg is a merge's outcome.
type mergedMsg struct {
	team, text string
	err        error
}

// mergeOutcome is what a merge landed, or why it refused, for the status line.
func mergeOutcome(who string, res *model.MergeResult) (string, error) {
	if r := res.Refused; r != nil { // its why names a conflict's files
		return "", fmt.Errorf("merge of %s refused: %s", who, textsafe.Visible(r.Why))
	}
	if len(res.Landed) == 0 {
		return "", fmt.Errorf("merge of %s: nothing landed", who)
	}
	l := res.Landed[0]
	into := textsafe.Visible(l.Into)
	if l.UpToDate {
		return fmt.Sprintf("%s had nothing %s did not have", who, into), nil
	}
	commits := fmt.Sprintf("%d commits", l.Commits)
	if l.Commits == 1 {
		commits = "1 commit"
	}
	text := fmt.Sprintf("merged %s's %s into %s (%s)", who, textsafe.Visible(l.Branch), into, commits)
	if l.WIP != "" {
		text += ", its uncommitted work committed first"
	}
	return text, nil
}

// mergeQuestion is the confirmation line of a merge: what lands where.
func (m *Model) mergeQuestion() string {
	what := "its branch"
	if s := m.snaps[m.target.team]; s != nil && s.Worktrees[m.target.name].Branch != "" {
		what = textsafe.Visible(s.Worktrees[m.target.name].Branch)
	}
	return fmt.Sprintf("merge %s's %s into its base? y merges it, any other key cancels", m.who(m.target), what)
}

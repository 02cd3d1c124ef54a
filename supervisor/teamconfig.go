package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// checkConfig keeps a config.json in the team's folder while layout
// teammates run: without one their permission requests fail silently. A
// Claude Code lead removes its team folder when it ends (/exit); teamctl then
// writes a placeholder (claudecode.PlaceholderTeamConfig), which the lead,
// restarted, takes over under the same name. With no layout teammate running
// nothing is written: the lead makes its own, and a folder made before it
// would send it to another team. It also reports changes to the member list.
// It never rewrites a config that exists: that file is the lead's. One it
// would not read (too large, a link) is reported once (file-refused). r is
// the team's config.json as read.
func (s *daemon) checkConfig(ctx context.Context, r configRead) {
	path, cfg, err := r.path, r.cfg, r.err
	var large *claudecode.TooLargeError
	var link *claudecode.LinkError
	switch {
	case errors.As(err, &large):
		s.refusals(filewatch.Config, map[string]error{path: err})
	case errors.As(err, &link):
		s.refusals(filewatch.Config, map[string]error{link.Path: err})
	default:
		s.refusals(filewatch.Config, nil)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if !s.teammatesRunning() {
			return
		}
		if written, werr := claudecode.EnsureTeamConfig(s.claudeDir, s.st.ClaudeTeam, s.st.ClaudeLeadSession(), s.leadCwd(), s.clock.Now()); werr != nil {
			s.log.Warn("recreate team config", "err", werr)
		} else if written {
			s.event(state.Event{Kind: state.EventConfig, Detail: "the team's config.json was gone while teammates run; wrote a placeholder so they can reach the lead (a restarting lead takes it over)"})
		}
		return
	}
	if err != nil {
		return // being written, or not ours to judge
	}
	now := map[string]bool{}
	for _, m := range cfg.Members {
		now[m.Name] = true
	}
	if s.seen.members != nil {
		var joined, left []string
		for name := range now {
			if !s.seen.members[name] {
				joined = append(joined, name)
			}
		}
		for name := range s.seen.members {
			if !now[name] {
				left = append(left, name)
			}
		}
		s.memberEvents(joined, "joined the team's config.json")
		s.memberEvents(left, "left the team's config.json")
		if len(joined) > 0 {
			s.syncLater() // a pane that waits for a name has it now
			defer s.earlyAgain(ctx)
		}
	}
	s.seen.members = now
}

// memberEventsMax is how many members joining (or leaving) the team's
// config.json one pass names in events of their own; the rest are one event.
// An agent can write config.json: one write with 15,000 members once made
// 15,006 events at once, and rotated the team's history (its permission
// requests, stalls, notifications) out of events.jsonl.
const memberEventsMax = 10

// memberEvents records a member event (detail what) for each of names, in
// order of name, the first memberEventsMax of them; the rest, however many,
// are counted in one more.
func (s *daemon) memberEvents(names []string, what string) {
	slices.Sort(names)
	for i, name := range names {
		if i == memberEventsMax {
			rest := names[i:]
			s.event(state.Event{Kind: state.EventMember, Detail: fmt.Sprintf("%d more members %s, not said one by one (%s, …)",
				len(rest), what, textsafe.Short(strings.Join(rest[:min(len(rest), 5)], ", "), 200))})
			return
		}
		s.event(state.Event{Kind: state.EventMember, Member: name, Detail: what})
	}
}

// promptWatch is how long after the lead took a placeholder config over the
// daemon keeps looking for the prompts it left there (Claude Code may empty
// inboxes/ a moment after it writes its config), and promptLook how often.
const (
	promptWatch = 2 * time.Minute
	promptLook  = time.Second
)

// checkPromptsInPlaceholder gives the layout teammates whose prompt up left in
// a placeholder's mailboxes their prompt again when a Claude Code lead, taking
// the placeholder over, emptied inboxes/ before they read it (seen, 2.1.328:
// the teammate then waits forever). Only a mailbox that is gone gets it again,
// and only for a teammate without a stored conversation (one that has it
// took its prompt): a prompt is never given twice to a teammate that read it.
// r is the team's config.json as read: the lead's own once it took the
// placeholder over.
func (s *daemon) checkPromptsInPlaceholder(ctx context.Context, r configRead) {
	pending := s.st.PromptsInPlaceholder
	if len(pending) == 0 {
		return
	}
	if cfg, err := r.cfg, r.err; err != nil || cfg.LeadProcess == nil || cfg.IsPlaceholder() {
		if s.takenOver.IsZero() {
			return // not taken over yet: a change to the config brings the daemon back
		}
	} else if s.takenOver.IsZero() {
		s.takenOver = s.clock.Now()
	}
	var keep []string
	for _, name := range pending {
		m, ok := s.st.Member(name)
		prompt := s.lay.PromptOf(name)
		if !ok || prompt == "" || claudecode.SessionExists(s.claudeDir, m.SessionID) {
			continue
		}
		inbox, err := claudecode.InboxPath(s.claudeDir, s.st.ClaudeTeam, name)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(inbox); errors.Is(err, fs.ErrNotExist) {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := claudecode.DeliverPrompt(pctx, s.claudeDir, s.st.ClaudeTeam, name, prompt)
			cancel()
			if err != nil {
				s.log.Warn("give a prompt again", "member", name, "err", err)
				keep = append(keep, name)
				continue
			}
			s.event(state.Event{Kind: state.EventConfig, Member: name, Detail: "the lead took the placeholder team config over and emptied its mailboxes before " + name + " read its prompt; gave it again"})
			continue
		}
		if s.clock.Now().Sub(s.takenOver) < promptWatch {
			keep = append(keep, name)
		}
	}
	if len(keep) != len(pending) {
		uctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := s.updateTeam(uctx, func(st *state.Team) { st.PromptsInPlaceholder = keep }); err != nil {
			s.log.Error("state", "err", err)
		}
	}
	if len(keep) > 0 {
		s.clock.AfterFunc(promptLook, func() { s.files.Mark(filewatch.Config) })
	}
}

// teammatesRunning reports whether a teammate of the layout's runs: one that
// needs the team's config.json to reach the lead.
func (s *daemon) teammatesRunning() bool {
	for _, m := range s.st.Members {
		if m.Role != state.RoleTeammate || m.Origin == state.OriginLead {
			continue
		}
		if w := s.watchOf(m.Name); w != nil && !w.live.State.Ended() {
			return true
		}
	}
	return false
}

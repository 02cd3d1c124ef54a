package supervisor

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/notify"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
	"github.com/teamctl/teamctl/usage"
)

// What the members spend and the layout's budgets. The daemon follows each
// member's Claude Code transcripts with a usage.Meter (only the bytes written
// since the last look are read; the one reader of each transcript, whose
// responses tell the usage limits too whether the last answer met a limit:
// transcriptSaid), when the file watch says a transcript
// changed (filewatch.Transcripts, at most once a second however busy the
// team) and when a member's turn ends (usageSoon); it never polls the disk.
// Each member's totals go to live.json (state.Live.Usage), where status,
// teams and top read them. When a budget's warning threshold or the budget
// itself is crossed, it says so once (a usage event and watchdog.notify's
// command), also across restarts of the daemon (state.Live.Budgets.Said);
// at the budget, budget.action: notify does nothing more, interrupt sends
// Escape to the member and holds it, stop shuts it down (budgetstop.go) and
// holds it. A held member is restarted by nothing and typed into by nothing
// of the daemon's until `teamctl resume-member` (an event, fromEvent)
// releases it.

// spending is the daemon's side of it. The daemon's loop alone uses it.
type spending struct {
	prices  *usage.Table
	meters  map[string]*usage.Meter // by member name (teammates gone from the state included)
	dirs    string                  // the transcripts' folders last given to the file watch
	saved   time.Time               // when a change of the members' usage alone was last written
	unsaved bool                    // a change of usage is not in live.json yet
	soon    bool                    // a look is due (usageSoon)
	looked  time.Time               // when the members' sessions were last looked for
	members string                  // the members' names then: a new member is looked for at once
	noted   map[string]bool         // the transcripts' problems already logged
	refused map[string]bool         // the transcripts refused (usage.Refused) already said, by path
}

// usageDue marks a look at the transcripts due (filewatch.Watcher.Mark): a
// turn ended (usageSoon).
const usageDue filewatch.Kind = "usage"

// usageDelay is how long after a turn ends its transcript is looked at: the
// last response is on disk by then, and a burst of turns is one look.
var usageDelay = time.Second

// usageSaveEvery is how often at most a change of the members' usage alone
// (no budget's threshold crossed, no member held) is written to live.json:
// each write is an atomic replace (an fsync), and a busy team's usage
// changes every second. What a budget does is written at once.
const usageSaveEvery = 5 * time.Second

// sessionsEvery is how often the members' sessions are looked for again
// (usage.MemberSessions reads the head of every transcript to find the
// teammates the lead spawned): new members are looked for at once.
const sessionsEvery = time.Minute

// usageBegin starts following what the members spend: the price table,
// what an earlier daemon's budgets said and held (prev), a first look.
func (s *daemon) usageBegin(ctx context.Context, prev *state.Live) {
	b := &s.spend
	if b.prices == nil {
		t, err := usage.LoadPrices()
		if err != nil {
			s.log.Warn("price file", "err", err)
		}
		b.prices = t
	}
	if prev != nil && prev.Budgets != nil {
		s.live.Budgets = prev.Budgets
	}
	s.updateUsage(ctx)
}

// usageSoon has the transcripts looked at shortly (a turn ended).
func (s *daemon) usageSoon() {
	if s.spend.soon || s.files == nil {
		return
	}
	s.spend.soon = true
	files := s.files
	s.clock.AfterFunc(usageDelay, func() { files.Mark(usageDue) })
}

// updateUsage reads what the members' transcripts gained, records each
// member's totals in live.json when they changed, and decides the budgets.
func (s *daemon) updateUsage(ctx context.Context) {
	b := &s.spend
	b.soon = false
	now := s.clock.Now().UTC()
	names := s.memberNames()
	switch {
	case b.meters == nil || names != b.members || now.Sub(b.looked) >= sessionsEvery:
		s.lookForSessions(names, now)
	case s.spawnedUnfound():
		// A teammate the lead spawned is found by its transcript, which it
		// writes only at its first turn, often after it joined (the look
		// then found nothing): looked for at every change of the
		// transcripts until found, at most once a usageDelay, or its
		// spending would wait for the next sessionsEvery look, which only
		// a change brings (a quiet team never had it).
		if now.Sub(b.looked) >= usageDelay {
			s.lookForSessions(names, now)
		} else {
			defer s.usageSoon()
		}
	}
	s.followAgents()
	if s.live.Usage == nil {
		s.live.Usage = map[string]*state.MemberUsage{}
	}
	dirs := []string{filepath.Join(s.claudeDir, "projects")}
	for _, name := range sortedKeys(b.meters) {
		m := b.meters[name]
		t, notes := m.Update()
		s.noteTranscripts(name, notes)
		u := liveUsage(t)
		if old := s.live.Usage[name]; old == nil || old.Turns != u.Turns || old.Cost != u.Cost || old.Tokens() != u.Tokens() {
			u.Updated = now
			s.live.Usage[name] = u
			b.unsaved = true
		}
		dirs = append(dirs, transcriptDirs(m.Files())...)
	}
	// Given again only when they changed (a transcript found): the watch
	// itself takes the folders that come later (a session's subagents').
	if joined := strings.Join(dirs, "\x00"); s.files != nil && joined != b.dirs {
		b.dirs = joined
		s.files.FollowTranscripts(dirs)
	}
	switch {
	case s.checkBudgets(ctx):
		s.saveLive()
	case b.unsaved && now.Sub(b.saved) >= usageSaveEvery:
		s.saveLive()
	case b.unsaved && !b.soon:
		s.usageSoon() // written at the next look, whether or not more comes
	}
}

// lookForSessions finds every member's Claude Code sessions (every life of
// the team; the teammates the lead spawned by their transcripts) and follows
// the new ones.
func (s *daemon) lookForSessions(names string, now time.Time) {
	b := &s.spend
	b.looked, b.members = now, names
	if b.meters == nil {
		b.meters = map[string]*usage.Meter{}
	}
	found, err := usage.MemberSessions(s.st, s.claudeDir)
	if err != nil {
		s.log.Warn("members' sessions", "err", err)
	}
	for _, r := range found.Refused {
		// Said once a file: it is looked at again every sessionsEvery.
		if b.refused == nil {
			b.refused = map[string]bool{}
		}
		if !b.refused[r.Path] && len(b.refused) < 1000 {
			b.refused[r.Path] = true
			s.event(state.Event{Kind: state.EventFileRefused, Member: r.Name, Detail: "not counted: transcript " + r.String()})
		}
	}
	for name, ids := range found.ByMember {
		if m := b.meters[name]; m != nil {
			for _, id := range ids {
				m.AddSession(id) // ids are valid: MemberSessions keeps only those
			}
			continue
		}
		if _, err := s.newMeter(name, ids); err != nil {
			s.log.Warn("usage", "member", name, "err", err)
		}
	}
}

// followAgents follows the records of each Codex or Gemini member not
// followed yet (its own CLI's, in its home): cheap, it runs at each look.
func (s *daemon) followAgents() {
	b := &s.spend
	for i := range s.st.Members {
		m := &s.st.Members[i]
		if m.Agent == "" || b.meters[m.Name] != nil {
			continue
		}
		home, err := state.AgentHome(s.st.Team, m.Name, m.Agent)
		var mt *usage.Meter
		if err == nil {
			mt, err = s.newMeter(m.Name, nil)
		}
		if err == nil {
			err = mt.AddAgent(m.Agent, home)
		}
		if err != nil {
			s.log.Warn("usage", "member", m.Name, "err", err)
		}
	}
}

// spawnedUnfound reports whether a teammate the lead spawned has no
// session found yet.
func (s *daemon) spawnedUnfound() bool {
	for i := range s.st.Members {
		m := &s.st.Members[i]
		if usage.SpawnedByLead(m) && s.spend.meters[m.Name] == nil {
			return true
		}
	}
	return false
}

// newMeter follows member name's sessions ids: what they spend, and what
// else their main transcripts say (transcriptSaid: a usage limit met).
func (s *daemon) newMeter(name string, ids []string) (*usage.Meter, error) {
	m, err := usage.NewMeter(s.claudeDir, ids, s.spend.prices, time.Time{})
	if err != nil {
		return nil, err
	}
	m.OnMain = func(session string, r transcript.Response) { s.transcriptSaid(name, session, r) }
	if s.spend.meters == nil {
		s.spend.meters = map[string]*usage.Meter{}
	}
	s.spend.meters[name] = m
	return m, nil
}

// readTranscripts reads what member name's transcripts gained, its session
// session's among them (followed from now on if it was not): the limits
// look at the moment they judge a screen, not at the next look at usage.
// The totals it moves are recorded at that next look.
func (s *daemon) readTranscripts(name, session string) {
	m := s.spend.meters[name]
	if m == nil {
		var err error
		if m, err = s.newMeter(name, []string{session}); err != nil {
			return
		}
	} else if m.AddSession(session) != nil {
		return
	}
	_, notes := m.Update()
	s.noteTranscripts(name, notes)
}

// memberNames are the team's members' names, as one string.
func (s *daemon) memberNames() string {
	var names []string
	for _, m := range s.st.Members {
		names = append(names, m.Name)
	}
	return strings.Join(names, " ")
}

// noteTranscripts logs what was wrong in a member's transcripts, each once.
func (s *daemon) noteTranscripts(member string, notes []string) {
	b := &s.spend
	if b.noted == nil {
		b.noted = map[string]bool{}
	}
	for _, n := range notes {
		if !b.noted[n] && len(b.noted) < 1000 {
			b.noted[n] = true
			s.log.Warn("transcript", "member", member, "note", n)
		}
	}
}

// liveUsage is a member's totals as live.json has them.
func liveUsage(t usage.Totals) *state.MemberUsage {
	return &state.MemberUsage{Input: t.Input, Output: t.Output, CacheWrite: t.CacheWrite, CacheRead: t.CacheRead,
		Turns: t.Turns, Cost: t.Cost, Models: t.Models(), NoPrice: t.NoPrice()}
}

// transcriptDirs are the folders whose changes say a session of files
// wrote: their own, and each main transcript's subagents' folders (which
// Claude Code makes once a subagent starts).
func transcriptDirs(files []string) []string {
	var out []string
	for _, f := range files {
		d := filepath.Dir(f)
		out = append(out, d)
		if filepath.Base(d) != "subagents" {
			own := strings.TrimSuffix(f, ".jsonl")
			out = append(out, own, filepath.Join(own, "subagents"))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkBudgets says each threshold newly crossed and acts on each budget
// newly spent; it reports whether it did anything.
func (s *daemon) checkBudgets(ctx context.Context) bool {
	if s.lay == nil {
		return false
	}
	did := false
	var agents []string // the members that spend: Claude Code's, Codex's, Gemini's
	var team float64
	for _, u := range s.live.Usage {
		team += u.Cost
	}
	for _, m := range s.st.Members {
		if m.Role == state.RoleProcess && m.Agent == "" {
			continue // a plain process spends nothing teamctl can count
		}
		agents = append(agents, m.Name)
		limit, warn, action := s.lay.MemberLimit(m.Name)
		if u := s.live.Usage[m.Name]; limit > 0 && u != nil {
			did = s.threshold(ctx, budgetOf{key: "member/" + m.Name, member: m.Name, limit: limit, warn: warn, action: action, who: []string{m.Name}}, u.Cost) || did
		}
	}
	if b := s.lay.Budget; b.Team > 0 {
		did = s.threshold(ctx, budgetOf{key: "team", limit: b.Team, warn: b.Warn, action: b.Action, who: agents}, team) || did
	}
	return did
}

// budgetOf is one budget: a member's (member set) or the team's.
type budgetOf struct {
	key, member string
	limit, warn float64
	action      string
	who         []string // the members its action is taken on
}

func (b budgetOf) whose() string {
	if b.member == "" {
		return "the team"
	}
	return b.member
}

// threshold says b's warning threshold or b spent, each once (the key names
// the budget as it is now: one raised in the layout is said again).
func (s *daemon) threshold(ctx context.Context, b budgetOf, spent float64) bool {
	limitKey := fmt.Sprintf("%s/limit/%g", b.key, b.limit)
	warnKey := fmt.Sprintf("%s/warn/%g/%g", b.key, b.limit, b.warn)
	switch {
	case spent >= b.limit && !s.said(limitKey):
		s.say(limitKey, warnKey) // past the warning too: the one message says both
		what := fmt.Sprintf("%s has spent its %s budget: %s", b.whose(), money(b.limit), money(spent))
		line := what + s.budgetAction(b)
		s.event(state.Event{Kind: state.EventUsage, Member: b.member, Pattern: "budget-spent", Detail: line})
		s.tell(ctx, b.member, "budget-spent", line)
		s.actOnBudget(ctx, b, what)
		return true
	case spent >= b.warn*b.limit && spent < b.limit && !s.said(warnKey):
		s.say(warnKey)
		line := fmt.Sprintf("%s has spent %s of its %s budget (%.0f%%; warning at %.0f%%)", b.whose(), money(spent), money(b.limit), 100*spent/b.limit, 100*b.warn)
		s.event(state.Event{Kind: state.EventUsage, Member: b.member, Pattern: "budget-warn", Detail: line})
		s.tell(ctx, b.member, "budget-warn", line)
		return true
	}
	return false
}

// budgetAction is what the usage event says is done about b spent.
func (s *daemon) budgetAction(b budgetOf) string {
	switch b.action {
	case "interrupt":
		return fmt.Sprintf("; interrupted and held until `teamctl resume-member %s`", strings.Join(b.who, " "))
	case "stop":
		return fmt.Sprintf("; stopped and held until `teamctl resume-member %s`", strings.Join(b.who, " "))
	}
	return ""
}

// said tells whether the threshold key was said; say records keys said.
func (s *daemon) said(key string) bool {
	return s.live.Budgets != nil && slices.Contains(s.live.Budgets.Said, key)
}

func (s *daemon) say(keys ...string) {
	if s.live.Budgets == nil {
		s.live.Budgets = &state.Budgets{}
	}
	for _, k := range keys {
		if !slices.Contains(s.live.Budgets.Said, k) {
			s.live.Budgets.Said = append(s.live.Budgets.Said, k)
		}
	}
}

// tell runs watchdog.notify's command about a budget, as stalls do.
func (s *daemon) tell(ctx context.Context, member, pattern, line string) {
	cmd := s.lay.Watchdog.Notify.Command
	if len(cmd) == 0 {
		return
	}
	summary := fmt.Sprintf("%s: %s", s.team, line)
	go func() {
		if err := notify.Tell(ctx, cmd, s.team, member, pattern, line, summary); err != nil {
			s.log.Warn("notify command", "argv", cmd, "err", err)
		}
	}()
}

// actOnBudget takes b's action on its members: interrupt (Escape) or stop,
// and the hold in both cases; notify does nothing more.
func (s *daemon) actOnBudget(ctx context.Context, b budgetOf, what string) {
	if b.action != "interrupt" && b.action != "stop" {
		return
	}
	for _, name := range b.who {
		if _, held := s.live.HeldMember(name); held {
			continue
		}
		reason := "budget: " + what
		w := s.watchOf(name)
		if b.action == "stop" {
			s.hold(name, w, reason+"; stopped", true)
			s.stopForBudget(ctx, name, w, what)
			continue
		}
		s.hold(name, w, reason+"; interrupted", false)
		if w != nil && !w.live.State.Ended() {
			if _, err := s.srv.Run(ctx, "send-keys", "-t", w.id, "--", "Escape"); err != nil {
				s.log.Warn("interrupt for the budget", "member", name, "err", err)
			}
		}
	}
}

// hold holds member name: nothing of the daemon's restarts it or types
// into it until it is released.
func (s *daemon) hold(name string, w *paneWatch, reason string, stopped bool) {
	if s.live.Budgets == nil {
		s.live.Budgets = &state.Budgets{}
	}
	if s.live.Budgets.Held == nil {
		s.live.Budgets.Held = map[string]state.Hold{}
	}
	s.live.Budgets.Held[name] = state.Hold{Since: s.clock.Now().UTC(), Reason: reason, Stopped: stopped}
	pane := ""
	if w != nil {
		pane = w.id
		if w.restartTimer != nil {
			w.restartTimer.Stop()
		}
	}
	s.event(state.Event{Kind: state.EventHeld, Member: name, Pane: pane, Detail: reason})
}

// heldMember tells whether member name is held.
func (s *daemon) heldMember(name string) bool {
	_, ok := s.live.HeldMember(name)
	return ok
}

// release lets member name go, as `teamctl resume-member` asked (its
// released event): a member stopped for its budget is started again (its
// conversation resumed), an interrupted one looked at afresh, and the
// lead's waiting notes typed once it is idle.
func (s *daemon) release(ctx context.Context, name string) {
	h, ok := s.live.HeldMember(name)
	if !ok {
		return
	}
	delete(s.live.Budgets.Held, name)
	s.saveLive()
	w := s.watchOf(name)
	if w == nil {
		return
	}
	switch {
	case h.Stopped && w.live.State == state.StateExited:
		id := w.id
		w.restartTimer = s.clock.AfterFunc(0, func() { s.restart <- id })
	case w.live.State == state.StateIdle:
		s.notifier.idle(ctx, w)
	default:
		s.requestCapture(w)
	}
}

// money is an amount as budgets say it.
func money(v float64) string { return fmt.Sprintf("$%.2f", v) }

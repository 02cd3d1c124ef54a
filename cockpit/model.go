// Package cockpit is `teamctl top`: one live terminal screen of a team, or of
// every team up — every member with its state, what it waits on, the bottom
// of the selected member's pane, the teams' events — where a person acts on a
// member with one key. It is a Bubble Tea program (charm.land/bubbletea/v2).
//
// The model (model.go, what it talks to and the messages it gets in
// messages.go, its keys and actions in keys.go and actions.go, the
// members' work — changes, diff, merge — in changes.go, its view in view.go,
// table.go and detail.go) is pure: it is fed messages — the
// teams' statuses, their events, the selected pane's screen, keys — and does
// everything through two small interfaces: a Backend, the very functions
// teamctl's commands call (so an action is the command's own code path and is
// recorded in events.jsonl as the command records it), and a Feed, which
// follows the teams (feed.go, follower.go, control.go, scout.go: their state
// folders through state.Watch, the selected member's tmux server through a
// control-mode client) and hands the program what changed. backend.go is the
// only file that knows where those functions live.
package cockpit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/teamctl/teamctl/team/model"
	teamview "github.com/teamctl/teamctl/team/view"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
)

// mode is what keys go to.
type mode int

const (
	modeTable   mode = iota
	modeHelp         // the list of keys
	modeInput        // a one-line input (send, deny's reason)
	modeConfirm      // restart or merge? y
)

// maxEvents is how many of the team's latest events the model keeps.
const maxEvents = 200

// Options configure a Model.
type Options struct {
	Team    string   // the team shown, unless All
	All     bool     // the all-teams view: every member of every team up
	Teams   []string // the teams up, as far as the caller knows
	Backend Backend
	Feed    Feed
	Color   bool             // colours (off with NO_COLOR or on a dumb terminal)
	Bell    bool             // ring when someone starts waiting for a person
	Notify  string           // "osc9" to notify with OSC 9 instead of BEL
	Nested  bool             // inside another tmux: detaching takes the prefix twice
	Now     func() time.Time // the clock (tests fix it)
	Ctx     context.Context  // the program's: actions run under it
}

// memberKey names a member among several teams: every team has its lead.
type memberKey struct{ team, name string }

// row is a member in the table, with its team.
type row struct {
	Team string
	model.MemberStatus
}

func (r *row) key() memberKey { return memberKey{r.Team, r.Name} }

// Model is the cockpit's state.
type Model struct {
	o        Options
	st       styles
	all      bool     // the all-teams view
	team     string   // the team shown outside the all view
	teams    []string // the teams up, as last listed
	followed []string // the teams the feed follows: those shown
	others   bool     // and the feed watches for other teams coming up
	snaps    map[string]*Snapshot
	errs     map[string]error // by team: the last look at it failed
	rows     []row
	sel      memberKey // the selected member: it stays selected as rows move
	// actedOn is the member a key just acted on (answered, approved…), at
	// row actedRow: when its row moves away (answered, it sorts lower), the
	// selection stays at that row, on whoever comes there (the next waiting
	// member), as k9s and lazygit keep theirs, instead of going with it.
	actedOn   memberKey
	actedRow  int
	settled   bool    // every team shown has been looked at, or a member picked
	top       int     // the first table row shown
	events    []Event // the followed teams', oldest first, each with its Team
	screen    ScreenMsg
	focusTeam string // the team and pane the feed was told to focus
	focus     string
	listing   bool // the teams up are being listed
	listAgain bool // and are to be listed again after

	width, height int
	mode          mode
	input         textinput.Model
	inputFor      string    // "send" or "deny"
	target        memberKey // the member an input or a confirmation is about
	confirmFor    string    // "restart" or "merge"
	status        string    // the last action's outcome, or an error
	statusErr     bool
	bell          bool
	waiting       map[string]map[string]time.Time // by team, members waiting for a person → since
	looked        map[string]bool                 // a status of the team arrived: its next new waiter rings
	changes       map[string]map[string]change    // by team and member: what its worktree changed
	reading       map[string]bool                 // by team: its changes are being read
	readAgain     map[string]bool                 // and are to be read again after
}

// change is what a member's worktree changed since its base, as diff --stat
// counts it (err: it could not be read).
type change struct {
	files, added, deleted int
	err                   bool
}

// New returns the model of a cockpit on o.Team, or on every team up (o.All).
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Ctx == nil {
		o.Ctx = context.Background()
	}
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 4000
	// A steady cursor: a blinking one wakes the program twice a second.
	ist := textinput.Styles{} // no colour: the cursor is reverse video
	if o.Color {
		ist = textinput.DefaultDarkStyles()
		ist.Cursor.Blink = false
	}
	in.SetStyles(ist)
	m := &Model{o: o, st: newStyles(o.Color), all: o.All, team: o.Team, input: in, bell: o.Bell,
		snaps: map[string]*Snapshot{}, errs: map[string]error{},
		waiting: map[string]map[string]time.Time{}, looked: map[string]bool{},
		changes: map[string]map[string]change{}, reading: map[string]bool{}, readAgain: map[string]bool{}, width: 80, height: 24}
	m.setTeams(o.Teams)
	return m
}

// Init starts following the teams shown and the clock.
func (m *Model) Init() tea.Cmd {
	m.followed, m.others = m.shown(), m.all
	m.o.Feed.Follow(m.followed, m.others)
	m.refocus()
	return tea.Batch(m.tick(), m.relist())
}

// tick redraws once a second, so that durations go on.
func (m *Model) tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// relist lists the teams up, off the UI; asked while a listing runs, it
// lists once more after it.
func (m *Model) relist() tea.Cmd {
	if m.listing {
		m.listAgain = true
		return nil
	}
	m.listing, m.listAgain = true, false
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		teams, err := m.o.Backend.UpTeams(ctx)
		return teamsMsg{teams, err}
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(10, m.width-30))
		m.scroll()
		return m, nil
	case tickMsg:
		return m, m.tick()
	case StatusMsg:
		if !slices.Contains(m.followed, msg.Team) {
			return m, nil // about a team no longer shown
		}
		return m, m.setStatus(msg)
	case EventsMsg:
		if !slices.Contains(m.followed, msg.Team) {
			return m, nil
		}
		return m, m.addEvents(msg)
	case ScreenMsg:
		if msg.Team == m.focusTeam && msg.Pane == m.focus { // a late capture of a pane left is dropped
			m.screen = msg
		}
		return m, nil
	case TeamsChangedMsg:
		if m.all {
			return m, m.relist()
		}
		return m, nil
	case teamsMsg:
		m.listing = false
		if msg.err == nil { // else tab says so when it is pressed
			m.setTeams(msg.teams)
			m.follow()
		}
		if m.listAgain {
			return m, m.relist()
		}
		return m, nil
	case switchMsg:
		m.setTeams(msg.teams)
		stops := m.stops()
		if len(stops) < 2 {
			m.say("no other team is up", false)
			return m, nil
		}
		here := m.team
		if m.all {
			here = ""
		}
		next := stops[(slices.Index(stops, here)+1)%len(stops)]
		m.show(next == "", next)
		return m, nil
	case doneMsg:
		m.say(msg.text, false)
		return m, nil
	case failMsg:
		m.say(msg.err.Error(), true)
		return m, nil
	case attachMsg:
		m.say(fmt.Sprintf("attached to %s; detach (%s) to come back", msg.member, m.detachKeys(msg.prefix)), false)
		member := msg.member
		return m, tea.ExecProcess(msg.cmd, func(err error) tea.Msg { return detachedMsg{member, err} })
	case detachedMsg:
		if msg.err != nil {
			m.say(fmt.Sprintf("attach to %s: %v", msg.member, msg.err), true)
		} else {
			m.say("back from "+msg.member, false)
		}
		return m, nil
	case changesMsg:
		return m, m.setChanges(msg)
	case mergedMsg:
		if msg.err != nil {
			m.say(msg.err.Error(), true)
		} else {
			m.say(msg.text, false)
		}
		if !m.followsTeam(msg.team) {
			return m, nil
		}
		return m, m.readChanges(msg.team)
	case diffMsg:
		m.say(fmt.Sprintf("showing %s's diff; quit the pager (q) to come back", msg.member), false)
		member := msg.member
		return m, tea.ExecProcess(msg.cmd, func(err error) tea.Msg { return diffShownMsg{member, err} })
	case diffShownMsg:
		if msg.err != nil {
			m.say(fmt.Sprintf("diff of %s: %v", msg.member, msg.err), true)
		} else {
			m.say("back from "+msg.member+"'s diff", false)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.mode == modeInput {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
	}
	if m.mode == modeInput {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg) // the cursor's own messages
		return m, cmd
	}
	return m, nil
}

// setTeams keeps the teams that are up, sorted; outside the all view the
// team shown is among them, up or not.
func (m *Model) setTeams(teams []string) {
	m.teams = slices.Clone(teams)
	if !m.all && !slices.Contains(m.teams, m.team) {
		m.teams = append(m.teams, m.team)
	}
	slices.Sort(m.teams)
	m.teams = slices.Compact(m.teams)
}

// shown are the teams on screen: every team up in the all view, else the one.
func (m *Model) shown() []string {
	if m.all {
		return slices.Clone(m.teams)
	}
	return []string{m.team}
}

// stops are where tab goes, in turn: all teams ("") when several are up or
// they are shown, then each team.
func (m *Model) stops() []string {
	stops := slices.Clone(m.teams)
	if len(m.teams) > 1 || m.all {
		stops = append([]string{""}, stops...)
	}
	return stops
}

// show shows every team up (all), or team alone. What the model knows of a
// team it still shows stays (so v back and forth loses nothing); the feed
// follows the teams shown and no others.
func (m *Model) show(all bool, team string) {
	m.all = all
	if !all {
		m.team = team
	}
	m.setTeams(m.teams)
	m.follow()
	if all {
		m.say(fmt.Sprintf("all teams up (%d)", len(m.teams)), false)
	} else {
		m.say("following team "+textsafe.Visible(team), false)
	}
}

// follow tells the feed the teams shown, when they changed, and forgets what
// it knew of the others.
func (m *Model) follow() {
	teams := m.shown()
	if slices.Equal(teams, m.followed) && m.others == m.all {
		return
	}
	m.followed, m.others = teams, m.all
	// Called here, not from a command: commands run in any order, and the
	// feed must end up on the last teams and pane asked for.
	m.o.Feed.Follow(teams, m.all)
	gone := func(t string) bool { return !slices.Contains(teams, t) }
	maps.DeleteFunc(m.snaps, func(t string, _ *Snapshot) bool { return gone(t) })
	maps.DeleteFunc(m.errs, func(t string, _ error) bool { return gone(t) })
	maps.DeleteFunc(m.waiting, func(t string, _ map[string]time.Time) bool { return gone(t) })
	maps.DeleteFunc(m.looked, func(t string, _ bool) bool { return gone(t) })
	maps.DeleteFunc(m.changes, func(t string, _ map[string]change) bool { return gone(t) })
	m.events = slices.DeleteFunc(m.events, func(e Event) bool { return !slices.Contains(teams, e.Team) })
	m.rebuild()
}

// addEvents keeps a team's new events among the others', in time order;
// after a turn ended or the radar spoke, the team's changes are read again.
func (m *Model) addEvents(msg EventsMsg) tea.Cmd {
	reread := false
	for _, e := range msg.Events {
		e.Team = msg.Team // the feed's word for it: the team whose file it is in
		m.events = append(m.events, e)
		reread = reread || slices.Contains(rereadOn, e.Kind)
	}
	slices.SortStableFunc(m.events, func(a, b Event) int { return a.Time.Compare(b.Time) })
	if n := len(m.events) - maxEvents; n > 0 {
		m.events = slices.Delete(m.events, 0, n)
	}
	if reread {
		return m.readChanges(msg.Team)
	}
	return nil
}

// teamUp says whether a look finds a team up (teamview.Up: as every view decides).
func teamUp(s *Snapshot) bool { return s != nil && teamview.Up(s.Status) }

// setStatus takes a new look at a team: the rows sorted, the selection
// kept, the detail's pane followed, and a bell for whoever newly waits. In
// the all view, a team found up or down no longer is asks for the teams up.
func (m *Model) setStatus(msg StatusMsg) tea.Cmd {
	if msg.Err != nil {
		m.errs[msg.Team] = msg.Err
		return nil // the last look stays on screen, with the error above it
	}
	delete(m.errs, msg.Team)
	old := m.snaps[msg.Team]
	m.snaps[msg.Team] = msg.Snap
	m.rebuild()
	var cmds []tea.Cmd
	if m.all && (old == nil || teamUp(old)) != teamUp(msg.Snap) {
		cmds = append(cmds, m.relist())
	}
	now := map[string]time.Time{}
	var newcomers []row
	for _, r := range m.rows {
		if r.Team != msg.Team || !teamview.WaitsForPerson(r.MemberStatus) {
			continue
		}
		since := teamview.WaitSince(r.MemberStatus)
		now[r.Name] = since
		if was, ok := m.waiting[r.Team][r.Name]; !ok || !was.Equal(since) {
			newcomers = append(newcomers, r)
		}
	}
	m.waiting[msg.Team] = now
	if m.looked[msg.Team] && m.bell && len(newcomers) > 0 {
		cmds = append(cmds, tea.Raw(m.alert(newcomers[0])))
	}
	m.looked[msg.Team] = true
	if m.changes[msg.Team] == nil { // the first look: then only after turns
		cmds = append(cmds, m.readChanges(msg.Team))
	}
	return tea.Batch(cmds...)
}

// rebuild makes the rows from the teams shown, keeps the selection on its
// member (else the first row) and tells the feed which pane to follow. Until
// every team shown at the start has been looked at once (or the person picks
// a member), the first row is selected: the teams' first looks come in any
// order, and the first row is whoever waits longest in any of them.
func (m *Model) rebuild() {
	var rows []row
	for _, t := range m.followed {
		if s := m.snaps[t]; s != nil {
			for _, r := range s.Members {
				rows = append(rows, row{Team: t, MemberStatus: r})
			}
		}
	}
	m.rows = teamview.Order(rows, m.followed, func(r row) (string, model.MemberStatus) { return r.Team, r.MemberStatus })
	m.stayAfterAction()
	if m.selected() == nil || !m.settled {
		m.sel = memberKey{}
		if len(m.rows) > 0 {
			m.sel = m.rows[0].key()
		}
	}
	m.settled = m.settled || !slices.ContainsFunc(m.followed, func(t string) bool { return m.snaps[t] == nil && m.errs[t] == nil })
	m.scroll()
	m.refocus()
}

// acted notes that a key acted on member k, selected: see actedOn.
func (m *Model) acted(k memberKey) {
	m.actedOn, m.actedRow = memberKey{}, 0
	if k == m.sel && m.selected() != nil {
		m.actedOn, m.actedRow = k, m.selIndex()
	}
}

// stayAfterAction keeps the selection at the row of the member acted on
// once that member has left the row (actedOn), and ends the hold.
func (m *Model) stayAfterAction() {
	if m.actedOn == (memberKey{}) {
		return
	}
	if m.sel != m.actedOn {
		m.actedOn = memberKey{} // the person moved on
		return
	}
	i := slices.IndexFunc(m.rows, func(r row) bool { return r.key() == m.actedOn })
	if i == m.actedRow || len(m.rows) == 0 {
		return // not moved yet
	}
	m.sel = m.rows[min(m.actedRow, len(m.rows)-1)].key()
	m.actedOn = memberKey{}
}

// alert is what rings: BEL, or an OSC 9 notification naming who waits and on
// what, where the terminal shows those.
func (m *Model) alert(r row) string {
	if m.o.Notify != "osc9" {
		return "\a"
	}
	// Visible, then without backslash-escapes' ESC: nothing in it can end the OSC.
	text := textsafe.Visible(fmt.Sprintf("teamctl %s: %s waits: %s", r.Team, r.Name, teamview.WaitsOn(r.MemberStatus, true, m.o.Now())))
	return ansi.Notify(text)
}

// refocus tells the feed which pane the detail shows, when that changed: the
// selected member's, in its team's server. Outside the all view, the team's
// server is followed with no member selected too (its panes' exits).
func (m *Model) refocus() {
	team, pane := "", ""
	if !m.all {
		team = m.team
	}
	if r := m.selected(); r != nil {
		team, pane = r.Team, r.Pane // an exited member's pane stays, showing how it ended
	}
	if team == m.focusTeam && pane == m.focus {
		return
	}
	m.focusTeam, m.focus = team, pane
	if m.screen.Team != team || m.screen.Pane != pane {
		m.screen = ScreenMsg{}
	}
	m.o.Feed.Focus(team, pane) // not from a command, which may run after a later one
}

// selected is the selected member's row, or nil.
func (m *Model) selected() *row {
	for i := range m.rows {
		if m.rows[i].key() == m.sel {
			return &m.rows[i]
		}
	}
	return nil
}

func (m *Model) selIndex() int {
	for i := range m.rows {
		if m.rows[i].key() == m.sel {
			return i
		}
	}
	return 0
}

// who names a member on the status line: with its team in the all view.
func (m *Model) who(k memberKey) string {
	if m.all {
		return textsafe.Visible(k.team + "/" + k.name)
	}
	return textsafe.Visible(k.name)
}

// scroll keeps the selected row within the table's rows on screen.
func (m *Model) scroll() {
	h := m.layout().table
	i := m.selIndex()
	if i < m.top {
		m.top = i
	}
	if i >= m.top+h {
		m.top = i - h + 1
	}
	m.top = max(0, min(m.top, len(m.rows)-h))
}

func (m *Model) say(text string, isErr bool) {
	m.status, m.statusErr = text, isErr
}

// Package cockpit is `teamctl top`: one live terminal screen of a team —
// every member with its state, what it waits on, the bottom of the selected
// member's pane, the team's events — where a person acts on a member with one
// key. It is a Bubble Tea program (charm.land/bubbletea/v2).
//
// The model (this file and view.go) is pure: it is fed messages — the team's
// status, its events, the selected pane's screen, keys — and does everything
// through two small interfaces: a Backend, the very functions teamctl's
// commands call (so an action is the command's own code path and is recorded
// in events.jsonl as the command records it), and a Feed, which follows the
// team (feed.go: its state folder through fsnotify, its tmux server through a
// control-mode client) and hands the program what changed. backend.go is the
// only file that knows where those functions live.
package cockpit

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// Backend is what the cockpit does to a team: the functions behind `teamctl
// teams`, `status`, `answer`, `approve`, `deny`, `send`, `restart` and `attach`.
type Backend interface {
	UpTeams(ctx context.Context) ([]string, error)
	Answer(ctx context.Context, team, member string, keys ...string) error
	Approve(ctx context.Context, team, member string) (requestID string, err error)
	Deny(ctx context.Context, team, member, reason string) (requestID string, err error)
	Send(ctx context.Context, team, member, text string) (how string, err error)
	Restart(ctx context.Context, team, member string) (pid int, err error)
	// Attach selects the member's pane and returns the command that attaches
	// the terminal to it (running until the person detaches) and the team
	// server's prefix key.
	Attach(ctx context.Context, team, member string) (cmd *exec.Cmd, prefix string, err error)
}

// Feed follows a team for the program and sends it StatusMsg, EventsMsg and
// ScreenMsg as things change. The model calls it from Update, in order, so
// neither method may block.
type Feed interface {
	Follow(team string) // follow this team (and no longer the one before)
	Focus(pane string)  // the pane whose screen the detail shows ("" for none)
}

// Snapshot is one look at a team: its status and the members' worktrees.
type Snapshot struct {
	*Status
	Taken     time.Time
	Worktrees map[string]Worktree // by member, those teamctl made
}

// Worktree is a member's git worktree.
type Worktree struct{ Path, Branch string }

// NotRecordedError is an answer whose keys were sent but could not be
// recorded in the team's events: it happened, and must not be sent again.
type NotRecordedError struct{ Err error }

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("the keys were sent, but could not be recorded in the team's events: %v", e.Err)
}

func (e *NotRecordedError) Unwrap() error { return e.Err }

// Member states, as status reports them.
const (
	stateRunning  = state.StateRunning
	stateIdle     = state.StateIdle
	stateStalled  = state.StateStalled
	stateWaiting  = state.StateWaitingApproval
	stateExited   = state.StateExited
	stateFailed   = state.StateFailed
	roleProcess   = "process"
	originLead    = "lead"
	actionTimeout = 30 * time.Second // one action: tmux, a mailbox lock, the state lock
)

// Messages the Feed sends.
type (
	// StatusMsg is a new look at a team (Err: why it could not be looked at).
	StatusMsg struct {
		Team string
		Snap *Snapshot
		Err  error
	}
	// EventsMsg are events of a team appended since the last.
	EventsMsg struct {
		Team   string
		Events []Event
	}
	// ScreenMsg is the bottom of a pane's screen.
	ScreenMsg struct {
		Team, Pane string
		Lines      []string
	}
)

// Messages the model sends itself.
type (
	tickMsg   time.Time
	teamsMsg  struct{ teams []string }
	switchMsg struct{ teams []string } // the teams up, listed to switch to the next
	doneMsg   struct{ text string }    // an action's outcome, for the status line
	failMsg   struct{ err error }
	attachMsg struct {
		member, prefix string
		cmd            *exec.Cmd
	}
	detachedMsg struct {
		member string
		err    error
	}
)

// mode is what keys go to.
type mode int

const (
	modeTable   mode = iota
	modeHelp         // the list of keys
	modeInput        // a one-line input (send, deny's reason)
	modeConfirm      // restart? y
)

// maxEvents is how many of the team's latest events the model keeps.
const maxEvents = 200

// Options configure a Model.
type Options struct {
	Team    string
	Backend Backend
	Feed    Feed
	Color   bool             // colours (off with NO_COLOR or on a dumb terminal)
	Bell    bool             // ring when someone starts waiting for a person
	Notify  string           // "osc9" to notify with OSC 9 instead of BEL
	Nested  bool             // inside another tmux: detaching takes the prefix twice
	Now     func() time.Time // the clock (tests fix it)
	Ctx     context.Context  // the program's: actions run under it
}

// Model is the cockpit's state.
type Model struct {
	o      Options
	st     styles
	team   string
	teams  []string
	snap   *Snapshot
	err    error // the last look at the team failed
	rows   []Member
	sel    string // the selected member, by name: it stays selected as rows move
	top    int    // the first table row shown
	events []Event
	screen ScreenMsg
	focus  string // the pane the feed was told to focus

	width, height int
	mode          mode
	input         textinput.Model
	inputFor      string // "send" or "deny"
	target        string // the member an input or a confirmation is about
	status        string // the last action's outcome, or an error
	statusErr     bool
	bell          bool
	waiting       map[string]time.Time // members waiting for a person → since
	looked        bool                 // a status arrived: the next new waiter rings
}

// New returns the model of a cockpit on o.Team.
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
	return &Model{o: o, st: newStyles(o.Color), team: o.Team, teams: []string{o.Team}, input: in,
		bell: o.Bell, waiting: map[string]time.Time{}, width: 80, height: 24}
}

// Init starts following the team and the clock.
func (m *Model) Init() tea.Cmd {
	m.o.Feed.Follow(m.team)
	return tea.Batch(m.tick(), m.listTeams())
}

// tick redraws once a second, so that durations go on.
func (m *Model) tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *Model) listTeams() tea.Cmd {
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		teams, err := m.o.Backend.UpTeams(ctx)
		if err != nil {
			return nil // tab says so when it is pressed
		}
		return teamsMsg{teams}
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
		if msg.Team != m.team {
			return m, nil // about the team before a switch
		}
		return m, m.setStatus(msg)
	case EventsMsg:
		if msg.Team != m.team {
			return m, nil
		}
		m.events = append(m.events, msg.Events...)
		if n := len(m.events) - maxEvents; n > 0 {
			m.events = slices.Delete(m.events, 0, n)
		}
		return m, nil
	case ScreenMsg:
		if msg.Team == m.team && msg.Pane == m.focus { // a late capture of a pane left is dropped
			m.screen = msg
		}
		return m, nil
	case teamsMsg:
		m.setTeams(msg.teams)
		return m, nil
	case switchMsg:
		m.setTeams(msg.teams)
		if len(m.teams) < 2 {
			m.say("no other team is up", false)
			return m, nil
		}
		i := slices.Index(m.teams, m.team)
		return m, m.switchTo(m.teams[(i+1)%len(m.teams)])
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

// setTeams keeps the teams that are up, this one among them.
func (m *Model) setTeams(teams []string) {
	m.teams = slices.Clone(teams)
	if !slices.Contains(m.teams, m.team) {
		m.teams = append(m.teams, m.team)
		slices.Sort(m.teams)
	}
}

// setStatus takes a new look at the team: the rows sorted, the selection
// kept, the detail's pane followed, and a bell for whoever newly waits.
func (m *Model) setStatus(msg StatusMsg) tea.Cmd {
	m.err = msg.Err
	if msg.Err != nil {
		return nil // the last look stays on screen, with the error above it
	}
	m.snap = msg.Snap
	m.rows = sortRows(msg.Snap.Members)
	if m.selected() == nil && len(m.rows) > 0 {
		m.sel = m.rows[0].Name
	}
	m.scroll()
	m.refocus()
	var cmds []tea.Cmd
	now := map[string]time.Time{}
	var newcomers []Member
	for _, r := range m.rows {
		if !waitsForPerson(r) {
			continue
		}
		since := waitSince(r)
		now[r.Name] = since
		if old, ok := m.waiting[r.Name]; !ok || !old.Equal(since) {
			newcomers = append(newcomers, r)
		}
	}
	m.waiting = now
	if m.looked && m.bell && len(newcomers) > 0 {
		cmds = append(cmds, tea.Raw(m.alert(newcomers[0])))
	}
	m.looked = true
	return tea.Batch(cmds...)
}

// alert is what rings: BEL, or an OSC 9 notification naming who waits and on
// what, where the terminal shows those.
func (m *Model) alert(r Member) string {
	if m.o.Notify != "osc9" {
		return "\a"
	}
	// Visible, then without backslash-escapes' ESC: nothing in it can end the OSC.
	text := textsafe.Visible(fmt.Sprintf("teamctl %s: %s waits: %s", m.team, r.Name, waitsOn(r, true)))
	return ansi.Notify(text)
}

// refocus tells the feed which pane the detail shows, when that changed.
func (m *Model) refocus() {
	pane := ""
	if r := m.selected(); r != nil {
		pane = r.Pane // an exited member's pane stays, showing how it ended
	}
	if pane == m.focus {
		return
	}
	m.focus = pane
	if m.screen.Pane != pane {
		m.screen = ScreenMsg{}
	}
	m.o.Feed.Focus(pane) // not from a command, which may run after a later one
}

// selected is the selected member's row, or nil.
func (m *Model) selected() *Member {
	for i := range m.rows {
		if m.rows[i].Name == m.sel {
			return &m.rows[i]
		}
	}
	return nil
}

func (m *Model) selIndex() int {
	for i := range m.rows {
		if m.rows[i].Name == m.sel {
			return i
		}
	}
	return 0
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

// key handles a key press in the current mode.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeHelp:
		m.mode = modeTable
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	case modeInput:
		return m.inputKey(k)
	case modeConfirm:
		m.mode = modeTable
		if k.String() == "y" {
			return m.restart(m.target)
		}
		m.say("restart cancelled", false)
		return nil
	}
	r := m.selected()
	switch k.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "?":
		m.mode = modeHelp
		return nil
	case "up", "k":
		return m.move(-1)
	case "down", "j":
		return m.move(1)
	case "pgup":
		return m.move(-max(1, m.layout().table-1))
	case "pgdown":
		return m.move(max(1, m.layout().table-1))
	case "home", "g":
		return m.move(-len(m.rows))
	case "end", "G":
		return m.move(len(m.rows))
	case "b":
		m.bell = !m.bell
		m.say("bell "+onOff(m.bell), false)
		return nil
	case "tab":
		return m.nextTeam()
	}
	if r == nil {
		m.say("no member selected", true)
		return nil
	}
	name := r.Name
	switch k.String() {
	case "y", "n":
		if r.State != stateStalled {
			m.say(fmt.Sprintf("%s is %s, not stalled at a prompt: y and n answer a stalled member", textsafe.Visible(name), stateWord(*r)), true)
			return nil
		}
		return m.answer(name, k.String(), "Enter")
	case "enter":
		if r.State != stateStalled {
			m.say(fmt.Sprintf("%s is %s, not stalled: enter answers a stalled member's dialog", textsafe.Visible(name), stateWord(*r)), true)
			return nil
		}
		return m.answer(name, "Enter")
	case "a":
		if r.State != stateWaiting {
			m.say(fmt.Sprintf("%s has no permission request waiting (it is %s)", textsafe.Visible(name), stateWord(*r)), true)
			return nil
		}
		return m.approve(name)
	case "d":
		if r.State != stateWaiting {
			m.say(fmt.Sprintf("%s has no permission request waiting (it is %s)", textsafe.Visible(name), stateWord(*r)), true)
			return nil
		}
		return m.ask("deny", name, "optional reason")
	case "s":
		if r.Role == roleProcess {
			m.say(fmt.Sprintf("%s is a plain process, not Claude Code: attach (t) to type into it", textsafe.Visible(name)), true)
			return nil
		}
		return m.ask("send", name, "message")
	case "t":
		return m.attach(name)
	case "r":
		if r.Origin == originLead {
			m.say(fmt.Sprintf("%s was spawned by the lead, which restarts its own teammates", textsafe.Visible(name)), true)
			return nil
		}
		m.mode, m.target = modeConfirm, name
		return nil
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// move moves the selection by d rows.
func (m *Model) move(d int) tea.Cmd {
	if len(m.rows) == 0 {
		return nil
	}
	i := max(0, min(len(m.rows)-1, m.selIndex()+d))
	m.sel = m.rows[i].Name
	m.scroll()
	m.refocus()
	return nil
}

// ask opens the one-line input for send or deny.
func (m *Model) ask(what, member, placeholder string) tea.Cmd {
	m.mode, m.inputFor, m.target = modeInput, what, member
	m.input.Reset()
	m.input.Placeholder = placeholder
	return m.input.Focus()
}

func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.mode = modeTable
		m.input.Blur()
		m.say(m.inputFor+" cancelled", false)
		return nil
	case "enter":
		m.mode = modeTable
		m.input.Blur()
		text := m.input.Value()
		if m.inputFor == "deny" {
			return m.deny(m.target, strings.TrimSpace(text))
		}
		if strings.TrimSpace(text) == "" {
			m.say("nothing sent: the message is empty", true)
			return nil
		}
		return m.send(m.target, text)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// The actions: each one the command's own function, run off the UI with a
// deadline, its outcome shown on the status line.

func (m *Model) action(do func(ctx context.Context) (string, error)) tea.Cmd {
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		text, err := do(ctx)
		if err != nil {
			var nr *NotRecordedError
			if errors.As(err, &nr) {
				return failMsg{fmt.Errorf("%s; warning: %w", text, err)}
			}
			return failMsg{err}
		}
		return doneMsg{text}
	}
}

func (m *Model) answer(member string, keys ...string) tea.Cmd {
	team := m.team
	m.say(fmt.Sprintf("sending %s to %s…", strings.Join(keys, " "), textsafe.Visible(member)), false)
	return m.action(func(ctx context.Context) (string, error) {
		sent := fmt.Sprintf("sent %s to %s", strings.Join(keys, " "), textsafe.Visible(member))
		return sent, m.o.Backend.Answer(ctx, team, member, keys...)
	})
}

func (m *Model) approve(member string) tea.Cmd {
	team := m.team
	return m.action(func(ctx context.Context) (string, error) {
		id, err := m.o.Backend.Approve(ctx, team, member)
		return fmt.Sprintf("approved %s's request %s", textsafe.Visible(member), textsafe.Visible(id)), err
	})
}

func (m *Model) deny(member, reason string) tea.Cmd {
	team := m.team
	return m.action(func(ctx context.Context) (string, error) {
		id, err := m.o.Backend.Deny(ctx, team, member, reason)
		return fmt.Sprintf("denied %s's request %s", textsafe.Visible(member), textsafe.Visible(id)), err
	})
}

func (m *Model) send(member, text string) tea.Cmd {
	team := m.team
	return m.action(func(ctx context.Context) (string, error) {
		how, err := m.o.Backend.Send(ctx, team, member, text)
		return fmt.Sprintf("sent to %s: %s", textsafe.Visible(member), how), err
	})
}

func (m *Model) restart(member string) tea.Cmd {
	team := m.team
	m.say("restarting "+textsafe.Visible(member)+"…", false)
	return m.action(func(ctx context.Context) (string, error) {
		pid, err := m.o.Backend.Restart(ctx, team, member)
		return fmt.Sprintf("restarted %s (pid %d)", textsafe.Visible(member), pid), err
	})
}

// attach prepares the attachment off the UI; attachMsg then suspends the UI
// for it (tea.ExecProcess) until the person detaches.
func (m *Model) attach(member string) tea.Cmd {
	team, ctx := m.team, m.o.Ctx
	return func() tea.Msg {
		cmd, prefix, err := m.o.Backend.Attach(ctx, team, member)
		if err != nil {
			return failMsg{err}
		}
		return attachMsg{member: member, prefix: prefix, cmd: cmd}
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

// nextTeam lists the teams that are up, then switches to the one after this.
func (m *Model) nextTeam() tea.Cmd {
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		teams, err := m.o.Backend.UpTeams(ctx)
		if err != nil {
			return failMsg{fmt.Errorf("list the teams: %w", err)}
		}
		return switchMsg{teams}
	}
}

// switchTo follows another team, forgetting everything of this one.
func (m *Model) switchTo(team string) tea.Cmd {
	*m = Model{o: m.o, st: m.st, team: team, teams: m.teams, input: m.input, bell: m.bell,
		waiting: map[string]time.Time{}, width: m.width, height: m.height}
	m.say("following team "+team, false)
	// Called here, not from a command: commands run in any order, and the
	// feed must end up on the last team and pane asked for.
	m.o.Feed.Focus("")
	m.o.Feed.Follow(team)
	return nil
}

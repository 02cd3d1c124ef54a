package cockpit

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// frameRate is how often a changed screen is drawn at most: each frame is a
// wake-up, and Bubble Tea's default 60 a second cost an idle cockpit 1% of a
// core alone; 20 keeps a change within 50 ms of the screen.
const frameRate = 20

// RunOptions are `teamctl top`'s.
type RunOptions struct {
	Team  string   // the team shown, unless All
	All   bool     // every team up in one list
	Teams []string // the teams up, as far as the caller knows
	// Backend is the teams the cockpit shows and its verbs (a real teamctl's,
	// made by the command: the cockpit itself runs neither tmux nor git).
	Backend interface {
		Backend
		Source
	}
	In     io.Reader // the terminal
	Out    io.Writer // the terminal
	Color  bool      // iostreams' decision: a terminal, no NO_COLOR, not dumb
	Nested bool      // running inside another tmux
}

// Run shows the cockpit on the terminal until the person quits (q) or ctx
// ends, and leaves the terminal as it found it.
func Run(ctx context.Context, o RunOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := o.Backend
	feed := NewFeed(ctx, b)
	defer feed.Close()
	m := New(Options{Team: o.Team, All: o.All, Teams: o.Teams, Backend: b, Feed: feed, Color: o.Color, Bell: true,
		Notify: notifyKind(os.Getenv), Nested: o.Nested, Ctx: ctx})
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithFPS(frameRate)}
	if !o.Color {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	// This process is the cockpit alone, so it sets a process-wide knob: one
	// thread running Go code unless GOMAXPROCS says otherwise. A screen needs no parallelism, and on a
	// busy 2-core machine the runtime's hand-offs between threads cost an
	// idle cockpit a third more CPU than its work.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	p := tea.NewProgram(m, opts...)
	feed.Start(p.Send)
	_, err := p.Run()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // interrupted (SIGINT, SIGTERM): an ordinary way out
	}
	if errors.Is(err, tea.ErrInterrupted) {
		return nil
	}
	return err
}

// notifyKind is "osc9" on terminals known to show an OSC 9 notification
// (iTerm2, WezTerm, ghostty, kitty) and not inside tmux, which does not pass
// it on; else "" (BEL, which every terminal and tmux handle).
func notifyKind(getenv func(string) string) string {
	if getenv("TMUX") != "" {
		return ""
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return "osc9"
	}
	if t := getenv("TERM"); strings.Contains(t, "kitty") || strings.Contains(t, "ghostty") {
		return "osc9"
	}
	return ""
}

package main

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
)

// supervisorOptions are the daemon's options for team name as supervise's
// flags and teamctl's environment set them: its log on stderr or in the
// team's supervisor.log (closed by the func returned), TEAMCTL_DEBUG (debug
// lines too), TEAMCTL_CLAUDE, TEAMCTL_RESTART_BACKOFF and TEAMCTL_RESTART_LIMIT.
func supervisorOptions(opts *superviseOptions, name string, getenv func(string) string) (o supervisor.SuperviseOptions, closeLog func(), err error) {
	level := slog.LevelInfo
	if getenv("TEAMCTL_DEBUG") != "" {
		level = slog.LevelDebug
	}
	var out io.Writer = opts.IO.ErrOut
	done := func() {}
	if opts.ToFile {
		w, err := state.OpenLog(name)
		if err != nil {
			return o, nil, err
		}
		out, done = w, func() { w.Close() }
	}
	defer func() {
		if err != nil {
			done() // no daemon: no log
		}
	}()
	// A restart relaunches a member as the layout plans it, with the programs
	// up found: the same TEAMCTL_CLAUDE (up's environment is this one), and
	// this teamctl for Claude Code's hooks.
	self, err := selfexe.Path()
	if err != nil {
		return o, nil, err
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	o = supervisor.SuperviseOptions{TmuxBin: opts.TmuxBin, Log: log, ClaudeOverride: getenv("TEAMCTL_CLAUDE"), Teamctl: self}
	if v := getenv("TEAMCTL_RESTART_BACKOFF"); v != "" {
		// The first restart's delay; tests make crash loops quick with it.
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, nil, fmt.Errorf("TEAMCTL_RESTART_BACKOFF=%q: want a positive duration such as 1s", v)
		}
		o.MinBackoff = d
	}
	if v := getenv("TEAMCTL_RESTART_LIMIT"); v != "" {
		// How many exits within the window a member may have before it is
		// failed; tests make crash loops short with it (each exit is at least
		// a second: tmux reports a pane's exit about once a second).
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return o, nil, fmt.Errorf("TEAMCTL_RESTART_LIMIT=%q: want a positive number such as 5", v)
		}
		o.MaxExits = n
	}
	return o, done, nil
}

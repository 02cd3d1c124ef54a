package main

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

const (
	watchDebounce = 100 * time.Millisecond // a burst of writes makes one redraw
	watchTick     = time.Second            // uptimes and ages tick; tmux's own changes show up
	watchTimeout  = 5 * time.Second        // one look at the team (state files and tmux)
)

// watchStatus shows the team's status until ctx ends: again whenever a file
// of its folder that counts changes (state.Watch, debounced) and every
// second. On a terminal each frame replaces the last; otherwise a frame is
// printed, after a blank line, only when it differs from the last printed
// other than by the passing of time.
func watchStatus(ctx context.Context, io *iostreams.IO, t *team.Team) error {
	w, err := state.Watch(ctx, state.WatchOptions{Team: t.Name, Debounce: watchDebounce})
	if err != nil {
		return err
	}

	tty := io.IsTTY()
	epoch := time.Now() // the clock of the comparison: durations as of one fixed time
	last, printed := "", false
	draw := func() {
		sctx, cancel := context.WithTimeout(ctx, watchTimeout)
		st, err := t.Status(sctx)
		cancel()
		if ctx.Err() != nil {
			return // interrupted mid-look: no half frame
		}
		now := time.Now()
		var key, frame string
		if err != nil {
			key = fmt.Sprintf("team %s: %s\n", t.Name, textsafe.Visible(err.Error()))
			frame = key
		} else {
			key = renderStatus(io, st, epoch)
			frame = renderStatus(io, st, now)
		}
		frame = now.Format(time.TimeOnly) + "  " + frame
		switch {
		case tty:
			fmt.Fprint(io.Out, "\x1b[H\x1b[2J"+frame)
		case key != last:
			if printed {
				frame = "\n" + frame
			}
			fmt.Fprint(io.Out, frame)
			printed = true
		}
		last = key
	}

	draw()
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	changes := w.C
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-changes:
			if !ok {
				changes = nil // the ticks still redraw
				continue
			}
			draw()
		case <-tick.C:
			draw()
		}
	}
}

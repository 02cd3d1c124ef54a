package ptywatch

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/notify"
	"github.com/teamctl/teamctl/stallwatch"
)

// WatchOptions are `teamctl run`'s: Run's, and the layout whose watchdog
// watches the command.
type WatchOptions struct {
	// Run's options; Detector is Watch's, and OnStall is told of each
	// stall before the layout's notify command runs.
	Options
	// Layout names the layout file whose watchdog patterns, quiet period
	// (unless QuietSet) and notify.command apply ("" for none).
	Layout   string
	QuietSet bool // Quiet was given: a layout's watchdog.quiet does not apply
	// OnNotifyError is told of each notify command that failed.
	OnNotifyError func(program string, err error)
}

// watchdog is what watches the command: the stall patterns, the quiet
// period, and whom a stall is told (notify.Run's argv, team and member).
type watchdog struct {
	patterns     []stallwatch.Pattern
	quiet        time.Duration
	notify       []string
	team, member string
}

// watchdogOf is the watchdog of layout l (nil: stallwatch's defaults, no
// notify command), with quiet unless the layout's applies.
func watchdogOf(l *layouts.Layout, quiet time.Duration, quietSet bool, getenv func(string) string) watchdog {
	if l == nil {
		return watchdog{patterns: stallwatch.DefaultPatterns(), quiet: quiet}
	}
	w := watchdog{patterns: l.Watchdog.StallPatterns(), quiet: quiet, notify: l.Watchdog.Notify.Command,
		team: l.Team, member: notifyMember(l.Team, getenv)}
	if !quietSet {
		w.quiet = l.Watchdog.Quiet
	}
	return w
}

// notifyMember is TEAMCTL_MEMBER for the notify command: the member it runs
// in (teamctl sets TEAMCTL_TEAM and TEAMCTL_MEMBER in every member's pane,
// and a member's commands inherit them) when that member is of the layout's
// team, else "run".
func notifyMember(team string, getenv func(string) string) string {
	if m := getenv("TEAMCTL_MEMBER"); m != "" && getenv("TEAMCTL_TEAM") == team {
		return m
	}
	return "run"
}

// Watch runs argv as Run does, watched by o.Layout's watchdog, and runs its
// notify command at each stall. It returns when the command has ended and
// every notify command started has (each has its own deadline), so that
// none is cut short.
func Watch(ctx context.Context, argv []string, o WatchOptions) (int, error) {
	var l *layouts.Layout
	if o.Layout != "" {
		var err error
		if l, err = layouts.Parse(o.Layout); err != nil {
			return -1, err
		}
	}
	w := watchdogOf(l, o.Quiet, o.QuietSet, os.Getenv)
	var notifying sync.WaitGroup
	defer notifying.Wait()
	told := o.OnStall
	o.Quiet, o.Detector = w.quiet, stallwatch.New(w.patterns)
	o.OnStall = func(v stallwatch.Verdict) {
		if told != nil {
			told(v)
		}
		if len(w.notify) == 0 {
			return
		}
		notifying.Go(func() {
			if err := notify.Run(ctx, w.notify, w.team, w.member, v); err != nil && o.OnNotifyError != nil {
				o.OnNotifyError(w.notify[0], err)
			}
		})
	}
	code, err := Run(ctx, argv, o.Options)
	if err != nil {
		return code, fmt.Errorf("run %s: %w", argv[0], err)
	}
	return code, nil
}

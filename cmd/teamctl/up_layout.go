package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// Bringing up the team of one layout: up's, up --all's for each lost team,
// and demo's.

// upOne brings l's team up and says what was done; with --foreground, it
// then supervises the team in this process.
func upOne(ctx context.Context, o *upOptions, l *layouts.Layout) error {
	b, err := o.Up(ctx, l, o.bringUpOptions())
	if b != nil {
		printBroughtUp(o, l, b)
	}
	if err != nil || !o.foreground {
		return err
	}
	return o.Supervise(ctx, l.Team)
}

// upLayout is `teamctl up` of a layout already read, with o's flags and
// Claude Code as claude: demo's way up.
func upLayout(cmd *cobra.Command, io *iostreams.IO, g *globals, l *layouts.Layout, o *upOptions, claude string) error {
	o = wireUp(o, io, g)
	o.claude = claude
	return upOne(cmd.Context(), o, l)
}

// bringUpOptions are team.BringUp's options as up's flags set them.
func (o *upOptions) bringUpOptions() team.BringUpOptions {
	cols, rows := o.IO.TerminalSize()
	b := team.BringUpOptions{UpOptions: team.UpOptions{TmuxBin: o.TmuxBin, ClaudeOverride: o.claude,
		Recreate: o.recreate, LayoutChange: o.changeFile, ConfigWait: o.configWait, Width: cols, Height: rows - 1,
		Fresh: o.fresh, Resume: o.resume}, Foreground: o.foreground, Status: !o.quiet}
	if !o.quiet {
		b.Progress = o.IO.Out
	}
	if o.trace {
		b.Trace = team.NewTracer(o.IO.ErrOut)
	}
	return b
}

// Command teamctl brings up, watches and tears down teams of Claude Code sessions
// in tmux. The commands here only parse flags, call a package and print: the
// lifecycle verbs are package team's (on a team opened by name), `validate`
// team's checks of a layout, `clean` clean's, `doctor` doctor's, `run` ptywatch's, `events`
// reads package state, and only `supervise` (supervise.go) runs the daemon,
// package supervisor.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, iostreams.System(), os.Args[1:])
	stop()
	os.Exit(code)
}

// exitError carries a command's exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func run(ctx context.Context, io *iostreams.IO, args []string) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// An error may quote what an agent wrote (a name, a message): made visible.
	fmt.Fprintf(io.ErrOut, "teamctl: %s\n", textsafe.Lines(err.Error()))
	var ue *usageError
	if errors.As(err, &ue) || isUnknownCommand(err) {
		if ue != nil && ue.cmd != nil {
			cmd = ue.cmd
		}
		path := root.CommandPath()
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(io.ErrOut, "see '%s --help'\n", path)
		return 2
	}
	return 1
}

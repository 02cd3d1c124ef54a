// Package cli is teamctl's command line: thin cobra commands that parse flags,
// call a package and print. cmd/teamctl is only its entry point.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// Main runs teamctl with the process's arguments and streams and returns its
// exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, iostreams.System(), os.Args[1:])
}

// exitError carries a command's exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Run runs teamctl with args.
func Run(ctx context.Context, io *iostreams.IO, args []string) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(io.ErrOut, "teamctl: %v\n", err)
	return 1
}

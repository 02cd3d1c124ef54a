package main

import (
	"fmt"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/tmux"
)

// nestedHint is how to detach a client nested in the tmux teamctl runs in,
// prefix the team server's prefix key, printed now; "" outside tmux.
func nestedHint(io *iostreams.IO, prefix string) string {
	if !tmux.Nested() {
		return ""
	}
	hint := fmt.Sprintf("teamctl: you are inside tmux, so this opens a nested client: detach it with %s %s d (the first %s goes to the outer tmux)", prefix, prefix, prefix)
	// Before attaching, for the terminal's scrollback, and on tmux's status
	// line, which is where it is seen (and which tmux cannot discard).
	fmt.Fprintln(io.ErrOut, hint)
	return hint
}

package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Relaunching a pane: why not respawn-pane.
//
// tmux (3.3a here, and every release before the fix of tmux#5499 in 2026)
// keeps, per pane, how far its output was consumed — by the pane itself and by
// each control-mode client — and frees the pane's output buffer when its
// program ends, without resetting those offsets. When a control client was
// behind on the pane at that moment (the supervisor gathers output for a few
// milliseconds; a person's `tmux -CC`; a busy machine), respawn-pane or
// respawn-window reuses the stale offsets on the new program's first output
// and the server crashes (SIGSEGV in input_parse), taking the whole team with
// it. Seen here: a program that prints ~300 KB and exits, a control client
// reading a little slowly, then respawn-pane: 8 crashes in 8.
//
// So a member is relaunched in a new pane that takes the old one's place:
// the new pane is made in a window of its own (there is always room for one),
// swapped into the old pane's position, and the old pane goes with that
// window. The new pane has a new id.

// NewPane is a pane ReplacePane made.
type NewPane struct {
	ID, Window string
	PID        int
}

// ReplacePane runs argv (no shell: CommandArgs) in dir with env in a new pane
// that takes pane old's place, and removes old. The command that makes the
// pane goes through a command file (env may hold secrets).
func (s *Server) ReplacePane(ctx context.Context, old, dir string, env, argv []string) (NewPane, error) {
	win, err := s.Run(ctx, "display-message", "-p", "-t", old, "#{window_id}")
	if err != nil {
		return NewPane{}, fmt.Errorf("relaunch %s: %w", old, err)
	}
	var b Batch
	args := []string{"new-window", "-a", "-d", "-t", strings.TrimSpace(win), "-c", EscapeFormat(dir)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, "-P", "-F", "#{pane_id}"+sep+"#{pane_pid}")
	b.Add(append(args, CommandArgs(argv)...)...)
	out, err := s.RunBatch(ctx, &b)
	if err != nil {
		return NewPane{}, fmt.Errorf("relaunch in a new pane: %w", err)
	}
	if len(out) != 1 {
		return NewPane{}, fmt.Errorf("relaunch in a new pane: tmux printed %q", out)
	}
	id, pidText, _ := strings.Cut(out[0], sep)
	pid, err := strconv.Atoi(pidText)
	if err != nil || !strings.HasPrefix(id, "%") {
		return NewPane{}, fmt.Errorf("relaunch in a new pane: tmux printed %q", out[0])
	}
	var swap Batch
	swap.Add("swap-pane", "-d", "-s", id, "-t", old)
	swap.Add("kill-pane", "-t", old)
	if _, err := s.RunBatch(ctx, &swap); err != nil {
		return NewPane{ID: id, PID: pid}, fmt.Errorf("put the new pane %s in %s's place: %w", id, old, err)
	}
	return NewPane{ID: id, PID: pid, Window: strings.TrimSpace(win)}, nil
}

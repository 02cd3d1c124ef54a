package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
// window, all in one batch. The new pane has a new id.

// NewPane is a pane ReplacePane made.
type NewPane struct {
	ID, Window string
	PID        int
}

// ReplacePane runs argv (no shell: CommandArgs) in dir with env in a new pane
// that takes pane old's place, and removes old. The new pane is named for
// member (its @teamctl-member) in the same tmux batch that makes it, swaps it
// in and removes old: whoever relaunches a member records the new pane only
// after, and a relaunch cut short there (its process killed, a full or
// read-only state folder) leaves a pane that still says whose it is, which
// the next start adopts (UnrecordedCopies) rather than starting a second
// copy. The batch goes through a command file (env may hold secrets).
func (s *Server) ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (NewPane, error) {
	where, err := s.Run(ctx, "display-message", "-p", "-t", old, "#{session_id}"+sep+"#{window_id}")
	if err != nil {
		return NewPane{}, fmt.Errorf("relaunch %s: %w", old, err)
	}
	session, win, _ := strings.Cut(strings.TrimSpace(where), sep)
	if !sessionIDRE.MatchString(session) || !strings.HasPrefix(win, "@") {
		return NewPane{}, fmt.Errorf("relaunch %s: tmux said %q of its window", old, where)
	}
	// The new window gets a name nothing else has, by which the batch's later
	// commands find its pane: tmux prints the new pane's id only to the
	// client, after the batch.
	name, err := tempWindowName()
	if err != nil {
		return NewPane{}, fmt.Errorf("relaunch %s: %w", old, err)
	}
	created := session + ":=" + name
	var b Batch
	args := []string{"new-window", "-a", "-d", "-t", win, "-n", name, "-c", EscapeFormat(dir)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, "-P", "-F", "#{pane_id}"+sep+"#{pane_pid}")
	b.Add(append(args, CommandArgs(argv)...)...)
	b.Add("set-option", "-p", "-t", created, "@teamctl-member", member)
	b.Add("swap-pane", "-d", "-s", created, "-t", old)
	b.Add("kill-pane", "-t", old)
	out, err := s.RunBatch(ctx, &b)
	np, perr := newPane(out)
	switch {
	case err != nil && perr == nil:
		return np, fmt.Errorf("put the new pane %s in %s's place: %w", np.ID, old, err)
	case err != nil:
		return NewPane{}, fmt.Errorf("relaunch in a new pane: %w", err)
	case perr != nil:
		return NewPane{}, perr
	}
	np.Window = win
	return np, nil
}

// newPane reads the pane new-window printed (-P).
func newPane(out []string) (NewPane, error) {
	if len(out) != 1 {
		return NewPane{}, fmt.Errorf("relaunch in a new pane: tmux printed %q", out)
	}
	id, pidText, _ := strings.Cut(out[0], sep)
	pid, err := strconv.Atoi(pidText)
	if err != nil || !paneIDRE.MatchString(id) {
		return NewPane{}, fmt.Errorf("relaunch in a new pane: tmux printed %q", out[0])
	}
	return NewPane{ID: id, PID: pid}, nil
}

// tempWindowName is a window name no other window has: teamctl-relaunch-
// and 16 random hex digits.
func tempWindowName() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "teamctl-relaunch-" + hex.EncodeToString(b[:]), nil
}

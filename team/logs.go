package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// DefaultLogLines is how many lines `teamctl logs` prints of each run.
const DefaultLogLines = 100

// LogsOptions are `teamctl logs`'s.
type LogsOptions struct {
	Lines  int  // the last N lines of each run shown (0: none, for a follow's new lines only)
	Follow bool // then the lines the pane prints, until ctx ends, its program ends or the pane goes
}

// Logs prints, a line at a time with print, what member's pane printed: the
// last lines of its history (tmux keeps history-limit lines, 2000 by
// default) — of its pane while it is there, dead or not, else the last words
// kept of it (state.LastWords). A member restarted since its last words were
// kept (its pane is another) has them first, under a line "--- previous run
// (exit 3, ended TIME) ---", then "--- this run (started TIME) ---". With
// Follow, the lines its pane prints from then on (tmux.FollowPane). The
// lines are the pane's, as plain text: the caller makes them visible.
func (t *Team) Logs(ctx context.Context, member string, o LogsOptions, print func(string)) error {
	return t.logs(ctx, member, o, print, nil)
}

// logs is Logs; followed, when not nil, is called once a Follow has printed
// the history and before the first new line (LogsAll orders members'
// histories by it).
func (t *Team) logs(ctx context.Context, member string, o LogsOptions, print func(string), followed func()) error {
	if o.Lines < 0 {
		return fmt.Errorf("logs: %d lines: want 0 or more", o.Lines)
	}
	st, err := state.Load(t.Name)
	if err != nil {
		return err
	}
	m, ok := st.Member(member)
	if !ok {
		return noMember(st, member)
	}
	words, err := state.ReadLastWords(t.Name, member)
	if err != nil {
		return err
	}
	srv := t.srv()
	pane, err := paneOf(ctx, srv, st, m)
	if err != nil {
		return err
	}
	if words != nil && o.Lines > 0 && (pane == nil || !words.Of(pane.ID, pane.PID)) {
		printWords(words, pane != nil, o.Lines, print)
		if pane != nil {
			print(fmt.Sprintf("--- this run (started %s) ---", m.StartedAt.Local().Format(time.DateTime)))
		}
	}
	if pane == nil {
		if words == nil {
			return fmt.Errorf("%s's pane is gone (the team's server is down) and no last lines of it were kept", member)
		}
		return nil
	}
	printAll := func(lines []string) {
		for _, l := range lines {
			print(l)
		}
	}
	if o.Follow && !pane.Dead {
		first := true
		return srv.FollowPane(ctx, pane.SessionID, pane.ID, o.Lines, func(lines []string) {
			printAll(lines)
			if first && followed != nil {
				followed()
			}
			first = false
		})
	}
	lines, err := srv.CaptureHistory(ctx, pane.ID, o.Lines)
	if err != nil {
		return fmt.Errorf("read %s's pane: %w", member, err)
	}
	lines = tmux.WithoutDeadNotice(lines) // tmux's, not the member's: status says how it ended
	printAll(lines[max(0, len(lines)-o.Lines):])
	return nil
}

// paneOf is m's pane on the team's server, nil when it has none there (the
// team is down, its server gone, its pane closed).
func paneOf(ctx context.Context, srv tmuxServer, st *state.Team, m *state.Member) (*tmux.Pane, error) {
	if !st.Running() {
		return nil, nil
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil && !isNoServer(err) {
		return nil, err
	}
	for _, p := range panes {
		if p.ID == m.Pane {
			return &p, nil
		}
	}
	return nil, nil
}

// printWords prints kept last words under a line saying which run they are
// of: the previous one (a current pane follows), or the last one.
func printWords(w *state.LastWords, current bool, n int, print func(string)) {
	which := "last run"
	if current {
		which = "previous run"
	}
	how := []string{}
	if h := w.How(); h != "" {
		how = append(how, h)
	}
	if !w.At.IsZero() {
		how = append(how, "ended "+w.At.Local().Format(time.DateTime))
	}
	if len(how) > 0 {
		which += " (" + strings.Join(how, ", ") + ")"
	}
	print("--- " + which + " ---")
	for _, l := range w.Tail(n) {
		print(l)
	}
}

// noMember says that team has no member called name, and which it has.
func noMember(st *state.Team, name string) error {
	var names []string
	for _, m := range st.Members {
		names = append(names, m.Name)
	}
	return fmt.Errorf("team %s has no member %q (members: %s)", st.Team, name, strings.Join(names, ", "))
}

// LogsAllOutput is where LogsAll's output goes: first the members' names,
// in order (for a caller that lines up their prefixes), then each line with
// its member's name, and what kept a member from showing anything.
type LogsAllOutput struct {
	Members func(names []string)
	Line    func(member, line string)
	Problem func(error)
}

// LogsAll is Logs of every member, in the layout's order, each line given
// to print with its member's name: each member's last lines, member after
// member (tmux keeps no time of a line, so histories cannot be interleaved
// by when they were printed), then with Follow the lines every pane prints,
// interleaved as they come (as `docker compose logs -f` and overmind do),
// until ctx ends or every member's follow has ended. A member that has
// nothing to show (its pane gone, no last words kept) is said to Problem and
// passed by; the error is nil unless every member failed.
func (t *Team) LogsAll(ctx context.Context, o LogsOptions, out LogsAllOutput) error {
	if o.Lines < 0 {
		return fmt.Errorf("logs: %d lines: want 0 or more", o.Lines)
	}
	st, err := state.Load(t.Name)
	if err != nil {
		return err
	}
	if len(st.Members) == 0 {
		return fmt.Errorf("team %s has no members", t.Name)
	}
	var names []string
	for _, m := range st.Members {
		names = append(names, m.Name)
	}
	out.Members(names)
	print, problem := out.Line, out.Problem
	if !o.Follow {
		failed := 0
		for _, m := range st.Members {
			if err := t.Logs(ctx, m.Name, o, func(l string) { print(m.Name, l) }); err != nil {
				failed++
				problem(err)
			}
		}
		if failed == len(st.Members) {
			return fmt.Errorf("no member of team %s has anything to show", t.Name)
		}
		return nil
	}
	// Each member's follow runs at once; its history waits in history[i]
	// until ready[i], and is printed in the members' order; new lines that
	// come before every history is out wait in queue.
	var mu sync.Mutex
	live := false
	var queue [][2]string
	n := len(st.Members)
	history := make([][]string, n)
	ready := make([]chan struct{}, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, m := range st.Members {
		ready[i] = make(chan struct{})
		var once sync.Once
		done := func() { once.Do(func() { close(ready[i]) }) }
		started := false
		followed := func() {
			mu.Lock()
			started = true
			mu.Unlock()
			done()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t.logs(ctx, m.Name, o, func(l string) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case !started:
					history[i] = append(history[i], l)
				case !live:
					queue = append(queue, [2]string{m.Name, l})
				default:
					print(m.Name, l)
				}
			}, followed)
			mu.Lock()
			started = true // a history without a follow ends here
			if errs[i] != nil && ctx.Err() == nil {
				problem(errs[i])
			}
			mu.Unlock()
			done()
		}()
	}
	for i, m := range st.Members {
		select {
		case <-ready[i]:
		case <-ctx.Done():
		}
		mu.Lock()
		for _, l := range history[i] {
			print(m.Name, l)
		}
		history[i] = nil
		mu.Unlock()
	}
	mu.Lock()
	for _, q := range queue {
		print(q[0], q[1])
	}
	queue, live = nil, true
	mu.Unlock()
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil && ctx.Err() == nil {
			failed++
		}
	}
	if failed == n {
		return fmt.Errorf("no member of team %s has anything to show", t.Name)
	}
	return nil
}

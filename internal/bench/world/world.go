// Package world is what teamctl's benchmarks (bench/up, bench/clean,
// bench/latency, bench/cost, bench/rss, bench/top) share: their main (see
// Main), a teamctl binary built once (see Teamctl), and isolated worlds, each
// with its own HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME and a short
// TMUX_TMPDIR, so that a team runs on its own tmux server and never on the
// user's. A world's team is stand-in agents (teamctl's hidden `stand-in`
// command), each running a TEAMCTL_STANDIN_SCRIPT.
package world

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
)

// Timeout bounds any one external command but go build.
const Timeout = 30 * time.Second

// Build builds teamctl into a new temp directory and returns the binary's path
// and how to remove it. The path is kept short: `teamctl up` passes it once per
// member in one tmux command, and tmux refuses a command over 16 KiB.
func Build(ctx context.Context) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "tcx")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "teamctl")
	if out, err := Command(ctx, 5*time.Minute, "", nil, "go", "build", "-o", bin, "github.com/teamctl/teamctl/cmd/teamctl"); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// Teamctl is the teamctl binary a benchmark's run uses: bin when it is given
// (one built already, which remove leaves alone), else one built now by Build,
// said on log, which remove removes.
func Teamctl(ctx context.Context, log io.Writer, bin string) (path string, remove func(), err error) {
	if bin != "" {
		return bin, func() {}, nil
	}
	fmt.Fprintln(log, "building teamctl")
	return Build(ctx)
}

// Member is one stand-in of a team: Members[0] is the lead.
type Member struct {
	Name   string // "lead" for the lead; mate-NN for teammates (see Names)
	Script string // its TEAMCTL_STANDIN_SCRIPT
}

// Names are the names of a lead and n-1 teammates.
func Names(n int) []string {
	names := []string{"lead"}
	for i := 1; i < n; i++ {
		names = append(names, fmt.Sprintf("mate-%02d", i))
	}
	return names
}

// World is one team's isolated environment.
type World struct {
	Bin, Team string
	Dir       string // holds everything below; removed by Destroy
	Work      string // the layout and the members' cwd
	StateHome string // XDG_STATE_HOME: teamctl's state is in StateHome/teamctl/Team
	TmuxDir   string // TMUX_TMPDIR
	Env       []string
	pids      []int // processes to see gone on Destroy
}

// New makes a world for team, run by the teamctl binary bin. Its environment
// is ours but for the isolating variables, so a setting such as GODEBUG given
// to the benchmark reaches teamctl and the supervisor.
func New(bin, team string) (*World, error) {
	dir, err := os.MkdirTemp("", "tcb") // short: it holds the tmux socket (~108 bytes max)
	if err != nil {
		return nil, err
	}
	w := &World{Bin: bin, Team: team, Dir: dir, Work: filepath.Join(dir, "w"),
		StateHome: filepath.Join(dir, "s"), TmuxDir: filepath.Join(dir, "t")}
	home := filepath.Join(dir, "h")
	for _, d := range []string{w.Work, w.StateHome, w.TmuxDir, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "CLAUDE_CONFIG_DIR", "XDG_STATE_HOME", "TMUX_TMPDIR", "TMUX", "TMUX_PANE", "TEAMCTL_TEAM", "TEAMCTL_CLAUDE":
			continue
		}
		w.Env = append(w.Env, kv)
	}
	w.Env = append(w.Env, "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"XDG_STATE_HOME="+w.StateHome, "TMUX_TMPDIR="+w.TmuxDir)
	return w, nil
}

// Up writes the team's layout (stand-in members, main-vertical, watchdog.quiet
// quiet, no prompts, so that a member prints nothing but its script) and runs
// `teamctl up`, which also starts the team's supervisor in the background.
func (w *World) Up(ctx context.Context, quiet time.Duration, members []Member) error {
	var b strings.Builder
	fmt.Fprintf(&b, "claude:\n  command: %q\n  args: [stand-in]\nteam: %s\nlayout: main-vertical\n", w.Bin, w.Team)
	fmt.Fprintf(&b, "watchdog:\n  quiet: %s\n", quiet)
	fmt.Fprintf(&b, "lead:\n  env: {TEAMCTL_STANDIN_SCRIPT: %q}\n", members[0].Script)
	if len(members) > 1 {
		b.WriteString("members:\n")
	}
	for _, m := range members[1:] {
		fmt.Fprintf(&b, "  - name: %s\n    env: {TEAMCTL_STANDIN_SCRIPT: %q}\n", m.Name, m.Script)
	}
	layout := filepath.Join(w.Work, "layout.yaml")
	if err := os.WriteFile(layout, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if out, err := w.Teamctl(ctx, "up", "--quiet", layout); err != nil {
		return fmt.Errorf("teamctl up: %v\n%s", err, out)
	}
	return nil
}

// Teamctl runs the world's teamctl with args.
func (w *World) Teamctl(ctx context.Context, args ...string) (string, error) {
	return Command(ctx, Timeout, w.Work, w.Env, w.Bin, args...)
}

// Tmux runs tmux on the team's socket.
func (w *World) Tmux(ctx context.Context, args ...string) (string, error) {
	return w.TmuxOn(ctx, state.SocketName(w.Team), args...)
}

// TmuxOn runs tmux on another socket of the world (tmux -L socket).
func (w *World) TmuxOn(ctx context.Context, socket string, args ...string) (string, error) {
	return Command(ctx, Timeout, w.Work, w.Env, "tmux", append([]string{"-L", socket}, args...)...)
}

// Status is what the benchmarks read of `teamctl status --json`, as a user's
// script would read it: the JSON, not teamctl's types.
type Status struct {
	Supervisor struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	} `json:"supervisor"`
	Members []struct {
		Name string `json:"name"`
		PID  int    `json:"pid"`
	} `json:"members"`
}

// Status is `teamctl status --json`; its members' processes (and the
// supervisor) are remembered, for Destroy to see them gone.
func (w *World) Status(ctx context.Context) (*Status, error) {
	out, err := Command(ctx, Timeout, w.Work, w.Env, w.Bin, "status", "--json", "--team", w.Team)
	if err != nil {
		return nil, fmt.Errorf("teamctl status: %v\n%s", err, out)
	}
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return nil, fmt.Errorf("teamctl status --json: %v\n%s", err, out)
	}
	for _, m := range st.Members {
		w.Track(m.PID)
	}
	w.Track(st.Supervisor.PID)
	return &st, nil
}

// Track has Destroy wait for process pid (when > 0) to be gone.
func (w *World) Track(pid int) {
	if pid > 0 && !slices.Contains(w.pids, pid) {
		w.pids = append(w.pids, pid)
	}
}

// WaitSupervisor waits (at most d) until status says the supervisor runs and
// the supervisor has logged its "started" event, which it does once its tmux
// control client is attached and following output. It returns the
// supervisor's pid and the time of that event.
func (w *World) WaitSupervisor(ctx context.Context, d time.Duration) (int, time.Time, error) {
	deadline := time.Now().Add(d)
	for {
		st, err := w.Status(ctx)
		if err != nil {
			return 0, time.Time{}, err
		}
		if st.Supervisor.Running {
			evs, err := w.Events()
			if err != nil {
				return 0, time.Time{}, err
			}
			for _, e := range evs {
				if e.Kind == state.EventSupervisor && strings.HasPrefix(e.Detail, "started") {
					return st.Supervisor.PID, e.Time, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return 0, time.Time{}, fmt.Errorf("no supervisor following the team after %s (supervisor %+v)", d, st.Supervisor)
		}
		if err := Sleep(ctx, 20*time.Millisecond); err != nil { // poll interval
			return 0, time.Time{}, err
		}
	}
}

// Events reads the team's events.jsonl (none yet: empty).
func (w *World) Events() ([]state.Event, error) {
	f, err := os.Open(filepath.Join(w.StateHome, "teamctl", w.Team, "events.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []state.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e state.Event
		if json.Unmarshal(sc.Bytes(), &e) == nil { // a line being written is skipped
			evs = append(evs, e)
		}
	}
	return evs, sc.Err()
}

// FirstEvents waits (at most d) until every one of members has an event of
// kind, and returns the first such event of each.
func (w *World) FirstEvents(ctx context.Context, d time.Duration, kind state.EventKind, members []string) (map[string]state.Event, error) {
	deadline := time.Now().Add(d)
	for {
		evs, err := w.Events()
		if err != nil {
			return nil, err
		}
		first := map[string]state.Event{}
		for _, e := range evs {
			if _, seen := first[e.Member]; e.Kind == kind && !seen {
				first[e.Member] = e
			}
		}
		var missing []string
		for _, m := range members {
			if _, ok := first[m]; !ok {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 {
			return first, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no %q event after %s for %s", kind, d, strings.Join(missing, ", "))
		}
		if err := Sleep(ctx, 50*time.Millisecond); err != nil { // poll interval
			return nil, err
		}
	}
}

// InProcess makes the world this process's own (XDG_STATE_HOME and
// TMUX_TMPDIR in its environment), for a benchmark that writes a team's
// files or runs tmux itself rather than through w's commands; the returned
// func puts the environment back. Until then, anything in the process that
// uses the state package or runs tmux or teamctl with the process's
// environment gets this world.
func (w *World) InProcess() (restore func()) {
	var undo []func()
	for k, v := range map[string]string{"XDG_STATE_HOME": w.StateHome, "TMUX_TMPDIR": w.TmuxDir} {
		old, had := os.LookupEnv(k)
		os.Setenv(k, v)
		undo = append(undo, func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		})
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// Destroy stops the team (`teamctl down --timeout 2s`), kills every tmux server
// of the world by its socket, waits (briefly) for the members and the
// supervisor to be gone, so that they cost nothing in what is measured next,
// and removes the world. It runs even when a benchmark is interrupted.
func (w *World) Destroy() {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if _, err := os.Stat(filepath.Join(w.StateHome, "teamctl", w.Team)); err == nil {
		w.Teamctl(ctx, "down", "--team", w.Team, "--timeout", "2s")
	}
	socks, _ := os.ReadDir(filepath.Join(w.TmuxDir, fmt.Sprintf("tmux-%d", os.Getuid())))
	for _, s := range socks {
		w.TmuxOn(ctx, s.Name(), "kill-server")
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range w.pids {
		for proc.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // poll interval while waiting for an exit
		}
	}
	os.RemoveAll(w.Dir)
}

// Command runs name with args in dir (env nil: ours), for at most d, and
// returns its combined output.
func Command(ctx context.Context, d time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Sleep waits for d, or less when ctx ends (it then returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of xs.
func Percentile(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[max(0, int(math.Ceil(p/100*float64(len(s))))-1)]
}

// CPUTicks is a process's utime+stime from /proc/PID/stat, in clock ticks.
func CPUTicks(pid int) (int64, error) {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return 0, err
	}
	return st.UTime + st.STime, nil
}

// Children are the pids of pid's child processes.
func Children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := proc.ReadStat(c); err == nil && st.PPID == pid {
			out = append(out, c)
		}
	}
	return out
}

// ClockTicks is the kernel's USER_HZ from `getconf CLK_TCK`, or 100 (Linux's
// value on every common architecture) when getconf fails; how says which.
func ClockTicks(ctx context.Context) (hz int64, how string) {
	out, err := Command(ctx, 10*time.Second, "", nil, "getconf", "CLK_TCK")
	if err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64); err == nil && n > 0 {
			return n, "getconf CLK_TCK"
		}
	}
	return 100, "assumed (getconf CLK_TCK failed)"
}

// ProcStatusKB is a "Name:   N kB" line of /proc/PID/status, in kB.
func ProcStatusKB(pid int, name string) (int64, error) {
	v, err := ProcStatusKBs(pid, name)
	return v[name], err
}

// ProcStatusKBs are such lines read from one read of the file: values the
// kernel reports together (VmHWM is never below VmRSS then; read one after
// the other, RSS could have grown past the peak read a moment before).
func ProcStatusKBs(pid int, names ...string) (map[string]int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		for _, name := range names {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("/proc/%d/status: %s: %w", pid, name, err)
				}
				out[name] = n
			}
		}
	}
	for _, name := range names {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("/proc/%d/status: no %s", pid, name)
		}
	}
	return out, nil
}

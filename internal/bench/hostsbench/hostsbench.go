// Package hostsbench is the benchmark `go run ./bench/hosts` runs; see that command's doc.
package hostsbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/testhost"
	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/state"
)

// targetGap is how much later (p95) a remote member's stall may be reported
// than a local one's.
const targetGap = 20.0 // ms

// Config is a run's settings: bench/hosts' flags, and Bin.
type Config struct {
	Members, Rounds  int // members on each side
	Quiet, Base, Gap time.Duration
	Bin              string
}

// Side is one team's figures: all here, or on the test host.
type Side struct {
	Where   string    `json:"where"`
	P50     float64   `json:"p50_ms"`
	P95     float64   `json:"p95_ms"`
	Max     float64   `json:"max_ms"`
	CPU     float64   `json:"supervisor_cpu_percent"` // of one core, while its members ran
	Samples []float64 `json:"samples_ms"`
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members   int     `json:"members"`
	Rounds    int     `json:"rounds"`
	QuietMS   float64 `json:"quiet_ms"`
	Local     Side    `json:"local"`
	Remote    Side    `json:"remote"`
	GapP95    float64 `json:"p95_gap_ms"` // remote p95 − local p95
	TargetGap float64 `json:"target_gap_ms"`
	Pass      bool    `json:"pass"`
}

// Passed is whether r meets the target.
func (r *Report) Passed() bool { return r.Pass }

// Run makes a test host (a network namespace with a real sshd: root, and
// openssh-server), builds teamctl (unless cfg.Bin is one), and runs
// cfg.Rounds rounds, each a team of cfg.Members members here, then a team
// of cfg.Members members on the host (and one idle member here, which a
// team needs).
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 1 || cfg.Rounds < 1 || cfg.Quiet <= 0 || cfg.Base <= 0 || cfg.Gap < 0 {
		return nil, errors.New("need -members >= 1, -rounds >= 1, -quiet > 0, -base > 0, -gap >= 0")
	}
	h, end, err := testhost.New()
	if err != nil {
		return nil, fmt.Errorf("a test host: %w", err)
	}
	defer end()
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	rep := &Report{Members: cfg.Members, Rounds: cfg.Rounds, QuietMS: ms(cfg.Quiet), TargetGap: targetGap}
	rep.Local.Where, rep.Remote.Where = "here", "on the test host, over ssh"
	var cpuL, cpuR []float64
	for r := range cfg.Rounds {
		for _, remote := range []bool{false, true} {
			lat, cpu, err := round(ctx, bin, h, cfg, remote)
			if err != nil {
				return nil, fmt.Errorf("round %d: %w", r+1, err)
			}
			side, where := &rep.Local, "here  "
			if remote {
				side, where = &rep.Remote, "remote"
				cpuR = append(cpuR, cpu)
			} else {
				cpuL = append(cpuL, cpu)
			}
			side.Samples = append(side.Samples, lat...)
			fmt.Fprintf(log, "round %d %s: p50 %6.1f ms  max %6.1f ms  supervisor %.2f%% of a core\n", r+1, where, world.Percentile(lat, 50), slices.Max(lat), cpu)
		}
	}
	for _, x := range []struct {
		s   *Side
		cpu []float64
	}{{&rep.Local, cpuL}, {&rep.Remote, cpuR}} {
		x.s.P50, x.s.P95, x.s.Max = world.Percentile(x.s.Samples, 50), world.Percentile(x.s.Samples, 95), slices.Max(x.s.Samples)
		x.s.CPU = world.Percentile(x.cpu, 50)
	}
	rep.GapP95 = rep.Remote.P95 - rep.Local.P95
	rep.Pass = rep.GapP95 <= targetGap
	return rep, nil
}

// round runs one team and returns each asking member's latency in ms and
// the supervisor's processor time while they ran, in % of a core.
func round(ctx context.Context, bin string, h *testhost.Host, cfg Config, remote bool) ([]float64, float64, error) {
	team := "hlocal"
	if remote {
		team = "hremote"
	}
	w, err := world.New(bin, team)
	if err != nil {
		return nil, 0, err
	}
	defer w.Destroy()
	w.Env = append(w.Env, sshconn.ConfigEnv+"="+h.ConfigFile)
	root := filepath.Join(h.Home, team)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, 0, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "team: %s\nwatchdog: {quiet: %s}\n", team, cfg.Quiet)
	if remote {
		fmt.Fprintf(&b, "hosts:\n  far: {ssh: %s, root: %s}\nmembers:\n  - name: idle\n    command: [sleep, \"100000\"]\n", h.Dest, root)
	} else {
		b.WriteString("members:\n")
	}
	files := map[string]string{}
	var names []string
	for i := range cfg.Members {
		name := fmt.Sprintf("m%02d", i)
		names = append(names, name)
		files[name] = filepath.Join(w.Dir, name)
		after := cfg.Base + time.Duration(i)*cfg.Gap
		// The time is written right before the question: no latency comes
		// out below the truth. The test host shares this machine's clock.
		script := fmt.Sprintf(`sleep %.3f; date +%%s.%%N > %s; printf 'Overwrite? (y/n) '; read a; sleep 100000`, after.Seconds(), files[name])
		fmt.Fprintf(&b, "  - name: %s\n", name)
		if remote {
			b.WriteString("    host: far\n")
		}
		fmt.Fprintf(&b, "    command: [sh, -c, %q]\n", script)
	}
	layout := filepath.Join(w.Work, "layout.yaml")
	if err := os.WriteFile(layout, []byte(b.String()), 0o600); err != nil {
		return nil, 0, err
	}
	if out, err := w.Teamctl(ctx, "up", "--quiet", layout); err != nil {
		return nil, 0, fmt.Errorf("teamctl up: %v\n%s", err, out)
	}
	if remote {
		defer func() {
			c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sshconn.Host{Dest: h.Dest, Config: h.ConfigFile}.Run(c, 15*time.Second, nil, "tmux", "-L", state.SocketName(team), "kill-server")
		}()
	}
	pid, following, err := w.WaitSupervisor(ctx, 30*time.Second)
	if err != nil {
		return nil, 0, err
	}
	t0, c0 := time.Now(), ticks(pid)
	last := cfg.Base + time.Duration(len(names))*cfg.Gap
	stalls, err := w.FirstEvents(ctx, last+cfg.Quiet+30*time.Second, state.EventStall, names)
	if err != nil {
		return nil, 0, err
	}
	hz, _ := world.ClockTicks(ctx)
	cpu := 100 * float64(ticks(pid)-c0) / float64(hz) / time.Since(t0).Seconds()
	var lat []float64
	for _, name := range names {
		b, err := os.ReadFile(files[name])
		if err != nil {
			return nil, 0, err
		}
		secs, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", files[name], err)
		}
		asked := time.Unix(0, int64(secs*1e9))
		if !asked.After(following) {
			return nil, 0, fmt.Errorf("%s asked before the supervisor followed the panes: raise -base", name)
		}
		if st := stalls[name]; !strings.HasPrefix(st.Line, "Overwrite?") {
			return nil, 0, fmt.Errorf("%s: a stall on %q, not on its question", name, st.Line)
		}
		lat = append(lat, ms(stalls[name].Time.Sub(asked)-cfg.Quiet))
	}
	return lat, cpu, nil
}

func ticks(pid int) int64 {
	n, _ := world.CPUTicks(pid)
	return n
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Print prints r for a reader.
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nstall latency beyond watchdog.quiet (%.0f ms), %d members a side, %d rounds\n", r.QuietMS, r.Members, r.Rounds)
	for _, s := range []Side{r.Local, r.Remote} {
		fmt.Fprintf(out, "%-28s p50 %6.1f ms   p95 %6.1f ms   max %6.1f ms   supervisor %.2f%% of a core\n", s.Where, s.P50, s.P95, s.Max, s.CPU)
	}
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "remote p95 − local p95: %+.1f ms (target ≤ %.0f ms) %s\n", r.GapP95, r.TargetGap, verdict)
}

// Package servebench is the benchmark `go run ./bench/serve` runs; see that command's doc.
package servebench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/browser"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
)

const (
	targetP95  = 300.0    // ms
	targetCore = 1.0      // % of one core
	targetKB   = 40 << 10 // VmHWM, kB
	team       = "serve"
)

// Config is a run's settings: bench/serve's flags, and Bin.
type Config struct {
	Members, Rate, Samples, Pages, Loads int
	Duration, Settle, Pace               time.Duration
	Bin                                  string // a teamctl binary already built; "" builds one
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members    int       `json:"members"`
	Rate       int       `json:"lines_per_second_each"`
	Pages      int       `json:"pages_open"`
	EventMS    []float64 `json:"event_latencies_ms"`
	StateMS    []float64 `json:"state_latencies_ms"`
	P50        float64   `json:"p50_ms"`
	P95        float64   `json:"p95_ms"`
	Max        float64   `json:"max_ms"`
	WindowS    float64   `json:"window_s"`
	ClockTicks int64     `json:"clock_ticks_per_s"`
	ServeCPU   float64   `json:"serve_cpu_s"`
	ServeCore  float64   `json:"serve_core_percent"`
	RSSKB      int64     `json:"serve_vm_rss_kb"`
	HWMKB      int64     `json:"serve_vm_hwm_kb"`
	Loads      int       `json:"concurrent_page_loads"`
	LoadErrors []string  `json:"load_errors,omitempty"`
	LoadMS     float64   `json:"loads_wall_ms"`
	HWMAfterKB int64     `json:"serve_vm_hwm_after_loads_kb"`
	TargetP95  float64   `json:"target_p95_ms"`
	TargetCore float64   `json:"target_core_percent"`
	TargetKB   int64     `json:"target_vm_hwm_kb"`
	Pass       bool      `json:"pass"`
}

// Passed is whether r meets the targets.
func (r *Report) Passed() bool { return r.Pass }

// Run builds teamctl (unless cfg.Bin is one) and measures; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 2 || cfg.Rate < 1 || cfg.Samples < 2 || cfg.Pages < 1 || cfg.Loads < 1 || cfg.Duration <= 0 || cfg.Settle < 0 || cfg.Pace < 0 {
		return nil, errors.New("need -members >= 2, -rate >= 1, -samples >= 2, -pages >= 1, -loads >= 1, -duration > 0, -settle >= 0, -pace >= 0")
	}
	exe, err := browser.Path()
	if err != nil {
		return nil, err
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	hz, _ := world.ClockTicks(ctx)
	rep := &Report{Members: cfg.Members, Rate: cfg.Rate, Pages: cfg.Pages, Loads: cfg.Loads, WindowS: cfg.Duration.Seconds(),
		ClockTicks: hz, TargetP95: targetP95, TargetCore: targetCore, TargetKB: targetKB}
	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	// This process writes the team's files itself: in the world's folder
	// (the whole process's until Run returns, as bench/top does).
	defer w.InProcess()()
	var members []world.Member
	for _, name := range world.Names(cfg.Members) {
		members = append(members, world.Member{Name: name, Script: fmt.Sprintf("lines:%d", cfg.Rate)})
	}
	fmt.Fprintf(log, "bringing up %d members printing %d lines/s each\n", cfg.Members, cfg.Rate)
	if err := w.Up(ctx, 2*time.Second, members); err != nil {
		return nil, err
	}
	if _, _, err := w.WaitSupervisor(ctx, 30*time.Second); err != nil {
		return nil, err
	}

	// teamctl serve, on a port of its own.
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--team", team)
	cmd.Env, cmd.Dir = w.Env, w.Work
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start teamctl serve: %w", err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	w.Track(cmd.Process.Pid)
	login, err := loginURL(out, 30*time.Second)
	if err != nil {
		return nil, err
	}
	base := login[:strings.Index(login, "/login")]

	// The pages: one browser, cfg.Pages tabs.
	bctx, bcancel, err := browser.Start(ctx, exe, 1000, 800)
	if err != nil {
		return nil, err
	}
	defer bcancel()
	if err := chromedp.Do(bctx, chromedp.Navigate(login)); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "opening %d pages\n", cfg.Pages)
	tabs := []context.Context{bctx}
	for range cfg.Pages - 1 {
		// Each page in a browser context of its own, logged in on its own, as
		// pages on several devices are: over HTTP/1.1 one browser has 6
		// connections to a host, and each page's event stream holds one.
		tctx, tcancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
		defer tcancel()
		if err := chromedp.Do(tctx, chromedp.Navigate(login)); err != nil {
			return nil, err
		}
		tabs = append(tabs, tctx)
	}
	for _, t := range tabs {
		if err := waitJS(t, `document.querySelector('#rows > li[data-member="mate-01"]') !== null`); err != nil {
			return nil, fmt.Errorf("a page never showed the team: %w", err)
		}
	}

	// 1. Latency, in the first page: mate-01's detail open, so its events show.
	fmt.Fprintf(log, "latency: %d changes\n", cfg.Samples)
	if err := chromedp.Do(bctx, chromedp.Click(`#rows > li[data-member="mate-01"] .name`)); err != nil {
		return nil, err
	}
	if err := waitJS(bctx, `document.getElementById("dname").textContent.startsWith("mate-01")`); err != nil {
		return nil, err
	}
	if err := chromedp.Do(bctx, chromedp.Evaluate[chromedp.Void](`(() => {
  window.benchWant = []; window.benchAt = {};
  const look = () => { const t = document.querySelector("main").textContent;
    for (const m of window.benchWant) if (!window.benchAt[m] && t.includes(m)) window.benchAt[m] = Date.now(); };
  new MutationObserver(look).observe(document.querySelector("main"), { childList: true, subtree: true, characterData: true });
})()`)); err != nil {
		return nil, err
	}
	if err := latency(ctx, bctx, cfg, rep); err != nil {
		return nil, err
	}
	all := append(slices.Clone(rep.EventMS), rep.StateMS...)
	rep.P50, rep.P95, rep.Max = world.Percentile(all, 50), world.Percentile(all, 95), slices.Max(all)

	// 2. Idle: the members print, the pages stay open, nothing else changes.
	// The detail is closed first: an open one follows its member's pane as it
	// prints (a capture every 250 ms at most), which is not idle.
	if err := chromedp.Do(bctx, chromedp.Click(`#dclose`)); err != nil {
		return nil, err
	}
	if err := world.Sleep(ctx, cfg.Settle); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	fmt.Fprintf(log, "idle: serve (pid %d) with %d pages open, %s\n", pid, cfg.Pages, cfg.Duration)
	t0, err := ticks(pid)
	if err != nil {
		return nil, err
	}
	if err := world.Sleep(ctx, cfg.Duration); err != nil {
		return nil, err
	}
	t1, err := ticks(pid)
	if err != nil {
		return nil, err
	}
	rep.ServeCPU = float64(t1-t0) / float64(hz)
	rep.ServeCore = 100 * rep.ServeCPU / cfg.Duration.Seconds()
	kb, err := world.ProcStatusKBs(pid, "VmRSS", "VmHWM")
	if err != nil {
		return nil, err
	}
	rep.RSSKB, rep.HWMKB = kb["VmRSS"], kb["VmHWM"]

	// 3. Page loads at once.
	fmt.Fprintf(log, "%d page loads at once\n", cfg.Loads)
	rep.LoadErrors, rep.LoadMS = loads(ctx, login, base, cfg.Loads)
	if hwm, err := world.ProcStatusKB(pid, "VmHWM"); err == nil {
		rep.HWMAfterKB = hwm
	}
	rep.Pass = rep.P95 < targetP95 && rep.ServeCore < targetCore && rep.HWMKB < targetKB && len(rep.LoadErrors) == 0
	return rep, nil
}

// latency writes cfg.Samples changes, every Pace to 5/3 of it: half an event
// appended for mate-01 (shown in its detail), half mate-01's restart count in
// state.json (shown in its row, ↻N). The clock starts just before the write
// and stops when the page's own clock saw the change in its DOM.
func latency(ctx, page context.Context, cfg Config, rep *Report) error {
	evlog, err := state.OpenEventLog(team)
	if err != nil {
		return err
	}
	defer evlog.Close()
	for i := range cfg.Samples {
		if err := world.Sleep(ctx, cfg.Pace+rand.N(cfg.Pace*2/3+1)); err != nil { // pacing between samples
			return err
		}
		mark := fmt.Sprintf("bench-mark-%04d", i)
		if i%2 == 1 {
			mark = fmt.Sprintf("↻%d", 1000+i)
		}
		if err := chromedp.Do(page, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`window.benchWant.push(%q)`, mark))); err != nil {
			return err
		}
		var t0 time.Time
		if i%2 == 0 {
			t0 = time.Now()
			if err := evlog.Append(state.Event{Kind: state.EventMessage, Member: "mate-01", Detail: mark}); err != nil {
				return err
			}
		} else if t0, err = restarts(ctx, 1000+i); err != nil {
			return err
		}
		if err := waitJS(page, fmt.Sprintf(`!!window.benchAt[%q]`, mark)); err != nil {
			return fmt.Errorf("change %d (%s) never on the page: %w", i, mark, err)
		}
		at, err := chromedp.Run(page, chromedp.Evaluate[int64](fmt.Sprintf(`window.benchAt[%q]`, mark)))
		if err != nil {
			return err
		}
		ms := float64(time.UnixMilli(at).Sub(t0)) / float64(time.Millisecond)
		if i%2 == 0 {
			rep.EventMS = append(rep.EventMS, ms)
		} else {
			rep.StateMS = append(rep.StateMS, ms)
		}
	}
	return nil
}

// restarts sets mate-01's restart count in state.json, under the team's
// lock, as `teamctl restart` writes it; it returns when the write began.
func restarts(ctx context.Context, n int) (time.Time, error) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlock, err := state.Lock(lctx, team)
	if err != nil {
		return time.Time{}, err
	}
	defer unlock()
	st, err := state.Load(team)
	if err != nil {
		return time.Time{}, err
	}
	m, ok := st.Member("mate-01")
	if !ok {
		return time.Time{}, errors.New("no mate-01 in state.json")
	}
	m.Restarts = n
	t0 := time.Now()
	return t0, state.Save(st)
}

// loads loads the page n times at once (the page, its script and style and
// the view), each on a connection of its own, and says what failed.
func loads(ctx context.Context, login, base string, n int) ([]string, float64) {
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar, Timeout: 60 * time.Second}
	if res, err := cl.Get(login); err != nil {
		return []string{"login: " + err.Error()}, 0
	} else {
		res.Body.Close()
	}
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{DisableKeepAlives: true}
			defer tr.CloseIdleConnections()
			c := &http.Client{Jar: jar, Timeout: 60 * time.Second, Transport: tr}
			<-start
			for _, p := range []string{"/", "/static/app.js", "/static/app.css", "/api/view"} {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+p, nil)
				res, err := c.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != 200 {
						err = fmt.Errorf("%s", res.Status)
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Sprintf("load %d %s: %v", i, p, err))
					mu.Unlock()
				}
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return errs, float64(time.Since(t0)) / float64(time.Millisecond)
}

func loginURL(r io.Reader, d time.Duration) (string, error) {
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); strings.Contains(l, "/login?token=") {
				got <- l
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case u := <-got:
		return u, nil
	case <-time.After(d):
		return "", fmt.Errorf("teamctl serve printed no login URL in %s", d)
	}
}

// waitJS waits (a minute at most) for the page's expression to be true.
func waitJS(page context.Context, expr string) error {
	// On a timer, not on animation frames: a tab in the background draws none.
	_, err := chromedp.Run(page, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	return err
}

// ticks is utime+stime+cutime+cstime of pid (serve's tmux commands, reaped,
// included).
func ticks(pid int) (int64, error) {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return 0, err
	}
	return st.UTime + st.STime + st.CUTime + st.CSTime, nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(out, "\nteamctl serve: %d members (stand-in) printing %d lines/s each; %d pages open in headless Chromium\n", r.Members, r.Rate, r.Pages)
	fmt.Fprintf(out, "write to the team folder → in the page's DOM, %d changes:\n", len(r.EventMS)+len(r.StateMS))
	for _, k := range []struct {
		name string
		ms   []float64
	}{{"events.jsonl", r.EventMS}, {"state.json", r.StateMS}} {
		fmt.Fprintf(out, "  %-12s  p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms\n", k.name, world.Percentile(k.ms, 50), world.Percentile(k.ms, 95), slices.Max(k.ms))
	}
	fmt.Fprintf(out, "  all           p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms  (target p95 < %.0f ms) %s\n", r.P50, r.P95, r.Max, r.TargetP95, verdict(r.P95 < r.TargetP95))
	fmt.Fprintf(out, "idle, %.0fs: serve %.2f s of CPU, %.2f%% of one core (target < %.0f%%) %s\n", r.WindowS, r.ServeCPU, r.ServeCore, r.TargetCore, verdict(r.ServeCore < r.TargetCore))
	fmt.Fprintf(out, "serve's VmRSS %.1f MiB, VmHWM %.1f MiB (target < %d MiB) %s\n", float64(r.RSSKB)/1024, float64(r.HWMKB)/1024, r.TargetKB>>10, verdict(r.HWMKB < r.TargetKB))
	fmt.Fprintf(out, "%d page loads at once (page, script, style, view): %d errors in %.0f ms %s; VmHWM after %.1f MiB\n",
		r.Loads, len(r.LoadErrors), r.LoadMS, verdict(len(r.LoadErrors) == 0), float64(r.HWMAfterKB)/1024)
	for _, e := range r.LoadErrors[:min(5, len(r.LoadErrors))] {
		fmt.Fprintf(out, "  %s\n", e)
	}
}

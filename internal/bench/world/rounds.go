package world

import (
	"context"
	"fmt"
	"io"
	"slices"
	"syscall"
	"time"
)

// Stats are one variant's timings in milliseconds.
type Stats struct {
	Name    string    `json:"name"`
	How     string    `json:"how"`
	Median  float64   `json:"median_ms"`
	P90     float64   `json:"p90_ms"`
	Min     float64   `json:"min_ms"`
	Samples []float64 `json:"samples_ms"`
	// CPU is the median of the processor time a round took (user and
	// system, the benchmark's process and the commands it waited for): on
	// two cores, what running commands at once cannot hide.
	CPU float64 `json:"cpu_median_ms"`
}

// Variant is one way of doing what a benchmark times.
type Variant struct {
	Name, How string
}

// Rounds times every variant warmup+rounds times, interleaved round by round
// (so a noisy spell hits them all alike), through once(i), which returns how
// long variant i took; progress goes to log. It returns each variant's Stats
// over the timed rounds.
func Rounds(ctx context.Context, log io.Writer, variants []Variant, warmup, rounds int, once func(ctx context.Context, i int) (time.Duration, error)) ([]Stats, error) {
	samples := make([][]float64, len(variants))
	cpus := make([][]float64, len(variants))
	for r := range warmup + rounds {
		label := fmt.Sprintf("round %2d", r-warmup+1)
		if r < warmup {
			label = "warm-up "
		}
		fmt.Fprint(log, label)
		for i, v := range variants {
			cpu0 := cpuTime()
			d, err := once(ctx, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v.Name, err)
			}
			cpu := float64((cpuTime() - cpu0).Microseconds()) / 1000
			ms := float64(d.Microseconds()) / 1000
			fmt.Fprintf(log, "  %s %6.1f ms", v.Name, ms)
			if r >= warmup {
				samples[i] = append(samples[i], ms)
				cpus[i] = append(cpus[i], cpu)
			}
		}
		fmt.Fprintln(log)
	}
	out := make([]Stats, len(variants))
	for i, v := range variants {
		out[i] = Summarize(v.Name, v.How, samples[i])
		out[i].CPU = Summarize("", "", cpus[i]).Median
	}
	return out, nil
}

// CPUTime is the processor time of this process and of the children it
// waited for, so far: for a benchmark that counts a part of a round only.
func CPUTime() time.Duration { return cpuTime() }

// cpuTime is the processor time of this process and of the children it
// waited for, so far.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// Summarize computes median, p90 and min of ms.
func Summarize(name, how string, ms []float64) Stats {
	s := slices.Sorted(slices.Values(ms))
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stats{Name: name, How: how, Median: median, P90: Percentile(ms, 90), Min: s[0], Samples: ms}
}

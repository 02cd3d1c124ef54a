package world

import (
	"context"
	"fmt"
	"io"
	"slices"
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
	for r := range warmup + rounds {
		label := fmt.Sprintf("round %2d", r-warmup+1)
		if r < warmup {
			label = "warm-up "
		}
		fmt.Fprint(log, label)
		for i, v := range variants {
			d, err := once(ctx, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v.Name, err)
			}
			ms := float64(d.Microseconds()) / 1000
			fmt.Fprintf(log, "  %s %6.1f ms", v.Name, ms)
			if r >= warmup {
				samples[i] = append(samples[i], ms)
			}
		}
		fmt.Fprintln(log)
	}
	out := make([]Stats, len(variants))
	for i, v := range variants {
		out[i] = Summarize(v.Name, v.How, samples[i])
	}
	return out, nil
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

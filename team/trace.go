package team

import (
	"fmt"
	"io"
	"time"
)

// A Tracer writes a line per step of a verb with the time since the
// tracer was made and since the step before: where `up`'s time goes. A nil
// *Tracer traces nothing.
type Tracer struct {
	w     io.Writer
	start time.Time
	last  time.Time
}

// NewTracer traces to w from now.
func NewTracer(w io.Writer) *Tracer {
	now := time.Now()
	return &Tracer{w: w, start: now, last: now}
}

// Step says that step is done.
func (t *Tracer) Step(step string) {
	if t == nil {
		return
	}
	now := time.Now()
	fmt.Fprintf(t.w, "trace %7.1f ms  +%6.1f ms  %s\n", ms(now.Sub(t.start)), ms(now.Sub(t.last)), step)
	t.last = now
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

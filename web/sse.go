package web

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// keepAliveEvery is how often a quiet stream says it is there: a comment
// tells a dead connection from a quiet team.
const keepAliveEvery = 25 * time.Second

// eventStream is a Server-Sent Events answer, the page's view's and a
// member's screen's alike: it holds one of the session's stream slots, is
// not ended by the server's read deadline, and sends an event at once, at
// every wake (no more often than gap), and a keep-alive when quiet.
type eventStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// openStream starts r's answer as an event stream; done frees its slot.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request) (context.Context, *eventStream, func()) {
	ctx, done := s.sessions.openStream(r.Context(), s.sessions.of(r))
	rc := http.NewResponseController(w)
	// The server's ReadTimeout bounds reading the request; left in place it
	// would end the stream (its context) once it passed.
	rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	return ctx, &eventStream{w: w, rc: rc}, done
}

// send writes one event of kind with data; false once the page is gone.
func (e *eventStream) send(kind string, data []byte) bool {
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", kind, data); err != nil {
		return false
	}
	return e.rc.Flush() == nil
}

// run calls next at once and at every wake, at most every gap, keeping the
// stream alive between, until ctx ends or next says the page is gone.
func (e *eventStream) run(ctx context.Context, wake <-chan struct{}, gap time.Duration, next func() bool) {
	if !next() {
		return
	}
	keep := time.NewTicker(keepAliveEvery)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
			if !next() {
				return
			}
			if gap > 0 {
				select {
				case <-time.After(gap):
				case <-ctx.Done():
					return
				}
			}
		case <-keep.C:
			if _, err := fmt.Fprint(e.w, ": keep-alive\n\n"); err != nil || e.rc.Flush() != nil {
				return
			}
		}
	}
}

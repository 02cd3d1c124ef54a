package standin

import (
	"context"
	"io"
	"strings"
)

// readInput delivers what is typed, as it arrives (a line at a time from a
// terminal in its usual mode, key by key in key mode), until stdin ends, then
// closes the channel.
func readInput(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case ch <- string(buf[:n]):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// more waits for more typed input. ok is false when ctx ended first; after the
// end of stdin it waits for ctx.
func (a *agent) more(ctx context.Context) (ok bool) {
	for {
		select {
		case <-ctx.Done():
			return false
		case in, open := <-a.input:
			if open {
				a.pending += in
				return true
			}
			a.input = nil
		}
	}
}

// nextLine takes the first whole line typed, if there is one.
func (a *agent) nextLine() (string, bool) {
	i := strings.IndexByte(a.pending, '\n')
	if i < 0 {
		return "", false
	}
	line := strings.TrimRight(a.pending[:i], "\r")
	a.pending = a.pending[i+1:]
	return line, true
}

// readLine waits for one typed line. ok is false when ctx ended first; after the end
// of stdin it waits for ctx.
func (a *agent) readLine(ctx context.Context) (line string, ok bool) {
	for {
		if l, ok := a.nextLine(); ok {
			return l, true
		}
		if !a.more(ctx) {
			return "", false
		}
	}
}

package stallwatch

// Stream follows a program's raw output (for `teamctl run`, where there is no
// tmux screen to capture): it keeps the last bytes written, and Check looks at
// them as a screen.
type Stream struct {
	d    *Detector
	tail []byte
	max  int
}

// streamTail is how much output a Stream keeps: far more than a screen.
const streamTail = 16 << 10

// NewStream returns a Stream checking with d.
func (d *Detector) NewStream() *Stream { return &Stream{d: d, max: streamTail} }

// Write records output; it never fails.
func (s *Stream) Write(p []byte) (int, error) {
	if len(p) >= s.max {
		s.tail = append(s.tail[:0], p[len(p)-s.max:]...)
		return len(p), nil
	}
	if over := len(s.tail) + len(p) - s.max; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.tail = append(s.tail, p...)
	return len(p), nil
}

// Check looks at the output so far as if it were the screen.
func (s *Stream) Check() Verdict { return s.d.Check(Strip(s.tail)) }

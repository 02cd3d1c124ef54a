package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/teamctl/teamctl/internal/safefile"
)

// MaxLineBytes is the longest line a Follower reads (32 MB; a model's
// response is well under 1 MB, and the longest lines are requests and tool
// results, which are skipped anyway). A longer line is streamed past without
// being held, and said.
const MaxLineBytes = 32 << 20

// maxProblems is how many problems one Read describes; the rest are counted.
const maxProblems = 10

// Stats is what one Read did.
type Stats struct {
	Bytes     int64 // read and done with (complete lines)
	Lines     int
	Responses int  // response lines (a response on three lines is three)
	Malformed int  // lines that are not one JSON object, or responses whose usage is not numbers
	TooLong   int  // lines over the cap, skipped
	Capped    int  // responses with a count out of range, capped
	Restarted bool // the file was replaced or truncated: read again from the start

	// Problems describes the first few malformed, too long and capped lines
	// ("line 12: …"), for the caller to log or show, and then how many
	// more there were.
	Problems []string
	more     int
}

func (s *Stats) problem(format string, a ...any) {
	if len(s.Problems) < maxProblems {
		s.Problems = append(s.Problems, fmt.Sprintf(format, a...))
		return
	}
	// The rest are counted, in one last line, so that none goes unsaid.
	s.more++
	more := fmt.Sprintf("%d more lines skipped or capped", s.more)
	if len(s.Problems) == maxProblems {
		s.Problems = append(s.Problems, more)
	} else {
		s.Problems[maxProblems] = more
	}
}

// Follower reads one transcript incrementally: each Read goes on from the
// end of the last complete line it read, so a long session costs only its
// new bytes. It remembers the file's identity (device and inode) and size:
// a file replaced (another inode) or truncated (shorter than what was read)
// is read again from the start, which the caller learns from
// Stats.Restarted (and should then forget what it counted of this file). A
// partial last line (Claude Code still writing it) is left for the next Read.
// A Follower is not safe for concurrent use.
type Follower struct {
	path   string
	offset int64 // just past the last complete line read
	line   int   // lines read before offset
	dev    uint64
	ino    uint64
	known  bool // dev/ino are the file's as last read

	// MaxLine is the longest line read; 0 means MaxLineBytes.
	MaxLine int

	// Lines, when not nil, reads each complete line in place of Claude
	// Code's parse, calling emit with the responses it finds: the same
	// following (offsets, replaced and truncated files, the line cap, no
	// symlink) for another agent CLI's JSON lines (usage: Codex's rollouts,
	// Gemini CLI's chats). line is only valid during the call.
	Lines func(line []byte, emit func(Response))

	// OnRestart, when not nil, is called when a Read finds the file replaced
	// or truncated, before it emits the file's responses again: what was
	// counted of it is to be forgotten.
	OnRestart func()

	pieces pieceSizes // tests' own (zero: the defaults)
}

// NewFollower returns a Follower of the transcript at path, at its start.
func NewFollower(path string) *Follower { return &Follower{path: path} }

// Path is the transcript's path.
func (f *Follower) Path() string { return f.path }

// Offset is how far the transcript has been read.
func (f *Follower) Offset() int64 { return f.offset }

// readChunk is how much a Read takes from the file at a time.
const readChunk = 256 << 10

// chunks are the Reads' buffers of readChunk bytes.
var chunks = sync.Pool{New: func() any { b := make([]byte, 0, readChunk); return &b }}

// Read reads the lines added since the last Read and calls emit with each
// response line, in order. A missing file is fs.ErrNotExist (nothing read);
// a symlink or anything but a regular file is refused, not followed.
func (f *Follower) Read(emit func(Response)) (Stats, error) {
	var st Stats
	fh, err := open(f.path)
	if err != nil {
		return st, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return st, fmt.Errorf("transcript %s: %w", f.path, err)
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return st, fmt.Errorf("transcript %s: no file identity", f.path)
	}
	dev, ino := uint64(sys.Dev), uint64(sys.Ino)
	if f.known && (dev != f.dev || ino != f.ino) || fi.Size() < f.offset {
		f.offset, f.line, st.Restarted = 0, 0, true
		if f.OnRestart != nil {
			f.OnRestart()
		}
	}
	f.dev, f.ino, f.known = dev, ino, true
	if fi.Size() == f.offset {
		return st, nil
	}
	maxLine := f.MaxLine
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	if f.Lines == nil {
		// Claude Code's lines are each read alone (Lines may keep what a
		// line said for the next), so a long stretch of them is read in
		// pieces, one a processor.
		if err := f.readPieces(fh, fi.Size(), maxLine, emit, &st); err != nil {
			return st, err
		}
	}
	// The rest (all of it, for a short read) in order, to the file's end as
	// it is now: its last line may be partial, or longer than the cap.
	if _, err := fh.Seek(f.offset, io.SeekStart); err != nil {
		return st, fmt.Errorf("transcript %s: %w", f.path, err)
	}
	err = eachLine(fh, maxLine, func(line []byte) {
		f.line++
		st.Lines++
		f.handle(line, emit, &st)
		f.offset += int64(len(line)) + 1
		st.Bytes += int64(len(line)) + 1
	}, func(n int64) {
		f.line++
		st.Lines++
		f.tooLong(n, maxLine, &st)
		f.offset += n
		st.Bytes += n
	})
	if err != nil {
		return st, fmt.Errorf("read transcript %s: %w", f.path, err)
	}
	return st, nil
}

// tooLong counts line f.line, of n bytes (its newline included), over the
// cap.
func (f *Follower) tooLong(n int64, maxLine int, st *Stats) {
	st.TooLong++
	st.problem("line %d: %d bytes, over the %d-byte cap: skipped", f.line, n-1, maxLine)
}

// eachLine reads r to its end and calls line with each complete line (its
// newline cut off; only valid during the call) and long with the length of
// each line over maxLine (its newline included), which is streamed past,
// never held. A partial last line is left unread: it is being written.
func eachLine(r io.Reader, maxLine int, line func([]byte), long func(n int64)) error {
	// A chunk of the pool, not one kept per Follower: a supervisor follows
	// many transcripts one after the other, and one chunk serves them all.
	bp := chunks.Get().(*[]byte)
	buf := (*bp)[:0]
	defer func() {
		if cap(buf) <= readChunk { // a long line's buffer is not kept
			*bp = buf[:0]
			chunks.Put(bp)
		}
	}()
	skipping := false // inside a line over the cap, until its newline
	var skipped int64
	for {
		if len(buf) == cap(buf) {
			// A line fills the buffer: grow it up to the cap.
			if cap(buf) >= maxLine {
				skipping, skipped = true, int64(len(buf))
				buf = buf[:0]
			} else {
				nb := make([]byte, len(buf), min(2*cap(buf), maxLine))
				copy(nb, buf)
				buf = nb
			}
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		start := 0
		if skipping {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				skipped += int64(len(buf))
				buf = buf[:0]
			} else {
				long(skipped + int64(i+1))
				start, skipping, skipped = i+1, false, 0
			}
		}
		if !skipping {
			for {
				i := bytes.IndexByte(buf[start:], '\n')
				if i < 0 {
					break
				}
				line(buf[start : start+i])
				start += i + 1
			}
			// Keep the partial line at the front for the next chunk.
			m := copy(buf, buf[start:])
			buf = buf[:m]
		}
		if rerr == io.EOF || n == 0 && rerr == nil {
			// An over-long line with no end yet is streamed past again (from
			// its start) by the next Read, when it may be complete.
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

func (f *Follower) handle(line []byte, emit func(Response), st *Stats) {
	if f.Lines != nil {
		f.Lines(line, func(r Response) { st.Responses++; emit(r) })
		return
	}
	r, kind, capped := parseLine(line)
	desc := ""
	if kind == lineMalformed {
		desc = describe(line)
	}
	f.record(r, kind, capped, desc, emit, st)
}

// record counts what parseLine made of line f.line (desc: a malformed
// line's description) and emits a response.
func (f *Follower) record(r Response, kind lineKind, capped, desc string, emit func(Response), st *Stats) {
	switch kind {
	case lineMalformed:
		st.Malformed++
		st.problem("line %d: malformed (%s): skipped", f.line, desc)
	case lineResponse:
		st.Responses++
		if capped != "" {
			st.Capped++
			st.problem("line %d: %s", f.line, capped)
		}
		emit(r)
	}
}

// describe is a short, safe description of a bad line: its length and
// whether it is cut short, never its content (which may hold anything).
func describe(line []byte) string {
	switch {
	case len(line) == 0:
		return "empty"
	case line[0] != '{':
		return fmt.Sprintf("%d bytes, not a JSON object", len(line))
	default:
		return fmt.Sprintf("%d bytes", len(line))
	}
}

// IsRefused reports whether err is a Read refusing a file that is a
// symlink (or under one) or not a regular file.
func IsRefused(err error) bool {
	return errors.Is(err, safefile.ErrSymlink) || errors.Is(err, safefile.ErrNotRegular)
}

package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// A long stretch of a transcript (the first read of a long session, as
// `teamctl usage` reads a team's lead) is read on every processor: split at
// line starts into pieces, each piece's lines parsed on its own (parseLine
// reads a line alone), and what they found counted and emitted in the
// file's order, as a read in order would, with the same line numbers.

// Pieces' defaults: below 2 × minPiece, one processor reads the whole; a
// piece is at most maxPiece, so that what the pieces found before it is
// emitted (a few thousand responses a piece) is held for one window of
// pieces at a time, however long the file. 32 MB pieces held what a
// response-dense stretch of 64 MB found at once: the supervisor's peak RSS
// went from 29 to 47 MiB following 1 GB of transcripts (bench/cost, target
// 40 MiB); 8 MB pieces hold a quarter of it.
const (
	minPiece = 4 << 20
	maxPiece = 8 << 20
)

// pieceSizes are the least and most bytes of a piece and how many are read
// at once; zero: the defaults (minPiece, maxPiece, GOMAXPROCS).
type pieceSizes struct {
	min, max int64
	procs    int
}

// found is a line a piece found that is not lineOther.
type found struct {
	line   int // its number in the piece, from 1
	kind   lineKind
	r      Response
	capped string
	desc   string // a malformed line's description
	long   int64  // a line over the cap: its bytes (newline included); kind unused
}

// piece is one stretch of whole lines, [start, end), and what its read found.
type piece struct {
	start, end int64
	found      []found
	lines      int
	bytes      int64 // of the whole lines read: end-start unless the file changed
	err        error
}

// readPieces reads whole lines from f.offset in pieces, one a processor,
// while at least two pieces' worth of the file's size is left; emit and
// st as Read. It leaves the rest (a short stretch, a partial last line) for
// the read in order.
func (f *Follower) readPieces(fh *os.File, size int64, maxLine int, emit func(Response), st *Stats) error {
	least, most, procs := f.pieces.min, f.pieces.max, f.pieces.procs
	if least == 0 {
		least, most, procs = minPiece, maxPiece, runtime.GOMAXPROCS(0)
	}
	for procs > 1 && size-f.offset >= 2*least {
		n := min(int64(procs), (size-f.offset)/least)
		span := min(size-f.offset, n*most)
		// Each piece ends at the first line start at or after its share of
		// the span (a line is never split); none found: the rest is a
		// partial line, read in order.
		bounds := []int64{f.offset}
		for k := int64(1); k <= n; k++ {
			b, err := lineStart(fh, f.offset+span*k/n, size)
			if err != nil {
				return fmt.Errorf("read transcript %s: %w", f.path, err)
			}
			if b < 0 {
				break
			}
			if b > bounds[len(bounds)-1] {
				bounds = append(bounds, b)
			}
		}
		if len(bounds) < 2 {
			return nil
		}
		pieces := make([]piece, len(bounds)-1)
		var wg sync.WaitGroup
		for i := range pieces {
			p := &pieces[i]
			p.start, p.end = bounds[i], bounds[i+1]
			wg.Go(func() { p.read(fh, maxLine) })
		}
		wg.Wait()
		for i := range pieces {
			p := &pieces[i]
			base := f.line
			for _, x := range p.found {
				f.line = base + x.line
				if x.long > 0 {
					f.tooLong(x.long, maxLine, st)
				} else {
					f.record(x.r, x.kind, x.capped, x.desc, emit, st)
				}
			}
			f.line = base + p.lines
			st.Lines += p.lines
			f.offset += p.bytes
			st.Bytes += p.bytes
			if p.err != nil {
				return fmt.Errorf("read transcript %s: %w", f.path, p.err)
			}
			if p.start+p.bytes != p.end {
				return nil // the file changed as it was read: the rest in order
			}
		}
	}
	return nil
}

// read parses the piece's lines (fh's ReadAt is safe for concurrent use).
func (p *piece) read(fh *os.File, maxLine int) {
	p.err = eachLine(io.NewSectionReader(fh, p.start, p.end-p.start), maxLine, func(line []byte) {
		p.lines++
		p.bytes += int64(len(line)) + 1
		r, kind, capped := parseLine(line)
		if kind == lineOther {
			return
		}
		x := found{line: p.lines, kind: kind, r: r, capped: capped}
		if kind == lineMalformed {
			x.desc = describe(line)
		}
		p.found = append(p.found, x)
	}, func(n int64) {
		p.lines++
		p.bytes += n
		p.found = append(p.found, found{line: p.lines, long: n})
	})
}

// lineStart is the first line start at or after at (just past a newline at
// at-1 or later), before size; -1 when there is none.
func lineStart(fh *os.File, at, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for pos := at - 1; pos < size; {
		n, err := fh.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if err == io.EOF || n == 0 {
			return -1, nil
		}
		if err != nil {
			return 0, err
		}
	}
	return -1, nil
}

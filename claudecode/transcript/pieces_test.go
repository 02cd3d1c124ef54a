package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/transcriptgen"
)

// TestFollowerPieces: a transcript read in pieces (split points inside
// lines and at their starts, several windows of pieces) gives what a read
// in order gives: the same responses in the same order, the same counts
// and problems with the same line numbers (a malformed line, a capped
// count, a line over the cap), the same offset; a partial last line is
// left for the next Read in both, which then reads the same.
func TestFollowerPieces(t *testing.T) {
	cfg := t.TempDir()
	ss, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 5, Sessions: 1, Turns: 60, PaddingBytes: 700})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile(ss[0].Main)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(gen), "\n")
	// Odd lines among the generated ones (one over the cap: over the read's
	// first buffer too, as the cap is checked when it fills), and a partial
	// one at the end.
	odd := []string{"garbage\n", `{"type":"assistant","message":{"id":"big","usage":{"input_tokens":99999999999}}}` + "\n",
		`{"type":"user","message":{"content":"` + strings.Repeat("x", 300<<10) + `"}}` + "\n"}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i%60 == 7 {
			b.WriteString(odd[i/60%len(odd)])
		}
	}
	b.WriteString(resp("partial", 1)[:30])
	p := filepath.Join(t.TempDir(), "projects", "-w", "s.jsonl")
	write(t, p, b.String())

	read := func(sizes pieceSizes) (*Follower, []Response, Stats) {
		f := NewFollower(p)
		f.MaxLine = 4096
		f.pieces = sizes
		got, st := readAll(t, f)
		return f, got, st
	}
	whole, want, wst := read(pieceSizes{min: 1 << 40, max: 1 << 40, procs: 1})
	if len(want) < 60 || wst.Malformed == 0 || wst.Capped == 0 || wst.TooLong == 0 {
		t.Fatalf("the file lacks what it is to test: %d responses, %+v", len(want), wst)
	}
	for _, sz := range []pieceSizes{{1000, 3000, 2}, {4096, 4096, 3}, {777, 100000, 4}, {50000, 50000, 2}} {
		f, got, st := read(sz)
		if !slices.EqualFunc(got, want, sameResponse) || !sameStats(st, wst) || f.Offset() != whole.Offset() {
			t.Errorf("pieces %+v: %d responses, %+v, offset %d; in order %d, %+v, offset %d", sz, len(got), st, f.Offset(), len(want), wst, whole.Offset())
		}
		appendTo(t, p, "")
		if f.Offset() != int64(b.Len()-30) {
			t.Errorf("pieces %+v: offset %d, want the partial line's start %d", sz, f.Offset(), b.Len()-30)
		}
	}
	// The partial line completed: read by both alike.
	appendTo(t, p, resp("partial", 1)[30:]+"\n")
	_, got, st := read(pieceSizes{1000, 3000, 2})
	if n := len(got); n != len(want)+1 || got[n-1].MessageID != "partial" || st.Lines != wst.Lines+1 {
		t.Errorf("completed: %d responses, last %+v, %d lines", n, got[n-1], st.Lines)
	}
}

func sameStats(a, b Stats) bool {
	return a.Bytes == b.Bytes && a.Lines == b.Lines && a.Responses == b.Responses && a.Malformed == b.Malformed &&
		a.TooLong == b.TooLong && a.Capped == b.Capped && a.Restarted == b.Restarted && slices.Equal(a.Problems, b.Problems)
}

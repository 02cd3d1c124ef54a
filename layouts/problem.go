package layouts

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one mistake in a layout file, at the line and column where it was found.
type Problem struct {
	File string // the file name as given to Parse, or "<stdin>"
	Line int    // 1-based
	Col  int    // 1-based
	Path string // where in the layout, e.g. "members[1].color"; "" for the file as a whole
	Msg  string
}

// String formats the problem the way compilers do, so editors can jump to it:
// FILE:LINE:COL: path: msg.
func (p Problem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Line, p.Col, p.Path, p.Msg)
}

// Error is every problem found in a layout file. Parse returns it (as *Error)
// whenever the file is not valid.
type Error struct {
	Problems []Problem // sorted by line, then column
}

// Error returns one problem per line, sorted by line and column.
func (e *Error) Error() string {
	problems := slices.Clone(e.Problems)
	sortProblems(problems)
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sortProblems orders problems by position; the sort is stable so that
// problems at the same spot keep the order they were found in.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// Package table lays out teamctl's listings in columns aligned by the width
// their text takes on a terminal: a colour's escape codes take none, a wide
// rune (CJK, most emoji) two. text/tabwriter counts bytes, so a coloured or a
// wide cell there pushes every column after it off its heading. Given a width,
// a table fits it by letting the columns that may give way (a path shortened,
// a long text cut with "…") rather than having the terminal wrap every row.
package table

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// gap is the space between two columns.
const gap = 2

// Column is a table's column: its heading and, when it may give way, how.
type Column struct {
	Title string
	// Fit, when set, returns a cell's text in at most width columns, or its
	// shortest form when that is still wider. A table calls it only when it
	// is wider than it may be; nil: the column keeps its width.
	Fit func(text string, width int) string
}

// Cell is one value: plain text, whose width is measured, and a style (a
// colour) put around it once it is fitted, so that the style takes no width.
type Cell struct {
	Text  string
	Style func(string) string
}

// Text is a cell without a style.
func Text(s string) Cell { return Cell{Text: s} }

// Table is a heading and rows of cells, one a column.
type Table struct {
	cols []Column
	rows [][]Cell
}

// New is a table with these columns.
func New(cols ...Column) *Table { return &Table{cols: cols} }

// Add adds a row; cells past the last column are dropped, missing ones empty.
func (t *Table) Add(cells ...Cell) {
	row := make([]Cell, len(t.cols))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

// Rows is how many rows were added.
func (t *Table) Rows() int { return len(t.rows) }

// Render lays the table out, a line each for the heading and every row. With
// width > 0 no line is wider than width: the columns that have a Fit give way,
// in their order, each down to its heading's width at least; a line still too
// wide (long cells in columns that never give way) is cut with "…". With
// width 0 every value is whole.
func (t *Table) Render(width int) string {
	rows := make([][]Cell, 0, len(t.rows)+1)
	head := make([]Cell, len(t.cols))
	for i, c := range t.cols {
		head[i] = Text(c.Title)
	}
	rows = append(rows, head)
	for _, r := range t.rows {
		rows = append(rows, append([]Cell(nil), r...))
	}
	widths := t.widths(rows)
	if width > 0 {
		t.fit(rows, widths, width)
	}
	var b strings.Builder
	for _, r := range rows {
		line := renderRow(r, widths)
		if width > 0 && ansi.StringWidth(line) > width {
			line = ansi.Truncate(line, width, "…")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// widths is each column's width: its widest cell, the heading's included.
func (t *Table) widths(rows [][]Cell) []int {
	w := make([]int, len(t.cols))
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], ansi.StringWidth(c.Text))
		}
	}
	return w
}

// fit has the columns that may give way do so, in order, until the table is
// no wider than width (or none can give more).
func (t *Table) fit(rows [][]Cell, widths []int, width int) {
	for i, col := range t.cols {
		over := total(widths) - width
		if over <= 0 {
			return
		}
		if col.Fit == nil {
			continue
		}
		target := max(ansi.StringWidth(col.Title), widths[i]-over)
		w := ansi.StringWidth(col.Title)
		for _, r := range rows[1:] {
			r[i].Text = col.Fit(r[i].Text, target)
			w = max(w, ansi.StringWidth(r[i].Text))
		}
		widths[i] = w
	}
}

func total(widths []int) int {
	n := gap * max(0, len(widths)-1)
	for _, w := range widths {
		n += w
	}
	return n
}

// renderRow is one line: every cell padded to its column's width but the
// last, styles around the text alone, no trailing space.
func renderRow(r []Cell, widths []int) string {
	var b strings.Builder
	pending := 0 // spaces owed before the next cell that has text
	for i, c := range r {
		if c.Text != "" {
			b.WriteString(strings.Repeat(" ", pending))
			pending = 0
			text := c.Text
			if c.Style != nil {
				text = c.Style(text)
			}
			b.WriteString(text)
		}
		pending += widths[i] - ansi.StringWidth(c.Text)
		if i < len(r)-1 {
			pending += gap
		}
	}
	return b.String()
}

// Cut is a Fit for free text: cut to width with "…".
func Cut(text string, width int) string {
	return ansi.Truncate(text, width, "…")
}

// Path returns a Fit for folders: the path whole if it fits; else with home
// as "~"; else the first element ("~" or "") and the last, "…" for those in
// between ("~/…/api"). It never cuts the last element: that names the folder.
func Path(home string) func(text string, width int) string {
	home = strings.TrimSuffix(home, "/")
	return func(p string, width int) string {
		if ansi.StringWidth(p) <= width {
			return p
		}
		if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
			p = "~" + p[len(home):]
			if ansi.StringWidth(p) <= width {
				return p
			}
		}
		first, rest, ok := strings.Cut(p, "/")
		if !ok {
			return p
		}
		last := rest[strings.LastIndex(rest, "/")+1:]
		short := first + "/…/" + last
		if last == rest || last == "" || ansi.StringWidth(short) >= ansi.StringWidth(p) {
			return p // nothing in between worth leaving out
		}
		return short
	}
}

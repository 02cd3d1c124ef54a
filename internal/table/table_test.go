package table

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func red(s string) string { return "\x1b[31m" + s + "\x1b[0m" }

// columnStarts checks that on every line of out (escapes stripped) the cell
// of each column starts at the visible offset where its heading starts, two
// spaces after the end of the column before; it returns those offsets.
func columnStarts(t *testing.T, out string, rows [][]string) []int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(rows) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(rows), out)
	}
	head := ansi.Strip(lines[0])
	var starts []int
	for _, title := range rows[0] {
		i := strings.Index(head, title)
		if i < 0 {
			t.Fatalf("no heading %q in %q", title, head)
		}
		starts = append(starts, ansi.StringWidth(head[:i]))
	}
	for n, ln := range lines {
		plain := ansi.Strip(ln)
		for i, want := range rows[n] {
			if want == "" {
				continue
			}
			at := ansi.Cut(plain, starts[i], ansi.StringWidth(plain))
			if !strings.HasPrefix(at, want) {
				t.Errorf("line %d: column %d should start at column %d with %q; there: %q\n%s", n, i, starts[i], want, at, ansi.Strip(out))
			}
			if i > 0 && ansi.Cut(plain, starts[i]-2, starts[i]) != "  " {
				t.Errorf("line %d: no gap before column %d:\n%s", n, i, ansi.Strip(out))
			}
		}
	}
	return starts
}

func TestColumnsAlignOnVisibleWidth(t *testing.T) {
	tb := New(Column{Title: "NAME"}, Column{Title: "STATE"}, Column{Title: "CWD"}, Column{Title: "DETAIL"})
	rows := [][]string{
		{"NAME", "STATE", "CWD", "DETAIL"},
		{"lead", "running", "/src/app", ""},
		{"研究者", "stalled", "/src/app/研究", `"続けますか? (y/n)" 3s ago`},
		{"🦀crab", "exited (1)", "/tmp", "(2 restarts)"},
	}
	for _, r := range rows[1:] {
		tb.Add(Text(r[0]), Cell{Text: r[1], Style: red}, Text(r[2]), Text(r[3]))
	}
	out := tb.Render(0)
	if !strings.Contains(out, "\x1b[31mrunning\x1b[0m") {
		t.Errorf("the style is not around the text:\n%q", out)
	}
	columnStarts(t, out, rows)
	for _, ln := range strings.Split(out, "\n") {
		if strings.HasSuffix(ln, " ") {
			t.Errorf("trailing space: %q", ln)
		}
	}
}

func TestFitShortensPathsThenCuts(t *testing.T) {
	home := "/home/ann"
	long := home + "/src/a-rather-long-folder/with-another-long-one/services/api"
	tb := New(Column{Title: "NAME"}, Column{Title: "CWD", Fit: Path(home)}, Column{Title: "DETAIL", Fit: Cut})
	tb.Add(Text("lead"), Text(long), Text(strings.Repeat("words and ", 20)))
	tb.Add(Text("web"), Text("/srv/www"), Cell{Text: "short", Style: red})
	tb.Add(Text("tmp"), Text("/tmp"))

	whole := tb.Render(0)
	if !strings.Contains(whole, long) || !strings.Contains(whole, strings.TrimSpace(strings.Repeat("words and ", 20))) {
		t.Errorf("without a width every value is whole:\n%s", whole)
	}
	out := tb.Render(80)
	for _, ln := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := ansi.StringWidth(ln); w > 80 {
			t.Errorf("%d columns: %q", w, ln)
		}
	}
	if !strings.Contains(out, "~/…/api") || !strings.Contains(out, "/…/www") {
		t.Errorf("the cwds shortened:\n%s", out)
	}
	if !strings.Contains(out, "words and words") || !strings.Contains(out, "…") {
		t.Errorf("the detail cut to fit:\n%s", out)
	}
	columnStarts(t, out, [][]string{{"NAME", "CWD", "DETAIL"}, {"lead", "~/…/api", "words"}, {"web", "/…/www", "short"}, {"tmp", "/tmp", ""}})

	// Room enough for the path with ~: no more is left out.
	tb = New(Column{Title: "NAME"}, Column{Title: "CWD", Fit: Path(home)})
	tb.Add(Text("lead"), Text(long))
	if out := tb.Render(len(long)); !strings.Contains(out, "~/src/a-rather-long-folder/with-another-long-one/services/api") {
		t.Errorf("home as ~ was enough:\n%s", out)
	}
}

func TestPath(t *testing.T) {
	fit := Path("/home/ann/")
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"/home/ann/src/app", 80, "/home/ann/src/app"},
		{"/home/ann/src/app", 10, "~/src/app"},
		{"/home/ann/src/deep/er/app", 10, "~/…/app"},
		{"/home/ann", 3, "~"},
		{"/home/annex/x/y", 5, "/…/y"},
		{"/var/lib/app", 3, "/…/app"},
		{"/a/b", 1, "/a/b"},         // nothing shorter to give
		{"~/x", 1, "~/x"},           // one element: kept
		{"relative", 2, "relative"}, // never cut
		{"/home/ann/src/アプリ", 8, "~/…/アプリ"},
	} {
		if got := fit(c.in, c.width); got != c.want {
			t.Errorf("Path(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestLastResortCutsTheLine(t *testing.T) {
	tb := New(Column{Title: "NAME"}, Column{Title: "DETAIL", Fit: Cut})
	tb.Add(Text(strings.Repeat("名", 50)), Text("x"))
	out := tb.Render(40)
	for _, ln := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := ansi.StringWidth(ln); w > 40 {
			t.Errorf("%d columns: %q", w, ln)
		}
	}
}

package layouts

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// mergeBomb is a layout of levels anchors, each merging the one before it
// width times, and a lead merging the last: expanded, the lead holds
// width^levels entries. (An anchor must come before its aliases.)
func mergeBomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("team: bomb\nx:\n  - &a0 {name: lead}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  - &a%d\n    <<: [", i)
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	fmt.Fprintf(&b, "lead:\n  <<: *a%d\n", levels)
	return b.String()
}

// parseWithin parses src and fails the test when that takes far longer than
// parsing a layout as large without aliases (a flow list of as many tokens):
// the point is that aliases do not make it take minutes, not a speed, so the
// bound grows with what this machine needs for the plain file just now.
// (A parse past the bound is left running; the test has failed by then.)
func parseWithin(t *testing.T, src string) error {
	t.Helper()
	plain := "team: t\nx: [" + strings.Repeat("a, ", len(src)/3) + "a]\n"
	start := time.Now()
	ParseBytes("plain.yaml", []byte(plain))
	bound := 10*time.Second + 50*time.Since(start)
	done := make(chan error, 1)
	go func() {
		_, err := ParseBytes("t.yaml", []byte(src))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("parsing %d bytes took more than %s (50 times a plain file as large, and 10s)", len(src), bound)
		return nil
	}
}

// aliasProblem is the problem an over-expanding layout gets, at the alias
// (FILE:LINE:COL) where the walk ran out of budget.
const aliasProblem = "aliases expand the layout to more than"

func TestMergeBombRefused(t *testing.T) {
	src := mergeBomb(9, 8) // 8^9 = 134 million entries
	if len(src) > 1000 {
		t.Fatalf("the bomb is %d bytes, want a small file", len(src))
	}
	err := parseWithin(t, src)
	if err == nil {
		t.Fatal("a merge bomb parsed")
	}
	var found string
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.Contains(line, aliasProblem) {
			found = line
		}
	}
	// The alias it names is one of the bomb's *aN (line 4 and after), with a
	// column: a person can go there.
	if !strings.HasPrefix(found, "t.yaml:") || !strings.Contains(found, ": "+aliasProblem) {
		t.Fatalf("no problem at an alias; got:\n%v", err)
	}
	var line, col int
	if _, serr := fmt.Sscanf(found, "t.yaml:%d:%d:", &line, &col); serr != nil || line < 4 || col < 2 {
		t.Errorf("problem %q is not at an alias of the bomb (line %d col %d)", found, line, col)
	}
}

func TestAliasedListsRefused(t *testing.T) {
	// No merge key: a list of aliases to a member whose args are a long list
	// is quadratic in the file size, which the budget bounds as well.
	var b strings.Builder
	b.WriteString("team: t\nx: &m\n  name: m\n  args: [")
	b.WriteString(strings.Repeat("a, ", 20000))
	b.WriteString("a]\nmembers: [")
	b.WriteString(strings.Repeat("*m, ", 20000))
	b.WriteString("*m]\n")
	err := parseWithin(t, b.String())
	if err == nil || !strings.Contains(err.Error(), aliasProblem) {
		t.Fatalf("want the alias problem, got %v", err)
	}
	// It is reported at an alias of the members list (line 5).
	if !strings.Contains(err.Error(), "t.yaml:5:") {
		t.Errorf("problem not at the members' aliases:\n%v", err)
	}
}

func TestTooLargeRefused(t *testing.T) {
	src := "team: t\ndescription: " + strings.Repeat("x", MaxSize) + "\n"
	err := parseWithin(t, src)
	if err == nil || !strings.Contains(err.Error(), "t.yaml:1:1: the file is larger than 1048576 bytes (1 MiB)") {
		t.Fatalf("want the size problem, got %.300v", err)
	}
	// Parse reads no more than that from the file.
	path := writeFile(t, t.TempDir(), "big.yaml", src)
	if _, err := Parse(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("Parse: want the size problem, got %.300v", err)
	}
}

func TestLargePlainLayoutParses(t *testing.T) {
	// Without aliases, as many nodes as a file can hold (a long list of
	// permission rules), which the budget must not refuse. 256 KiB rather than 1 MiB only
	// to keep the test quick under -race: the budget grows with the size.
	var b strings.Builder
	b.WriteString("team: t\npermissions:\n  allow: [")
	for b.Len() < MaxSize/4 {
		b.WriteString("Read,")
	}
	b.WriteString("Read]\n")
	if err := parseWithin(t, b.String()); err != nil {
		t.Fatalf("a large layout without aliases was refused: %.500v", err)
	}
}

func TestModestAliasesParse(t *testing.T) {
	// Sensible reuse, well beyond what a layout needs: 100 members merging
	// the lead's settings, 200 args each.
	var b strings.Builder
	b.WriteString("team: t\nlead: &common\n  model: sonnet\n  args: [" + strings.Repeat("--flag, ", 199) + "--end]\nmembers:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  - {<<: *common, name: m%d}\n", i)
	}
	l := mustParse(t, b.String())
	if len(l.Members) != 100 || len(l.Members[99].Args) != 200 || l.Members[99].Model != "sonnet" {
		t.Fatalf("members not merged: %d members, last %+v", len(l.Members), l.Members[len(l.Members)-1])
	}
}

func BenchmarkMergeBomb(b *testing.B) {
	src := []byte(mergeBomb(9, 8))
	for b.Loop() {
		if _, err := ParseBytes("t.yaml", src); err == nil {
			b.Fatal("parsed")
		}
	}
}

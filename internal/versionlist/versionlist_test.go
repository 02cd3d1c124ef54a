package versionlist

import (
	"slices"
	"testing"
)

// TestParse: versions in order; blank lines, comments and spaces passed over.
func TestParse(t *testing.T) {
	got := Parse("# pinned first\n2.1.328\n\n  2.1.332 \n# newest\n")
	if want := []string{"2.1.328", "2.1.332"}; !slices.Equal(got, want) {
		t.Errorf("Parse = %q, want %q", got, want)
	}
}

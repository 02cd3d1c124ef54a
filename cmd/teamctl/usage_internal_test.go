package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestEveryCommandHasExamples walks the whole command tree, hidden commands
// and cobra's own help and completion included: each one's help shows an
// Examples section.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRootCmd(iostreams.Test(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c != root {
			n++
			var out bytes.Buffer
			io := iostreams.Test(strings.NewReader(""), &out, &out)
			if code := run(context.Background(), io, append(pathArgs(c), "--help")); code != 0 {
				t.Errorf("%s --help: exit %d\n%s", c.CommandPath(), code, out.String())
			}
			if !strings.Contains(out.String(), "Examples:") {
				t.Errorf("%s --help has no Examples section:\n%s", c.CommandPath(), out.String())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 25 {
		t.Errorf("walked only %d commands", n)
	}
}

// pathArgs is c's command line without the program: ["completion", "bash"].
func pathArgs(c *cobra.Command) []string {
	var p []string
	for ; c.HasParent(); c = c.Parent() {
		p = append([]string{c.Name()}, p...)
	}
	return p
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/iostreams"
)

func newManCmd(io *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use: "man [DIR]",
		Example: `  teamctl man | man -l -                         # read teamctl(1) now
  teamctl man ~/.local/share/man/man1            # install every page: man teamctl-up`,
		Short: "Print teamctl's manual page, or write one per command into DIR",
		Long: `Print the manual page teamctl(1) on stdout, or, with DIR, write one page per
command into it (teamctl.1, teamctl-up.1, …; DIR is made when missing), made
from the same text as --help.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			header := &doc.GenManHeader{Title: "TEAMCTL", Section: "1", Source: "teamctl " + versionString(), Manual: "teamctl manual"}
			if len(args) == 0 {
				return doc.GenMan(root, header, io.Out)
			}
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			n, err := writeManPages(root, header, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "wrote %d manual pages into %s\n", n, dir)
			return nil
		},
	}
}

// writeManPages writes the page of c and of every command under it into dir,
// each written whole (atomicfile), and returns how many it wrote.
func writeManPages(c *cobra.Command, header *doc.GenManHeader, dir string) (int, error) {
	n := 0
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		k, err := writeManPages(sub, header, dir)
		n += k
		if err != nil {
			return n, err
		}
	}
	h := *header // GenMan fills in the title of each page
	h.Title = strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-"))
	var b bytes.Buffer
	if err := doc.GenMan(c, &h, &b); err != nil {
		return n, fmt.Errorf("man page of %s: %w", c.CommandPath(), err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
	if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return n, fmt.Errorf("man page of %s: %w", c.CommandPath(), err)
	}
	return n + 1, nil
}

package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

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

// writeMarkdownPages writes the Markdown page of c and of every command under
// it into dir (cobra's doc.GenMarkdown, without the dated footer, so the same
// commands make the same files), and returns how many it wrote.
func writeMarkdownPages(c *cobra.Command, dir string) (int, error) {
	c.Root().DisableAutoGenTag = true
	n := 0
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		k, err := writeMarkdownPages(sub, dir)
		n += k
		if err != nil {
			return n, err
		}
	}
	var b bytes.Buffer
	if err := doc.GenMarkdown(c, &b); err != nil {
		return n, fmt.Errorf("the Markdown page of %s: %w", c.CommandPath(), err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "_")+".md")
	if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return n, fmt.Errorf("the Markdown page of %s: %w", c.CommandPath(), err)
	}
	return n + 1, nil
}

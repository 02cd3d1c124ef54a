package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/worktrees"
)

// What `diff` and `conflicts` print. Everything in it that an agent wrote —
// file names, the patch's lines — is made visible (textsafe) before it
// reaches the terminal: a name holding a newline stays on its line, an
// escape sequence in a file does not act on the terminal. So the patch is
// git's without colour, coloured here line by line as git colours it.

// diffMode is what diff's flags ask for; --json is what --stat reads.
func diffMode(stat, names, asJSON bool, color string) (team.DiffMode, error) {
	switch {
	case stat && names:
		return 0, errors.New("--stat and --name-only do not go together")
	case color != "auto" && color != "always" && color != "never":
		return 0, fmt.Errorf("--color %q: give auto, always or never", color)
	case stat || asJSON:
		return team.DiffStat, nil
	case names:
		return team.DiffNames, nil
	}
	return team.DiffPatch, nil
}

// printChanges prints the members' changes as mode says.
func printChanges(out io.Writer, ch *team.Changes, mode team.DiffMode, color bool) {
	switch mode {
	case team.DiffStat:
		printStat(out, ch, color)
	case team.DiffNames:
		printNames(out, ch)
	default:
		printPatches(out, ch, color)
	}
}

// paint colours text with an SGR code when on.
func paint(on bool, code, text string) string {
	if !on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// whoOf names the members of one checkout's work.
func whoOf(w team.WorkChanges) string { return textsafe.Visible(strings.Join(w.Members, ", ")) }

// workHeading is one work's first line: who, and what it holds since when.
func workHeading(w team.WorkChanges) string {
	var what string
	switch {
	case w.Error != "":
		what = "its work cannot be read: " + w.Error
	case !w.Worktree && len(w.Files) == 0:
		what = "nothing uncommitted"
	case !w.Worktree:
		what = plural(w.Uncommitted, "uncommitted file")
	case w.Commits+w.Uncommitted == 0:
		what = "nothing since " + w.Base.Name
	default:
		var parts []string
		if w.Commits > 0 {
			parts = append(parts, plural(w.Commits, "commit"))
		}
		if w.Uncommitted > 0 {
			parts = append(parts, plural(w.Uncommitted, "uncommitted file"))
		}
		what = strings.Join(parts, " and ") + " since " + w.Base.Name
	}
	if w.Worktree && w.Branch != "" && w.Error == "" {
		what = "on " + w.Branch + ", " + what
	}
	return whoOf(w) + ": " + textsafe.Lines(what)
}

// workNotes are the lines under a heading: notes, and what was left out.
func workNotes(out io.Writer, w team.WorkChanges) {
	for _, n := range w.Notes {
		fmt.Fprintf(out, "  %s\n", textsafe.Visible(n))
	}
	for _, l := range w.LeftOut {
		fmt.Fprintf(out, "  left out: %s (%s)\n", textsafe.Visible(l.Path), textsafe.Visible(l.Why))
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// summary is git's last line of --stat: "3 files changed, 2 insertions(+)".
func summary(files, added, deleted int) string {
	s := plural(files, "file") + " changed"
	if added > 0 || deleted == 0 {
		s += ", " + plural(added, "insertion") + "(+)"
	}
	if deleted > 0 {
		s += ", " + plural(deleted, "deletion") + "(-)"
	}
	return s
}

// printStat prints each work's files as git's --stat does, then the team's total.
func printStat(out io.Writer, ch *team.Changes, color bool) {
	for _, w := range ch.Work {
		fmt.Fprintln(out, paint(color, "1", workHeading(w)))
		workNotes(out, w)
		width, most := 0, 0
		for _, f := range w.Files {
			width = max(width, ansi.StringWidth(statName(f)))
			most = max(most, f.Added+f.Deleted)
		}
		for _, f := range w.Files {
			name := statName(f)
			fmt.Fprintf(out, "  %s%s | %s\n", name, strings.Repeat(" ", width-ansi.StringWidth(name)), statBar(f, most, color))
		}
		if len(w.Files) > 0 {
			fmt.Fprintf(out, "  %s\n", summary(len(w.Files), w.Added, w.Deleted))
		}
	}
	fmt.Fprintf(out, "team %s: %s\n", ch.Team, summary(ch.Files, ch.Added, ch.Deleted))
}

func statName(f worktrees.FileChange) string {
	if f.From != "" {
		return textsafe.Visible(f.From) + " => " + textsafe.Visible(f.Path)
	}
	return textsafe.Visible(f.Path)
}

// statBar is "12 ++++--", scaled to 40 signs at most; "Bin" for a binary
// file, "Submodule" for one.
func statBar(f worktrees.FileChange, most int, color bool) string {
	switch {
	case f.Submodule:
		return "Submodule"
	case f.Binary:
		return "Bin"
	}
	plus, minus := f.Added, f.Deleted
	if most > 40 {
		plus, minus = (plus*40+most-1)/most, (minus*40+most-1)/most
	}
	return fmt.Sprintf("%d %s%s", f.Added+f.Deleted, paint(color, "32", strings.Repeat("+", plus)), paint(color, "31", strings.Repeat("-", minus)))
}

// printNames prints a line per file: who, a tab, the file.
func printNames(out io.Writer, ch *team.Changes) {
	for _, w := range ch.Work {
		for _, f := range w.Files {
			fmt.Fprintf(out, "%s\t%s\n", whoOf(w), textsafe.Visible(f.Path))
		}
	}
}

// printPatches prints each work's heading, notes and patch.
func printPatches(out io.Writer, ch *team.Changes, color bool) {
	for i, w := range ch.Work {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out, paint(color, "1;33", "=== "+workHeading(w)))
		workNotes(out, w)
		printPatch(out, w.Patch, color)
	}
}

// printPatch prints git's patch with every line made visible and coloured
// as git colours it: headers bold, hunk lines cyan, added green, deleted red.
func printPatch(out io.Writer, patch string, color bool) {
	inHunk := false
	for _, line := range strings.SplitAfter(patch, "\n") {
		if line == "" {
			continue
		}
		text := textsafe.Lines(strings.TrimSuffix(line, "\n"))
		code := "1"
		switch {
		case strings.HasPrefix(line, "@@"):
			inHunk, code = true, "36"
		case inHunk && strings.HasPrefix(line, "+"):
			code = "32"
		case inHunk && strings.HasPrefix(line, "-"):
			code = "31"
		case inHunk && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, `\`)):
			code = ""
		default:
			inHunk = false // a hunk's lines all start with one of those
		}
		fmt.Fprintln(out, paint(color && code != "", code, text))
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdMan: argv becomes the options (DIR, or none), the commands to
// document are the whole tree's, and nothing is done but the run function.
func TestNewCmdMan(t *testing.T) {
	for _, args := range [][]string{{"man"}, {"man", "pages"}, {"man", ""}} {
		var got *manOptions
		root := &cobra.Command{Use: "teamctl"}
		root.AddCommand(newManCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), func(_ context.Context, o *manOptions) error {
			got = o
			return nil
		}))
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Root != root || (got.Dir == nil) != (len(args) == 1) || got.Dir != nil && *got.Dir != args[1] {
			t.Errorf("%q: options %+v", args, got)
		}
	}
}

// manTree is a command tree to document: a command, a hidden one, and a help
// topic, which get no page.
func manTree() *cobra.Command {
	root := &cobra.Command{Use: "teamctl", Short: "Supervise teams of Claude Code sessions in tmux"}
	root.AddCommand(&cobra.Command{Use: "up", Short: "Bring a team up", Run: func(*cobra.Command, []string) {}},
		&cobra.Command{Use: "hook", Short: "Receive a hook", Hidden: true, Run: func(*cobra.Command, []string) {}},
		&cobra.Command{Use: "layouts", Short: "About layouts"})
	return root
}

// TestManRun: teamctl(1) on stdout, with teamctl's title, version and
// manual; with DIR, made when missing, a page per command that is shown in
// help, each titled by its command, and a line saying how many; a DIR that
// cannot be made is the error.
func TestManRun(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1772617267") // March 2026
	var out bytes.Buffer
	if err := manRun(context.Background(), &manOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Root: manTree()}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if want := `.TH "TEAMCTL" "1" "Mar 2026" "teamctl ` + versionString() + `" "teamctl manual"` + "\n"; !strings.Contains(page, want) ||
		!strings.Contains(page, ".SH NAME\nteamctl - Supervise teams of Claude Code sessions in tmux\n") {
		t.Errorf("teamctl(1) has no title %q or name:\n%s", want, page)
	}

	dir := filepath.Join(t.TempDir(), "man", "man1")
	out.Reset()
	if err := manRun(context.Background(), &manOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Root: manTree(), Dir: &dir}); err != nil {
		t.Fatal(err)
	}
	if want := "wrote 2 manual pages into " + dir + "\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"teamctl-up.1", "teamctl.1"}) {
		t.Fatalf("pages %q", names)
	}
	for name, title := range map[string]string{"teamctl-up.1": `.TH "TEAMCTL-UP" "1"`, "teamctl.1": `.TH "TEAMCTL" "1"`} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !strings.Contains(string(b), title) {
			t.Errorf("%s: %v, no %s:\n%s", name, err, title, b)
		}
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	under := filepath.Join(file, "man1")
	err = manRun(context.Background(), &manOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Root: manTree(), Dir: &under})
	if err == nil || err.Error() != "man pages: mkdir "+file+": not a directory" || out.Len() > 0 {
		t.Errorf("DIR under a file: error %v, printed %q", err, out.String())
	}
}

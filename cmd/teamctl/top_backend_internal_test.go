package main

import (
	"context"
	"os"
	"slices"
	"testing"
)

// topBackend.DiffCmd runs `teamctl diff MEMBER --team T` (this binary), with LESS=R where LESS
// is unset: the command's FRX would quit at once on a diff that fits the
// screen, gone when the cockpit draws again; a person's LESS is theirs.
func TestDiffCmdIsTeamctlDiffKeptOnScreen(t *testing.T) {
	less, had := os.LookupEnv("LESS")
	os.Unsetenv("LESS")
	t.Cleanup(func() {
		if had {
			os.Setenv("LESS", less)
		}
	})
	cmd, err := topBackend{}.DiffCmd(context.Background(), "alpha", "mate")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if cmd.Path != exe || !slices.Equal(cmd.Args[1:], []string{"diff", "mate", "--team", "alpha"}) {
		t.Errorf("runs %s %q, want %s diff mate --team alpha", cmd.Path, cmd.Args, exe)
	}
	if !slices.Contains(cmd.Env, "LESS=R") {
		t.Errorf("no LESS=R with LESS unset: %q", cmd.Env)
	}
	t.Setenv("LESS", "-S")
	cmd, _ = topBackend{}.DiffCmd(context.Background(), "alpha", "mate")
	if slices.Contains(cmd.Env, "LESS=R") || !slices.Contains(cmd.Env, "LESS=-S") {
		t.Errorf("the person's LESS is not kept: %q", cmd.Env)
	}
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// askToClean asks on the terminal whether to clean teams (the team found
// where clean runs, or every team its plan touches); without one, it says
// what to do instead (a usage error); a no is exit 1.
func askToClean(ctx context.Context, io *iostreams.IO, teams []string, found bool) error {
	list := strings.Join(teams, ", ")
	if !io.InteractiveTTY() {
		if found {
			return usagef(nil, "clean without a team name acts on the team you are in (%s), and there is no terminal to ask on: pass --yes, or name it (teamctl clean %s); --dry-run shows the plan", list, teams[0])
		}
		return usagef(nil, "clean without a team acts on every team its plan touches (%s), and there is no terminal to ask on: pass --yes, or name a team (teamctl clean TEAM); --dry-run shows the plan", list)
	}
	what := "these teams: " + list
	if found {
		what = "the team you are in: " + list
	}
	ok, err := confirm(ctx, io, fmt.Sprintf("clean would act on %s\nremove these? [y/N] ", what))
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(io.ErrOut, "teamctl: nothing removed")
		return exitError{1}
	}
	return nil
}

// confirm asks question on stderr and reads the answer from stdin: yes only
// for y or yes. Ctrl-C (ctx's end) while waiting is a no.
func confirm(ctx context.Context, io *iostreams.IO, question string) (bool, error) {
	fmt.Fprint(io.ErrOut, textsafe.Lines(question))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(io.In).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(io.ErrOut)
		return false, nil
	}
}

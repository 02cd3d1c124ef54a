package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// askToClean asks on the terminal whether to clean teams; without one, it
// says what to do instead (a usage error); a no is exit 1.
func askToClean(ctx context.Context, io *iostreams.IO, teams []string) error {
	if !io.InteractiveTTY() {
		return usagef(nil, "clean without a team acts on every team its plan touches (%s), and there is no terminal to ask on: pass --yes, or name a team (teamctl clean TEAM); --dry-run shows the plan", strings.Join(teams, ", "))
	}
	ok, err := confirm(ctx, io, fmt.Sprintf("clean would act on these teams: %s\nremove these? [y/N] ", strings.Join(teams, ", ")))
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

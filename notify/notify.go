// Package notify tells a person that a member waits for them (or has spent
// what its budget allows), by running the layout's watchdog.notify.command:
// the supervisor does for every stall and budget threshold, and `teamctl run
// --layout` for its one command.
package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/teamctl/teamctl/stallwatch"
)

// Run runs the user's notify program (argv, no shell) with the stall in its
// environment (TEAMCTL_TEAM, TEAMCTL_MEMBER, TEAMCTL_PATTERN, TEAMCTL_LINE)
// and a one-line summary on its stdin, with a deadline of 30 s.
func Run(ctx context.Context, argv []string, team, member string, v stallwatch.Verdict) error {
	return Tell(ctx, argv, team, member, v.Pattern, v.Line, fmt.Sprintf("%s: %s is waiting: %s", team, member, v.Line))
}

// Tell runs the notify program as Run does, for news other than a stall (a
// budget's threshold crossed: pattern "budget-warn" or "budget-spent", line
// what was spent): summary is its stdin's one line.
func Tell(ctx context.Context, argv []string, team, member, pattern, line, summary string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TEAMCTL_TEAM="+team, "TEAMCTL_MEMBER="+member,
		"TEAMCTL_PATTERN="+pattern, "TEAMCTL_LINE="+line)
	cmd.Stdin = strings.NewReader(summary + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Package notify tells a person that a member waits for them, by running the
// layout's watchdog.notify.command: the supervisor does for every stall, and
// `teamctl run --layout` for its one command.
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
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TEAMCTL_TEAM="+team, "TEAMCTL_MEMBER="+member,
		"TEAMCTL_PATTERN="+v.Pattern, "TEAMCTL_LINE="+v.Line)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("%s: %s is waiting: %s\n", team, member, v.Line))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

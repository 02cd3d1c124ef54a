package relay

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/sshconn"
)

// OverSSH runs the hub's side of the team's relay with the host's
// (`teamctl relay` there, over ssh) until it ends, ctx ends, or (timeout >
// 0) the timeout passes.
func OverSSH(ctx context.Context, sh sshconn.Host, teamctl, team string, o Options, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := sh.Command(ctx, teamctl, "relay", "--team", team, "--claude-team", o.ClaudeTeam)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = sshconn.Limit(&stderr, 8<<10)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("relay to %s: %w", sh.Dest, err)
	}
	rerr := Run(ctx, out, in, o)
	in.Close()
	werr := cmd.Wait()
	if rerr != nil {
		return fmt.Errorf("relay to %s: %w (%s)", sh.Dest, rerr, strings.TrimSpace(stderr.String()))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("relay to %s: %w", sh.Dest, ctx.Err())
	}
	if werr != nil && !o.Once {
		return fmt.Errorf("relay to %s: %w (%s)", sh.Dest, werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

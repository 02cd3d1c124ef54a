package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/codexcli"
	"github.com/teamctl/teamctl/geminicli"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// hookOptions are what `teamctl hook` records.
type hookOptions struct {
	IO     *iostreams.IO
	Caller team.HookCaller
	// Wait is how long the hook's JSON may take to arrive on stdin.
	Wait time.Duration
	// Record records a hook (team.RecordHook).
	Record func(team.HookCaller, claudecode.Hook) error
	// Deliver gives a Codex or Gemini member's answer to the lead when it
	// is owed one (team.DeliverAnswer).
	Deliver func(c team.HookCaller, prompts []string, answer string) error
	// From is the agent CLI that calls (--from codex: Codex's notify, its
	// JSON the last argument); "" for Claude Code (JSON on stdin).
	From string
	Args []string
}

// newHookCmd is what Claude Code's hooks call (teamctl passes them in
// --settings): it reads the hook's JSON on stdin, appends an event for the
// supervisor, and exits 0 at once whatever happens — it must never hold up or
// fail Claude Code. The event names the member (TEAMCTL_MEMBER, a name of
// member shape) and the pane the hook runs in (TMUX_PANE); see
// team.HookCaller. runF, when not nil, is run in hookRun's place (tests).
func newHookCmd(ios *iostreams.IO, runF func(context.Context, *hookOptions) error) *cobra.Command {
	// Claude Code closes the hook's stdin once it wrote the JSON, so Wait
	// guards only against a caller that never does; a short guard dropped
	// hooks on a loaded machine.
	opts := &hookOptions{IO: ios, Wait: 30 * time.Second, Record: team.RecordHook, Deliver: team.DeliverAnswer}
	cmd := &cobra.Command{
		Use:     "hook",
		Example: `  echo '{"hook_event_name":"Stop"}' | TEAMCTL_TEAM=auth-fix TEAMCTL_MEMBER=lead TMUX_PANE=%0 teamctl hook`,
		Short:   "Receive a Claude Code hook (called by Claude Code, not by people)",
		Hidden:  true,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Caller = team.HookCaller{Team: os.Getenv("TEAMCTL_TEAM"), Member: os.Getenv("TEAMCTL_MEMBER"), Pane: os.Getenv("TMUX_PANE")}
			opts.Args = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return hookRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "the agent CLI that calls: codex (its notify program; the JSON is the last argument) or gemini (its AfterAgent hook)")
	return cmd
}

func hookRun(_ context.Context, opts *hookOptions) error {
	if !opts.Caller.Valid() {
		return nil
	}
	if opts.From == layouts.AgentGemini {
		// Gemini CLI's AfterAgent hook, its JSON on stdin: a turn's end,
		// the member's Stop as Claude Code's hook says it; its BeforeAgent
		// hook: a turn's start, recorded under Gemini's name (no Claude
		// Code hook has it).
		if data, ok := readIn(opts); ok {
			if e, ok := geminicli.ParseHook(data); ok && e.Ended() {
				opts.Record(opts.Caller, claudecode.Hook{Event: "Stop", Message: textsafe.Short(e.Response, 200)})
				opts.deliver([]string{e.Prompt}, e.Response)
			} else if ok {
				opts.Record(opts.Caller, claudecode.Hook{Event: e.Event, Message: textsafe.Short(e.Prompt, 200)})
			}
		}
		return nil
	}
	if opts.From == layouts.AgentCodex {
		// Codex's notify: a turn's end is the member's Stop, as Claude
		// Code's hook says it.
		if len(opts.Args) > 0 {
			if e, ok := codexcli.ParseNotify([]byte(opts.Args[len(opts.Args)-1])); ok {
				opts.Record(opts.Caller, claudecode.Hook{Event: "Stop", Message: textsafe.Short(e.LastMessage, 200)})
				opts.deliver(e.Input, e.LastMessage)
			}
		}
		return nil
	}
	if data, ok := readIn(opts); ok {
		if h, ok := claudecode.ParseHook(data); ok {
			opts.Record(opts.Caller, h) // its error dropped: a hook never fails Claude Code
		}
	}
	return nil
}

// readIn is the hook's JSON on stdin, at most 1 MiB, if it comes within
// opts.Wait.
func readIn(opts *hookOptions) ([]byte, bool) {
	in := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(io.LimitReader(opts.IO.In, 1<<20)); in <- b }()
	select {
	case data := <-in:
		return data, true
	case <-time.After(opts.Wait):
		return nil, false
	}
}

// deliver gives answer, the turn's that answered prompts, to the lead if it
// is owed (its error dropped: a hook never fails the CLI).
func (opts *hookOptions) deliver(prompts []string, answer string) {
	if opts.Deliver != nil {
		opts.Deliver(opts.Caller, prompts, answer)
	}
}

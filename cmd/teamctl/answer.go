package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// answerOptions are what `teamctl answer` acts on.
type answerOptions struct {
	IO     *iostreams.IO
	Member string
	Answer team.Answer
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (answerer, error)
}

// answerer is what answer needs of a team (a *team.Team).
type answerer interface {
	Answer(ctx context.Context, member string, a team.Answer) (*team.Answered, error)
}

// newAnswerCmd makes `teamctl answer`; runF, when not nil, is run in
// answerRun's place (tests of the flags).
func newAnswerCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *answerOptions) error) *cobra.Command {
	opts := &answerOptions{IO: ios, Open: func(ctx context.Context, member string) (answerer, error) {
		return g.openMember(ctx, member)
	}}
	var keys bool
	a := &opts.Answer
	cmd := &cobra.Command{
		Use:   "answer MEMBER y|n|N | --option TEXT | --keys KEY...",
		Short: "Answer a stalled member without attaching: choose an option of its Claude Code dialog, or answer its prompt",
		Long: `Answer a stalled member without attaching.

At a Claude Code dialog the answer chooses one of the options on its screen:
N the option numbered N (an unnumbered menu's Nth), y its plain "Yes", n its
"No" (or its "Esc to cancel" where it has no No). A bare y or n that does not
name one option — a plan approval's two kinds of yes, say — is refused, with
the options. At any other prompt ("Overwrite? (y/n)") the answer is typed,
then Enter. --option TEXT chooses the option that reads TEXT (case aside),
else the only one starting with it. --keys sends tmux keys as they are,
whatever the screen shows.

A member that is not stalled is not answered: what is typed into a working or
idle Claude Code is a prompt. --force sends the answer anyway.

Each answer is an answer event with its keys, as typed, and the option
chosen. The keys go first and the event after, so the log never tells of an
answer that was not sent; if only the record fails (a read-only or full state
folder) it says the keys were sent, warns on stderr and exits 0, so that a
retry does not answer twice.`,
		Example: `  teamctl answer lead n                  # its dialog's No: "4. No" of a permission dialog
  teamctl answer lead 2                  # the dialog's option 2
  teamctl answer lead --option "Yes, I trust this folder"
  teamctl answer researcher y            # a prompt such as "Overwrite? (y/n)": y, then Enter
  teamctl answer lead --keys Down Enter  # keys as they are`,
		Args: answerArgs(&keys, &a.Option),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Member = args[0]
			switch {
			case keys:
				a.Keys = args[1:]
			case a.Option == "":
				a.Reply = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return answerRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&a.Option, "option", "", "choose the dialog's option that reads `TEXT` (or the only one starting with it)")
	cmd.Flags().BoolVar(&keys, "keys", false, "send the arguments after MEMBER as tmux keys, as they are (y Enter, Down Enter)")
	cmd.Flags().BoolVar(&a.Force, "force", false, "answer even a member that is not stalled (the keys become its input)")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func answerRun(ctx context.Context, opts *answerOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	got, err := t.Answer(ctx, opts.Member, opts.Answer)
	// Keys that went out are a success whatever the record: exit 1 would
	// invite a retry, which would answer twice.
	var notRecorded *team.NotRecordedError
	if err != nil && !errors.As(err, &notRecorded) {
		return err
	}
	printAnswered(opts.IO, opts.Member, got, notRecorded)
	return nil
}

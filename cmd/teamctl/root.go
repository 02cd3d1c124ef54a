package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// version, when set at build time with -ldflags "-X main.version=…", is the
// version teamctl reports; else the build info says (see versionString).
var version string

// globals are the flags every command shares.
type globals struct {
	team    string
	tmuxBin string
}

func newRootCmd(io *iostreams.IO) *cobra.Command {
	g := &globals{tmuxBin: os.Getenv("TEAMCTL_TMUX")}
	root := &cobra.Command{
		Use:   "teamctl",
		Short: "Supervise teams of Claude Code sessions in tmux",
		Long: `teamctl brings a whole team of Claude Code sessions (a lead and its teammates)
up from one layout file, each in its own pane of a private tmux server, and
lets you step into any member, see who is doing what, and take it all down.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("teamctl {{.Version}}\n") // as `teamctl version` prints it
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetIn(io.In)
	root.PersistentFlags().StringVar(&g.team, "team", "", "the team to act on (default: $TEAMCTL_TEAM, else the only team that is up)")
	root.AddCommand(
		newUpCmd(io, g),
		newDownCmd(io, g),
		newStatusCmd(io, g),
		newAttachCmd(io, g),
		newValidateCmd(io),
		newDemoCmd(io, g),
		newDoctorCmd(io, g),
		newTeamsCmd(io, g),
		newStandInCmd(io),
		newSuperviseCmd(io, g),
		newEventsCmd(io, g),
		newAnswerCmd(io, g),
		newRunCmd(io),
		newApproveCmd(io, g),
		newDenyCmd(io, g),
		newSendCmd(io, g),
		newInboxCmd(io, g),
		newTasksCmd(io, g),
		newHookCmd(io),
		newCleanCmd(io, g),
		newRestartCmd(io, g),
		newTopCmd(io, g),
		newVersionCmd(io),
	)
	root.RegisterFlagCompletionFunc("team", completeTeams)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "attach", "approve", "deny", "send", "inbox", "answer", "restart":
			c.ValidArgsFunction = completeMembers(g)
		case "clean":
			c.ValidArgsFunction = completeTeams
		}
	}
	return root
}

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// version, when set at build time with -ldflags "-X main.version=…", is the
// version teamctl reports; else the build info says (see versionString).
var version string

// globals are the flags every command shares.
type globals struct {
	team    string
	tmuxBin string
	// ios is where a command says which team it took when it was not
	// named and another could have been meant (team.Found.Note); nil: not said.
	ios *iostreams.IO
}

func newRootCmd(io *iostreams.IO) *cobra.Command {
	g := &globals{tmuxBin: os.Getenv("TEAMCTL_TMUX"), ios: io}
	root := &cobra.Command{
		Use:   "teamctl",
		Short: "Supervise teams of Claude Code sessions in tmux",
		Long: `teamctl brings a whole team of Claude Code sessions (a lead and its teammates)
up from one layout file, each in its own pane of a private tmux server, and
lets you step into any member, see who is doing what, and take it all down.

Which team a command means, when --team does not name one, is the first of:
$TEAMCTL_TEAM (set in every member's pane); the team whose tmux server the
command runs on; the team brought up from the nearest teamctl.yaml (or
teamctl.yml, .teamctl.yaml, .teamctl.yml) in the current folder or above it;
the team whose folder, repository or worktree holds the current folder (the
deepest wins); the only team up (with several, the only one with the member
named); the only team there is. Teams that are down count too, so that
finish after down works in the team's folder. When another team could have
been meant, the command says on stderr which it took; with none found, it
lists the teams and asks for --team. --team is a flag only of the commands
that act on one team; elsewhere it is an unknown flag, never one silently
ignored.

Output has no colour when it is not a terminal or NO_COLOR is set. Tables
line up by the width a terminal gives their text and on a terminal fit its
width (a path shortened to ~/.../last, a text cut with "..."); piped, every
value is whole.

Exit codes: 0 done; 1 failed (the message says what); 2 used wrongly (an
unknown command or flag, a wrong number of arguments, flags that do not go
together), with the message and then "see 'teamctl CMD --help'" on stderr.
run exits with its command's code.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("teamctl {{.Version}}\n") // as `teamctl version` prints it
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetIn(io.In)
	root.AddCommand(
		newInitCmd(io, nil),
		newUpCmd(io, g, nil),
		newDownCmd(io, g, nil),
		newStatusCmd(io, g, nil),
		newAttachCmd(io, g, nil),
		newValidateCmd(io, nil),
		newDemoCmd(io, g, nil),
		newDoctorCmd(io, g, nil),
		newTeamsCmd(io, g, nil),
		newStandInCmd(io, nil),
		newSuperviseCmd(io, g, nil),
		newEventsCmd(io, g, nil),
		newAnswerCmd(io, g, nil),
		newRunCmd(io, nil),
		newApproveCmd(io, g, nil),
		newDenyCmd(io, g, nil),
		newSendCmd(io, g, nil),
		newInboxCmd(io, g, nil),
		newTasksCmd(io, g, nil),
		newHookCmd(io, nil),
		newAgentCmd(io, nil),
		newRelayCmd(io, nil),
		newCleanCmd(io, g, nil),
		newSnapshotsCmd(io, g, nil),
		newRestoreCmd(io, nil),
		newRestartCmd(io, g, nil),
		newStopCmd(io, g, nil),
		newStartCmd(io, g, nil),
		newResumeMemberCmd(io, g, nil),
		newDiffCmd(io, g, nil),
		newConflictsCmd(io, g, nil),
		newMergeCmd(io, g, nil),
		newFinishCmd(io, g, nil),
		newTopCmd(io, g, nil),
		newServeCmd(io, g, nil),
		newLogsCmd(io, g, nil),
		newUsageCmd(io, g, nil),
		newVersionCmd(io, nil),
		newManCmd(io, nil),
	)
	// Made now rather than by Execute, so that they get examples and usage errors too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	describeCompletion(root)
	groupCommands(root)
	addGeneratedExamples(root)
	checkUsage(root)
	return root
}

// commandGroups are the headings of `teamctl --help`, in order, and the
// commands under each (as gh groups its own): 36 commands in one
// alphabetical list are hard to find one's way in.
var commandGroups = []struct {
	id, title string
	commands  []string
}{
	{"team", "Team commands:", []string{"up", "down", "status", "teams", "attach", "validate", "clean"}},
	{"members", "Member commands:", []string{"send", "answer", "approve", "deny", "stop", "start", "restart", "resume-member", "logs", "inbox", "tasks"}},
	{"review", "Review and land:", []string{"diff", "conflicts", "merge", "finish", "snapshots", "restore"}},
	{"watch", "Watch:", []string{"top", "serve", "events", "usage", "supervise", "run"}},
	{"setup", "Set-up commands:", []string{"init", "demo", "doctor", "man", "version", "completion", "help"}},
}

// groupCommands puts each of root's commands under its heading.
func groupCommands(root *cobra.Command) {
	group := map[string]string{}
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, c := range g.commands {
			group[c] = g.id
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = group[c.Name()]
	}
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
}

// addGeneratedExamples gives cobra's own help and completion commands an
// Examples section, as every teamctl command has.
func addGeneratedExamples(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  teamctl help up\n  teamctl help clean"
		case "completion":
			c.Example = "  source <(teamctl completion bash)\n  teamctl completion zsh > \"${fpath[1]}/_teamctl\""
			for _, sh := range c.Commands() {
				switch sh.Name() {
				case "bash":
					sh.Example = "  source <(teamctl completion bash)\n  teamctl completion bash > /etc/bash_completion.d/teamctl"
				case "zsh":
					sh.Example = "  teamctl completion zsh > \"${fpath[1]}/_teamctl\""
				case "fish":
					sh.Example = "  teamctl completion fish > ~/.config/fish/completions/teamctl.fish"
				case "powershell":
					sh.Example = "  teamctl completion powershell | Out-String | Invoke-Expression"
				}
			}
		}
	}
}

// open opens the team a command acts on: --team, else as team.Which finds
// it (TEAMCTL_TEAM, the pane's team, the folder's team, the only team up).
func (g *globals) open(cmd *cobra.Command) (*team.Team, error) { return g.openFor(cmd, "") }

// openNamed opens team name ("" as open does).
func (g *globals) openNamed(cmd *cobra.Command, name string) (*team.Team, error) {
	if name == "" {
		return g.open(cmd)
	}
	return team.Open(cmd.Context(), name, g.tmuxBin)
}

// openFor is open for a command about member: with several teams up and
// none named, the one that has such a member.
func (g *globals) openFor(cmd *cobra.Command, member string) (*team.Team, error) {
	return g.openMember(cmd.Context(), member)
}

// openMember is openFor with a context, for a command's run function.
func (g *globals) openMember(ctx context.Context, member string) (*team.Team, error) {
	name, err := g.find(ctx, member)
	if err != nil {
		return nil, err
	}
	return team.Open(ctx, name, g.tmuxBin)
}

// find is the name of the team a command about member ("": none) means,
// saying on stderr which it took when another could have been meant: the
// one resolution every command shares (team.Which).
func (g *globals) find(ctx context.Context, member string) (string, error) {
	f, err := team.Which(ctx, g.team, g.tmuxBin, member)
	if err != nil {
		return "", err
	}
	if n := f.Note(); n != "" && g.ios != nil {
		fmt.Fprintln(g.ios.ErrOut, textsafe.Visible(n))
	}
	return f.Name, nil
}

// describeCompletion says in cobra's completion command what teamctl's
// scripts complete beyond commands and flags: member and team names.
func describeCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Long = `Generate the shell completion script for teamctl, for the shell named.
Besides commands and flags it completes member names (attach, send, approve,
...; with several teams up and no --team, every team's members, each described
with its team) and team names (--team, clean). See each sub-command's help for
how to load the script.`
		}
	}
}

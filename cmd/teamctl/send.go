package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

func newSendCmd(ios *iostreams.IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "send MEMBER TEXT|-",
		Example: `  teamctl send researcher "Look at the token refresh too."
  git diff | teamctl send lead -`,
		Short: "Tell a member something: a teammate through its mailbox, the lead typed into its pane when idle",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			text := args[1]
			if text == "-" {
				b, err := io.ReadAll(io.LimitReader(ios.In, 1<<20))
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				text = strings.TrimRight(string(b), "\n")
			}
			how, err := t.Send(cmd.Context(), args[0], text)
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "sent to %s: %s\n", args[0], how)
			return nil
		},
	}
}

func newInboxCmd(ios *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "inbox MEMBER",
		Example: `  teamctl inbox lead
  teamctl inbox researcher --json --team auth-fix`,
		Short: "List a member's Claude Code mailbox (`lead` for the lead's, where teammates write)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			msgs, err := t.Inbox(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(ios, msgs)
			}
			tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tFROM\tREAD\tMESSAGE")
			for _, m := range msgs {
				text := m.Text
				if v, ok := claudecode.ParseProtocol(m.Text); ok {
					b, _ := json.Marshal(v)
					text = string(b)
				}
				text = strings.Join(strings.Fields(text), " ")
				if r := []rune(text); len(r) > 100 {
					text = string(r[:100]) + "…"
				}
				// Teammates wrote these: made visible, never handed to the terminal.
				v := textsafe.Visible
				fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", v(m.Timestamp), v(m.From), m.Read, v(text))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTasksCmd(ios *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "tasks",
		Example: `  teamctl tasks
  teamctl tasks --json --team auth-fix`,
		Short: "List the team's Claude Code tasks (tasks/<team>/*.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			tasks, err := t.Tasks()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(ios, tasks)
			}
			tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tOWNER\tSUBJECT")
			for _, t := range tasks {
				v := textsafe.Visible // task files are written by the team's agents
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v(t.ID), v(t.Status), v(t.Owner), v(t.Subject))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// Command teamctl brings up, watches and tears down teams of Claude Code
// sessions in tmux. See internal/cli for the commands.
package main

import (
	"os"

	"github.com/teamctl/teamctl/internal/cli"
)

func main() { os.Exit(cli.Main()) }

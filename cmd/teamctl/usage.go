package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a command used wrongly (an unknown flag, a wrong number of
// arguments, flags that do not go together): exit 2 and a pointer to the
// command's help, as gh, kubectl and docker do. Runtime errors stay exit 1.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef is a usage error of cmd, for checks a command makes itself.
func usagef(cmd *cobra.Command, format string, a ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, a...)}
}

// checkUsage makes every argument check and flag error in the tree under
// root a usageError, so that run can tell them from what failed at work.
func checkUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{cmd: c, err: err} })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if v := c.Args; v != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				if err := v(c, args); err != nil {
					return &usageError{cmd: c, err: err}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// isUnknownCommand reports cobra's own error for `teamctl nosuch`, which it
// returns before any command's argument check runs.
func isUnknownCommand(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}

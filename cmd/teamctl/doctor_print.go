package main

import (
	"fmt"

	"github.com/teamctl/teamctl/doctor"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// printChecks prints a line a check, marked ok, FAIL or warn, and its fix
// under it.
func printChecks(io *iostreams.IO, checks []doctor.Check) {
	for _, c := range checks {
		mark := io.Color("32", "ok  ")
		switch {
		case !c.OK:
			mark = io.Color("31", "FAIL")
		case c.Warn:
			mark = io.Color("33", "warn")
		}
		fmt.Fprintf(io.Out, "%s  %-14s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(io.Out, "      %-14s fix: %s\n", "", c.Fix)
		}
	}
}

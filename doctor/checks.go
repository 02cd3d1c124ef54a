package doctor

import (
	"context"

	"github.com/teamctl/teamctl/layouts"
)

// Checks is `teamctl doctor`'s report: Run's checks, then, with a layout file
// (layout not ""), what that layout needs (Layout). claude is as Run's.
func Checks(ctx context.Context, tmuxBin, claude, layout string) ([]Check, error) {
	var l *layouts.Layout
	if layout != "" {
		var err error
		if l, err = layouts.Parse(layout); err != nil {
			return nil, err
		}
	}
	checks := Run(ctx, tmuxBin, claude, l)
	if l != nil {
		checks = append(checks, Layout(ctx, l)...)
	}
	return checks, nil
}

// Failed reports whether a check failed: doctor's exit code 1. A warning is
// not a failure.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if !c.OK {
			return true
		}
	}
	return false
}

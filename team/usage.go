package team

import (
	"time"

	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/usage"
)

// UsageOptions are what Usage reports: responses from Since on (zero: all),
// of Members only (none: all).
type UsageOptions struct {
	Since   time.Time
	Members []string
}

// Usage is what the team spent, member by member, up or down: read from
// the transcripts of the Claude Code sessions its state records, priced
// from teamctl's price table (the shipped one, or it under
// <config>/prices.yaml). A price file with mistakes is said in the report's
// PriceFileError, and the shipped prices used.
func (t *Team) Usage(o UsageOptions) (*usage.Report, error) {
	st, err := t.State()
	if err != nil {
		return nil, err
	}
	prices, priceErr := usage.LoadPrices()
	r, err := usage.ForTeam(st, usage.Options{ClaudeDir: relaunch.ClaudeConfigDir(st), Prices: prices, Since: o.Since, Members: o.Members})
	if err != nil {
		return nil, err
	}
	if priceErr != nil {
		r.PriceFileError = priceErr.Error()
	}
	return r, nil
}

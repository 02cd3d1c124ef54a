package ptywatch

import (
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/stallwatch"
)

// TestWatchdogOf: without a layout, stallwatch's patterns and the quiet
// period given; with one, its patterns, its notify command and team, its
// quiet period unless one was given, and the member the notify command
// names: the pane's own member when run inside one of the layout's team,
// else "run".
func TestWatchdogOf(t *testing.T) {
	l, err := layouts.ParseBytes("team.yaml", []byte(`team: auth
watchdog:
  quiet: 7s
  defaults: false
  patterns:
    - {name: deploy, regex: 'Deploy\?'}
  notify:
    command: [notify-send, teamctl]
`))
	if err != nil {
		t.Fatal(err)
	}
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	names := func(ps []stallwatch.Pattern) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		l        *layouts.Layout
		quietSet bool
		env      func(string) string
		want     watchdog
	}{
		{"no layout", nil, false, env(), watchdog{quiet: 3 * time.Second}},
		{"the layout's quiet period", l, false, env(), watchdog{quiet: 7 * time.Second, notify: []string{"notify-send", "teamctl"}, team: "auth", member: "run"}},
		{"a quiet period given", l, true, env(), watchdog{quiet: 3 * time.Second, notify: []string{"notify-send", "teamctl"}, team: "auth", member: "run"}},
		{"in a member of the team", l, false, env("TEAMCTL_TEAM", "auth", "TEAMCTL_MEMBER", "web"), watchdog{quiet: 7 * time.Second, notify: []string{"notify-send", "teamctl"}, team: "auth", member: "web"}},
		{"in a member of another team", l, false, env("TEAMCTL_TEAM", "other", "TEAMCTL_MEMBER", "web"), watchdog{quiet: 7 * time.Second, notify: []string{"notify-send", "teamctl"}, team: "auth", member: "run"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := watchdogOf(c.l, 3*time.Second, c.quietSet, c.env)
			wantPatterns := names(stallwatch.DefaultPatterns())
			if c.l != nil {
				wantPatterns = []string{"deploy"}
			}
			if !slices.Equal(names(got.patterns), wantPatterns) {
				t.Errorf("patterns %q, want %q", names(got.patterns), wantPatterns)
			}
			if got.quiet != c.want.quiet || !slices.Equal(got.notify, c.want.notify) || got.team != c.want.team || got.member != c.want.member {
				t.Errorf("watchdog %v %q %q %q, want %v %q %q %q", got.quiet, got.notify, got.team, got.member, c.want.quiet, c.want.notify, c.want.team, c.want.member)
			}
		})
	}
}

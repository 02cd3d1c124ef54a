package team

import (
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestAnswerRefusals: the answers a person may not give, each refused with
// what to do instead, nothing typed into the pane and nothing recorded — and
// the ones that go through instead. (Moved here from cmd/teamctl's
// TestAnswerRefusesAnAmbiguousYes and TestAnswerRefusesAMemberNotStalled,
// which drove a stand-in's screens through the built binary for these
// decisions; what the stand-in does with the keys is standin's, what the
// command prints is TestAnswerRun's.)
func TestAnswerRefusals(t *testing.T) {
	plan, idle := screenOf(t, "claude-2.1.332-plan.txt"), screenOf(t, "claude-idle.txt")
	options := "1. Yes, and use auto mode · 2. Yes, manually approve edits · 3. Tell Claude what to change"
	planStall := map[string]state.LiveMember{"worker": {State: state.StateStalled, Pattern: "claude-plan", Line: "…"}}
	calm := map[string]state.LiveMember{"lead": {State: state.StateIdle}, "sh": {State: state.StateRunning}}
	for _, c := range []struct {
		name    string
		live    map[string]state.LiveMember
		screens map[string]string
		member  string
		a       Answer
		want    []string // the log
		keys    []string // the keys sent and recorded
		option  string
		err     string
	}{{
		name: "a plan approval: y has two yeses to mean", live: planStall, screens: map[string]string{"%1": plan},
		member: "worker", a: Answer{Reply: "y"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  "worker waits at a Claude Code dialog with no single plain yes: choose an option by its number (`teamctl answer worker N`) or --option TEXT: " + options,
	}, {
		name: "a plan approval: n has no No to mean", live: planStall, screens: map[string]string{"%1": plan},
		member: "worker", a: Answer{Reply: "n"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  "worker waits at a Claude Code dialog with no plain no and no Esc to cancel",
	}, {
		name: "a plan approval: no option 4", live: planStall, screens: map[string]string{"%1": plan},
		member: "worker", a: Answer{Reply: "4"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  "worker's dialog has no option 4; it offers: " + options,
	}, {
		name: "a plan approval: an option's text that starts two of them", live: planStall, screens: map[string]string{"%1": plan},
		member: "worker", a: Answer{Option: "Yes"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  `"Yes" is the start of several of worker's options: "1. Yes, and use auto mode", "2. Yes, manually approve edits"`,
	}, {
		name: "a plan approval: an option's text, in any case, chooses it by its number", live: planStall, screens: map[string]string{"%1": plan},
		member: "worker", a: Answer{Option: "yes, MANUALLY"},
		want: []string{"list-panes", "capture-pane -p -J -t %1", "send-keys -t %1 -- 2"},
		keys: []string{"2"}, option: "2. Yes, manually approve edits",
	}, {
		name: "an idle Claude Code: a y would be a prompt", live: calm, screens: map[string]string{"%0": idle},
		member: "lead", a: Answer{Reply: "y"},
		want: []string{"list-panes"},
		err:  "lead is idle, not stalled: the answer would be typed into it as input (--force sends it anyway)",
	}, {
		name: "a busy member: a y would be input", live: calm,
		member: "sh", a: Answer{Reply: "y"},
		want: []string{"list-panes"},
		err:  "sh is running, not stalled: the answer would be typed into it as input (--force sends it anyway)",
	}, {
		name: "forced: typed into the idle lead all the same, then Enter", live: calm, screens: map[string]string{"%0": idle},
		member: "lead", a: Answer{Reply: "y", Force: true},
		want: []string{"capture-pane -p -J -t %0", "send-keys -t %0 -- y Enter"},
		keys: []string{"y", "Enter"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("team.yaml", alpha))
			f.takeSupervisor("alpha")
			f.live("alpha", c.live)
			for pane, screen := range c.screens {
				f.server("alpha").screens[pane] = screen
			}
			got, err := f.open("alpha").Answer(f.ctx, c.member, c.a)
			f.wantLog(c.want...)
			evs := f.events("alpha", state.EventAnswer)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("answer: %v, want an error saying %q", err, c.err)
				}
				if len(evs) != 0 {
					t.Errorf("a refused answer recorded %+v", evs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Keys, c.keys) || got.Option != c.option {
				t.Errorf("sent %q choosing %q, want %q choosing %q", got.Keys, got.Option, c.keys, c.option)
			}
			if len(evs) != 1 || evs[0].Member != c.member || !slices.Equal(evs[0].Keys, c.keys) || evs[0].Option != c.option ||
				evs[0].Detail != "by a person (teamctl answer)" {
				t.Errorf("answer events %+v, want one of %s's keys %q", evs, c.member, c.keys)
			}
		})
	}
}

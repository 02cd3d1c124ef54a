package layouts

import (
	"testing"
	"time"
)

func TestUsageLimits(t *testing.T) {
	l := mustParse(t, "team: t\n")
	if want := (UsageLimits{Margin: DefaultLimitMargin, Prompt: DefaultLimitPrompt}); l.Limits != want {
		t.Errorf("defaults %+v, want %+v (resume off)", l.Limits, want)
	}
	l = mustParse(t, "team: t\nlimits:\n  resume: true\n  margin: 2s\n  prompt: keep going\n")
	if want := (UsageLimits{Resume: true, Margin: 2 * time.Second, Prompt: "keep going"}); l.Limits != want {
		t.Errorf("got %+v, want %+v", l.Limits, want)
	}
	l = mustParse(t, "team: t\nlimits: {resume: true}\n")
	if want := (UsageLimits{Resume: true, Margin: DefaultLimitMargin, Prompt: DefaultLimitPrompt}); l.Limits != want {
		t.Errorf("flow mapping: got %+v, want %+v", l.Limits, want)
	}
}

package team

import (
	"bytes"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
)

// TestDownNowAsksNoOneToShutDown: down --now writes no Claude Code
// shutdown_request into any mailbox and waits for no one, where a plain down
// asks each teammate first and says it waits; either way the stop is
// recorded. (Moved here from cmd/teamctl's
// TestDownNowSkipsTheShutdownRequest, which brought stand-ins up in tmux to
// check this decision; that down ends every process for real is
// TestDownLeavesNothing's, kept there.)
func TestDownNowAsksNoOneToShutDown(t *testing.T) {
	for _, now := range []bool{false, true} {
		name := "down"
		if now {
			name = "down --now"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeWorld(t)
			st := f.up(f.layout("team.yaml", alpha))
			var progress bytes.Buffer
			if _, err := f.open("alpha").Down(f.ctx, DownOptions{Now: now, Progress: &progress}); err != nil {
				t.Fatal(err)
			}
			asked := false
			for _, box := range []string{"worker", claudecode.LeadMailboxName} {
				for _, text := range inboxTexts(t, st, box) {
					if strings.Contains(text, claudecode.TypeShutdownRequest) {
						asked = asked || box == "worker"
						if now || box != "worker" {
							t.Errorf("%s's mailbox has a shutdown request: %s", box, text)
						}
					}
				}
			}
			waited := strings.Contains(strings.Join(f.log, "\n"), "wait for")
			says := strings.Contains(progress.String(), "shut down")
			if asked == now || waited == now || says == now {
				t.Errorf("asked worker to shut down: %v, waited: %v, said so: %v (%q); want %v", asked, waited, says, progress.String(), !now)
			}
			if f.state("alpha").StoppedAt == nil {
				t.Error("the stop is not recorded")
			}
		})
	}
}

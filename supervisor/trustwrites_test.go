package supervisor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/usage"
)

// TestPriceFileFIFODoesNotHoldTheStart: a FIFO put where the price file
// goes (an agent can write the config folder) once held the supervisor at
// its start, which then missed a member's death; it is refused at once, the
// shipped prices are used, and the members are watched.
func TestPriceFileFIFODoesNotHoldTheStart(t *testing.T) {
	conf := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", conf)
	if err := os.Mkdir(filepath.Join(conf, "teamctl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(conf, "teamctl", usage.PriceFileName), 0o600); err != nil {
		t.Skip(err)
	}
	started := make(chan *world, 1)
	go func() { started <- newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""}) }()
	var w *world
	select {
	case w = <-started:
	case <-time.After(time.Minute):
		t.Fatal("the supervisor's start still waits on the FIFO after a minute")
	}
	if w.s.spend.prices == nil || w.s.spend.prices.Source != "shipped" {
		t.Errorf("prices: %+v, want the shipped table", w.s.spend.prices)
	}
	w.exit("mate", "1", "")
	if got := w.live("mate").State; !got.Ended() {
		t.Errorf("mate exited: its state is %s", got)
	}
}

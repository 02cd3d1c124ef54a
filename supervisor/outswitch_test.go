package supervisor

import (
	"fmt"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// The output switch's decisions (outswitch.go), on the fake clock: what the
// control client was told (-A %N:continue|pause), when, and what the daemon
// saw.

const question = "$ make\nOverwrite? (y/n)"

// printSteadily has pane print screen every gap for d.
func (w *world) printSteadily(pane, screen string, gap, d time.Duration) {
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.output(pane, screen)
		w.advance(gap)
	}
}

// switchTimes are the times pane's output was switched to v (switchOnWord,
// switchOffWord).
func (w *world) switchTimes(pane, v string) []time.Time {
	w.srv.mu.Lock()
	defer w.srv.mu.Unlock()
	var out []time.Time
	for _, sw := range w.srv.switched {
		if sw.value == pane+":"+v {
			out = append(out, sw.at)
		}
	}
	return out
}

// TestABurstIsNeverSwitchedOff: output that lasts less than steadyFor, or
// comes with gaps longer than steadyGap however long, keeps the pane's
// output on, and its question is seen exactly a quiet period after it
// appeared, as without the switch.
func TestABurstIsNeverSwitchedOff(t *testing.T) {
	for _, c := range []struct {
		name   string
		gap, d time.Duration
	}{
		{"a short burst", 20 * time.Millisecond, steadyFor - 40*time.Millisecond},
		{"slow output", steadyGap + 50*time.Millisecond, 10 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
			w.printSteadily("%1", "building…", c.gap, c.d)
			w.output("%1", question)
			asked := w.clock.Now()
			w.advance(quiet + time.Second)
			if sw := w.srv.switches("%1"); len(sw) != 0 {
				t.Errorf("output switched: %v", sw)
			}
			stalls := w.events(state.EventStall, "mate")
			if len(stalls) != 1 {
				t.Fatalf("%d stalls", len(stalls))
			}
			if late := w.live("mate").Since.Sub(asked); late != quiet {
				t.Errorf("stall seen %s after the question, want the quiet period (%s)", late, quiet)
			}
		})
	}
}

// TestSteadyOutputIsSwitchedOff: a pane printing every 20 ms has its output
// switched off once it printed steadily for steadyFor, is probed once a quiet
// period (each probe switching it on until its next output, then off), and
// its screen (a question among the output) is never looked at while it
// prints, as without the switch.
func TestSteadyOutputIsSwitchedOff(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
	start := w.clock.Now()
	const d = 20 * time.Second
	w.printSteadily("%1", question, 20*time.Millisecond, d)
	offs, ons := w.switchTimes("%1", switchOffWord), w.switchTimes("%1", switchOnWord)
	if len(offs) == 0 {
		t.Fatal("a pane printing steadily was never switched off")
	}
	if first := offs[0].Sub(start); first < steadyFor || first > steadyFor+40*time.Millisecond {
		t.Errorf("switched off %s after it began printing, want steadyFor (%s)", first, steadyFor)
	}
	// One probe a quiet period, each followed by off at its first output.
	if most := int((d-steadyFor)/quiet) + 1; len(ons) > most || len(ons) < most-2 {
		t.Errorf("%d probes in %s, want about one each quiet period (%d)", len(ons), d-steadyFor, most)
	}
	if len(offs) != len(ons)+1 {
		t.Errorf("%d offs, %d ons: each probe is switched off again", len(offs), len(ons))
	}
	for i, on := range ons {
		if gap := on.Sub(offs[i]); gap < quiet {
			t.Errorf("probe %d came %s after the output was off, before the quiet period", i, gap)
		}
		if open := offs[i+1].Sub(on); open > 40*time.Millisecond {
			t.Errorf("probe %d kept the output on for %s while it printed every 20ms", i, open)
		}
	}
	if !w.srv.isOff("%1") {
		t.Error("its output is on while it prints")
	}
	if n := len(w.events(state.EventStall, "mate")); n != 0 {
		t.Errorf("%d stalls while the pane printed", n)
	}
	if sw := w.srv.switches("%0"); len(sw) != 0 {
		t.Errorf("the quiet lead's output was switched: %v", sw)
	}
}

// TestASteadyPrinterThatStopsIsSeen: a pane printing steadily stops at a
// question, whenever that falls against its probes: its output is on
// again, the stall is reported once, at most probeWindow after the quiet
// period (earlier when it stopped right after its output went off), and the
// blind-watch safety net holds.
func TestASteadyPrinterThatStopsIsSeen(t *testing.T) {
	for _, stop := range []time.Duration{
		steadyFor + 20*time.Millisecond, // right after it went off
		steadyFor + quiet/2,
		steadyFor + quiet - 20*time.Millisecond, // just before the probe
		steadyFor + quiet + 20*time.Millisecond, // right after the probe
		steadyFor + quiet + probeWindow,
		7 * time.Second,
	} {
		t.Run(fmt.Sprint(stop), func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
			w.printSteadily("%1", "building…", 20*time.Millisecond, stop)
			w.output("%1", question)
			asked := w.clock.Now()
			w.advance(quiet + probeWindow + 10*time.Millisecond)
			if w.srv.isOff("%1") {
				t.Fatalf("its output is still off %s after it stopped", quiet+probeWindow)
			}
			if len(w.srv.switches("%1")) == 0 {
				t.Fatal("never switched off: the case tests nothing")
			}
			stalls := w.events(state.EventStall, "mate")
			if len(stalls) != 1 {
				t.Fatalf("%d stalls %s after the question", len(stalls), quiet+probeWindow)
			}
			if late := w.live("mate").Since.Sub(asked); late > quiet+probeWindow {
				t.Errorf("stall seen %s after the question, want at most %s", late, quiet+probeWindow)
			}
			w.quietLook("stopped")
			if n := len(w.events(state.EventStall, "mate")); n != 1 {
				t.Errorf("%d stalls for one question", n)
			}
			// Its answer and new steady work clear it, and it is switched off again.
			w.printSteadily("%1", question+" y\nbuilding…", 20*time.Millisecond, 2*steadyFor)
			if !w.srv.isOff("%1") {
				t.Error("printing steadily again, its output stays on")
			}
			w.output("%1", "done\nContinue? [y/n]")
			w.advance(quiet + probeWindow)
			if got := w.live("mate"); got.State != state.StateStalled || got.Line != "Continue? [y/n]" {
				t.Errorf("after the second question: %+v", got)
			}
		})
	}
}

// TestAStalledScreenSwitchedOffIsLookedAt: a stalled pane whose screen keeps
// changing (a blinking prompt, a clock) is looked at once a quiet period
// while its output is off, as its quiet timer does when it is on: the
// question answered, it is running.
func TestAStalledScreenSwitchedOffIsLookedAt(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
	w.output("%1", question)
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateStalled {
		t.Fatalf("state %s", got)
	}
	w.printSteadily("%1", question, 20*time.Millisecond, steadyFor+quiet/2)
	if !w.srv.isOff("%1") {
		t.Fatal("never switched off: the case tests nothing")
	}
	w.printSteadily("%1", "Overwrite? (y/n) y\ncopying… 12:00:01", 20*time.Millisecond, quiet+probeWindow)
	if got := w.live("mate").State; got != state.StateRunning {
		t.Errorf("state %s a quiet period after the question was answered, its output off", got)
	}
}

// TestANewRunIsSwitchedOn: a pane switched off whose program exits and is
// run again in it (`teamctl restart`, a respawn) is switched on at once, and
// the new run's question is seen a quiet period after it appeared.
func TestANewRunIsSwitchedOn(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
	w.printSteadily("%1", "building…", 20*time.Millisecond, steadyFor+100*time.Millisecond)
	if !w.srv.isOff("%1") {
		t.Fatal("never switched off: the case tests nothing")
	}
	w.exit("mate", "1", "")
	w.srv.mu.Lock()
	p := w.srv.pane("%1")
	p.Dead, p.status, p.PID = false, "", p.PID+1
	v := deadValue(p)
	w.srv.mu.Unlock()
	w.srv.ctl.notes <- notification("dead", "%1", v)
	w.settle()
	if w.srv.isOff("%1") {
		t.Fatal("the new run's output is off")
	}
	w.output("%1", question)
	asked := w.clock.Now()
	w.advance(quiet)
	if n, since := len(w.events(state.EventStall, "mate")), w.live("mate").Since; n != 1 || since.Sub(asked) != quiet {
		t.Errorf("%d stalls, stalled at %s, want one a quiet period after %s", n, since, asked)
	}
}

// TestReconnectSwitchesEveryPaneOn: a new control client has every pane's
// output on; the daemon forgets its switches (no probe of the old ones
// switches a pane off or on), follows the panes afresh, and a question
// that was printed while the client was away is seen.
func TestReconnectSwitchesEveryPaneOn(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"a", state.RoleProcess, ""}, member{"b", state.RoleProcess, ""})
	for range 60 {
		w.output("%1", "building a…")
		w.output("%2", "building b…")
		w.advance(20 * time.Millisecond)
	}
	if !w.srv.isOff("%1") || !w.srv.isOff("%2") {
		t.Fatal("never switched off: the case tests nothing")
	}
	w.printed("%1", nil, question) // while no client was attached
	if !w.s.reconnect(w.ctx, "test") {
		t.Fatal("no reconnect")
	}
	w.s.resync(w.ctx)
	w.settle()
	before := len(w.srv.switches("%1")) + len(w.srv.switches("%2"))
	for _, pw := range w.s.panes {
		if pw.out.mode != outputOn {
			t.Errorf("%s: output mode %d after a reconnect", pw.id, pw.out.mode)
		}
	}
	if got := w.live("a").State; got != state.StateStalled {
		t.Errorf("a is %s: the question printed while the client was away was not seen", got)
	}
	// b prints a question and stops: seen a quiet period later, no switch
	// of the old client's made.
	w.output("%2", question)
	asked := w.clock.Now()
	w.advance(2 * quiet)
	if after := len(w.srv.switches("%1")) + len(w.srv.switches("%2")); after != before {
		t.Errorf("%d switches after the reconnect, with no steady output", after-before)
	}
	if n, since := len(w.events(state.EventStall, "b")), w.live("b").Since; n != 1 || since.Sub(asked) != quiet {
		t.Errorf("b: %d stalls, stalled at %s, want one a quiet period after %s", n, since, asked)
	}
}

// TestARedrawnDialogIsAStall: Codex 0.171.0 redraws a screen that does not
// change about once a second, at its approval dialog too: it is never
// quiet. An agent CLI's pane (Codex, Gemini) that prints, steadily or every
// second, is looked at once a quiet period, and when two looks see the same
// screen it is judged: a stall, seen within a few quiet periods, said once.
// A plain process printing so is not looked at (no capture a quiet period
// for every busy pane), as before.
func TestARedrawnDialogIsAStall(t *testing.T) {
	for _, c := range []struct {
		name  string
		agent string
		gap   time.Duration
		want  int
	}{
		{"codex, steadily", "codex", 20 * time.Millisecond, 1},
		{"codex, every second", "codex", time.Second, 1},
		{"gemini, every 300ms", "gemini", 300 * time.Millisecond, 1},
		{"a plain process", "", time.Second, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
			w.s.st.Members[1].Agent = c.agent
			start := w.clock.Now()
			w.printSteadily("%1", question, c.gap, steadyFor+5*quiet)
			stalls := w.events(state.EventStall, "mate")
			if len(stalls) != c.want {
				t.Fatalf("%d stalls of a pane redrawing its question for %s, want %d", len(stalls), steadyFor+5*quiet, c.want)
			}
			if c.want == 0 {
				return
			}
			if late := w.live("mate").Since.Sub(start); late > steadyFor+3*(quiet+probeWindow) {
				t.Errorf("stall seen %s after the question, want within three looks", late)
			}
			w.printSteadily("%1", question, c.gap, 3*quiet)
			if n := len(w.events(state.EventStall, "mate")); n != 1 {
				t.Errorf("%d stalls for one question redrawn", n)
			}
			// A screen that changes as it prints is not judged.
			w2 := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleProcess, ""})
			w2.s.st.Members[1].Agent = c.agent
			for i, end := 0, w2.clock.Now().Add(steadyFor+5*quiet); w2.clock.Now().Before(end); i++ {
				w2.output("%1", fmt.Sprintf("tick %d\n%s", i, question))
				w2.advance(c.gap)
			}
			if n := len(w2.events(state.EventStall, "mate")); n != 0 {
				t.Errorf("%d stalls of a screen that changed at every look", n)
			}
		})
	}
}

package team

import (
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/state"
)

// Release lets a member go that its budget held (budget.action interrupt or
// stop; state held), as `teamctl resume-member` asks: it records a released
// event, on which the supervisor lets it go (a stopped member is started
// again, its conversation resumed; an interrupted one may be typed into
// again). With no supervisor running, the hold is taken out of live.json
// here, so the next one does not keep it. It returns the hold let go.
func (t *Team) Release(ctx context.Context, member string) (state.Hold, error) {
	st, err := loadRunning(t.Name)
	if err != nil {
		return state.Hold{}, err
	}
	if _, ok := st.Member(member); !ok {
		var names []string
		for _, m := range st.Members {
			names = append(names, m.Name)
		}
		return state.Hold{}, fmt.Errorf("team %s has no member %q (it has %s)", t.Name, member, strings.Join(names, ", "))
	}
	unlock, err := state.Lock(ctx, t.Name)
	if err != nil {
		return state.Hold{}, err
	}
	defer unlock()
	live, err := state.ReadLive(t.Name)
	if err != nil {
		return state.Hold{}, err
	}
	h, held := live.HeldMember(member)
	if !held {
		return state.Hold{}, fmt.Errorf("%s is not held: resume-member lets go a member its budget held (the layout's budget.action interrupt or stop)", member)
	}
	if pid, _ := state.SupervisorPID(t.Name); pid == 0 {
		delete(live.Budgets.Held, member)
		if err := state.WriteLive(t.Name, live); err != nil {
			return state.Hold{}, fmt.Errorf("release %s: %w", member, err)
		}
	}
	ev, err := state.OpenEventLog(t.Name)
	if err != nil {
		return state.Hold{}, err
	}
	defer ev.Close()
	if err := ev.Append(state.Event{Kind: state.EventReleased, Member: member, Detail: "released by a person (teamctl resume-member); was held for " + h.Reason}); err != nil {
		return state.Hold{}, fmt.Errorf("release %s: %w", member, err)
	}
	return h, nil
}

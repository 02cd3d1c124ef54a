package tmux

import (
	"strconv"
	"strings"
)

// UnrecordedCopies sorts out the panes that name a member (their
// @teamctl-member) but are not the pane recorded for it: a relaunch makes the
// new pane and names it in one batch (ReplacePane), and records it only
// after, so one cut short in between (killed, or its state folder full or
// read-only) leaves the member running in a pane nothing recorded. recorded
// maps each member teamctl relaunches to its recorded pane id. For a member
// whose recorded pane is listed, every copy is to end: that pane is the one
// down, status and restart act on, and two runs of one member at once fight
// over what is theirs (a Claude Code session, a port). For one whose recorded
// pane is gone, the newest copy (tmux numbers panes in the order it makes
// them) is its latest run and is adopted: ending it would end its work only
// to start the same launch again; older copies are to end.
func UnrecordedCopies(panes []Pane, recorded map[string]string) (adopt map[string]Pane, end []Pane) {
	listed := map[string]bool{}
	copies := map[string][]Pane{}
	for _, p := range panes {
		listed[p.ID] = true
	}
	for _, p := range panes {
		if id, ok := recorded[p.Member]; ok && p.Member != "" && p.ID != id {
			copies[p.Member] = append(copies[p.Member], p)
		}
	}
	adopt = map[string]Pane{}
	for name, cs := range copies {
		if listed[recorded[name]] {
			end = append(end, cs...)
			continue
		}
		newest := 0
		for i, c := range cs {
			if paneNumber(c.ID) > paneNumber(cs[newest].ID) {
				newest = i
			}
		}
		adopt[name] = cs[newest]
		for i, c := range cs {
			if i != newest {
				end = append(end, c)
			}
		}
	}
	return adopt, end
}

// paneNumber is N of pane id %N (-1 for anything else).
func paneNumber(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "%"))
	if err != nil || !strings.HasPrefix(id, "%") {
		return -1
	}
	return n
}

package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

// Live is what the supervisor knows right now about each member, rewritten
// (atomically) on every transition so `status` can show it and a restarted
// supervisor does not report a stall twice.
type Live struct {
	PID     int                    `json:"pid"`
	Started time.Time              `json:"started"`
	Members map[string]*LiveMember `json:"members"`
	// LeadInboxSeen are the keys of the lead's inbox messages already turned
	// into events, so a restarted supervisor reports each once.
	LeadInboxSeen []string `json:"lead_inbox_seen,omitempty"`
	// LeadQueueOffset is how much of lead-queue.jsonl was taken.
	LeadQueueOffset int64 `json:"lead_queue_offset,omitempty"`
	// Seen is when the supervisor last wrote this: at every transition, and
	// once a minute besides, so a team whose server is gone (a reboot) says
	// when it was last seen alive.
	Seen time.Time `json:"seen,omitzero"`
	// Conflicts are the pairs of members whose work would conflict if
	// merged, and the members whose work would conflict with their base
	// branch as it moved on, as the supervisor's radar last found them.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Usage is what each member has spent (liveusage.go), as the
	// supervisor last read its transcripts.
	Usage map[string]*MemberUsage `json:"usage,omitempty"`
	// Budgets are the budgets' thresholds said and members held.
	Budgets *Budgets `json:"budgets,omitempty"`
	// Unreachable are the hosts the supervisor cannot reach now, since
	// when: their members are unknown (their panes run on, unseen).
	Unreachable map[string]time.Time `json:"unreachable,omitempty"`
}

// Conflict is two members whose work (uncommitted included) would conflict
// in Files if merged, since Since; or, with Base, a member's work and its
// base branch (Members[1], no member), which moved on since it started.
type Conflict struct {
	Members [2]string `json:"members"`
	Files   []string  `json:"files"`
	Since   time.Time `json:"since"`
	Base    bool      `json:"base,omitempty"`
}

// Request is a teammate's pending permission request, as status shows it.
type Request struct {
	ID          string    `json:"id"`
	Tool        string    `json:"tool"`
	Description string    `json:"description,omitempty"`
	Input       string    `json:"input,omitempty"` // in short
	Since       time.Time `json:"since"`
}

// LiveMember is one member's watched state.
type LiveMember struct {
	Pane     string      `json:"pane"`
	PID      int         `json:"pid,omitempty"` // the pane's process this is about: a relaunched pane's new process is not failed
	State    MemberState `json:"state"`
	Since    time.Time   `json:"since"`
	Pattern  string      `json:"pattern,omitempty"`
	Line     string      `json:"line,omitempty"`
	Excerpt  string      `json:"excerpt,omitempty"`
	ExitCode *int        `json:"exit_code,omitempty"`
	Reason   string      `json:"reason,omitempty"`  // why failed
	Request  *Request    `json:"request,omitempty"` // when waiting-approval
	Result   string      `json:"result,omitempty"`  // the last thing it said (idle_notification)
	// When limited: when the limit resets, to the minute its screen showed
	// (zero when unknown), and that time as shown ("5:01am").
	Reset      time.Time `json:"reset,omitzero"`
	ResetShown string    `json:"reset_shown,omitempty"`
}

func livePath(team string) (string, error) {
	dir, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "live.json"), nil
}

// ReadLive returns the last live state written for the team (empty when none).
func ReadLive(team string) (*Live, error) {
	l := &Live{Members: map[string]*LiveMember{}}
	p, err := livePath(team)
	if err != nil {
		return l, err
	}
	b, err := readNoFollow(p)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(b, l); err != nil {
		return &Live{Members: map[string]*LiveMember{}}, nil // a torn or old file: start afresh
	}
	if l.Members == nil {
		l.Members = map[string]*LiveMember{}
	}
	return l, nil
}

// WriteLive replaces the team's live state (atomically): the supervisor's.
func WriteLive(team string, l *Live) error {
	p, err := livePath(team)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, append(b, '\n'), 0o600)
}

// ForgetLiveMembers keeps of the live state only what outlives the team's
// server, for a team resumed on a new one: which of the lead's inbox messages
// were reported, how much of the lead queue was typed (the rest still will
// be), when the team was last seen, and what its budgets said and hold (its
// members' spending goes on across lives). What it knew of each member is about
// panes that are gone (pane ids start again from %0).
func ForgetLiveMembers(team string) error {
	l, err := ReadLive(team)
	if err != nil {
		return err
	}
	return WriteLive(team, &Live{LeadInboxSeen: l.LeadInboxSeen, LeadQueueOffset: l.LeadQueueOffset, Seen: l.Seen, Budgets: l.Budgets, Members: map[string]*LiveMember{}})
}

// ClearLive removes the live state, when a team starts afresh or goes down:
// pane IDs start again from %0 on a new server and must not meet old states.
// The lead queue goes with it: text for a lead that is gone.
func ClearLive(team string) {
	if p, err := livePath(team); err == nil {
		os.Remove(p)
	}
	if p, err := LeadQueuePath(team); err == nil {
		os.Remove(p)
	}
}

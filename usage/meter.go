package usage

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/internal/parallel"
)

// Meter follows the transcripts of one member's sessions (their subagents'
// included) and keeps its running totals. Each Update reads only what was
// written since the last one, finds files that appeared (a subagent's, a
// session's first), and forgets what it had counted of a file that was
// replaced or truncated before reading it again. A response is counted once
// across all the member's files. A Meter is not safe for concurrent use.
//
// It is what a live view or a budget follows: NewMeter once per member,
// Update when it wants the figures (say, each second or on a change in
// projects/), AddSession when the member gets another session.
type Meter struct {
	claudeDir string
	sessions  []string
	prices    *Table
	since     time.Time
	files     map[string]*meterFile
	order     []string          // paths in the order found
	owner     map[uint64]uint32 // response key → the file that counted it (its index in order)
	agents    [][2]string       // agent CLIs' homes followed (AddAgent): kind, home
	found     map[string]found  // by session: its main transcripts, once found

	// OnMain, when not nil, is called by Update with each response read
	// from a session's main transcript (not its subagents'), in order,
	// whether it is counted or not (an API error Claude Code writes itself
	// costs nothing, and is not): what else follows the member's sessions
	// (the supervisor's usage limits) learns it from this one read of each
	// transcript, never from a second reader of its own.
	OnMain func(session string, r transcript.Response)
}

// meterFile is one transcript followed. Its responses' keys are in owner
// alone (a few bytes each: a supervisor follows a gigabyte of transcripts
// in a few megabytes); a file read again from the start takes its own out.
type meterFile struct {
	f       *transcript.Follower
	index   uint32
	totals  Totals
	session string // the session whose transcript it is
	main    bool   // the session's own (Files.Main), not a subagent's
}

// NewMeter returns a Meter of the sessions (Claude Code session ids) under
// Claude Code's folder claudeDir, pricing with prices (nil: the shipped
// table) and counting responses from since on (zero: all).
func NewMeter(claudeDir string, sessions []string, prices *Table, since time.Time) (*Meter, error) {
	if prices == nil {
		prices = Shipped()
	}
	m := &Meter{claudeDir: claudeDir, prices: prices, since: since, files: map[string]*meterFile{}, owner: map[uint64]uint32{}}
	for _, s := range sessions {
		if err := m.AddSession(s); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// AddSession adds a session to follow (one already followed is no error).
func (m *Meter) AddSession(id string) error {
	if !claudecode.ValidSessionID(id) {
		return fmt.Errorf("usage of session %q: %w", id, transcript.ErrInvalidSession)
	}
	for _, s := range m.sessions {
		if s == id {
			return nil
		}
	}
	m.sessions = append(m.sessions, id)
	return nil
}

// Sessions are the sessions followed.
func (m *Meter) Sessions() []string { return append([]string(nil), m.sessions...) }

// Files are the transcripts followed so far.
func (m *Meter) Files() []string { return append([]string(nil), m.order...) }

// Update reads what the member's transcripts gained and returns its totals
// and what was wrong on the way ("FILE: line N: …": malformed lines, lines
// over the cap, capped counts, files refused or gone), for the caller to say.
func (m *Meter) Update() (Totals, []string) {
	var notes []string
	for _, s := range m.sessions {
		files, err := m.find(s)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		for i, p := range files.All() {
			if _, ok := m.files[p]; !ok {
				m.add(p, s, i < len(files.Main))
			}
		}
	}
	for _, a := range m.agents {
		for _, p := range agentFiles(a[0], a[1]) {
			if _, ok := m.files[p]; !ok {
				m.add(p, "", false)
				m.files[p].f.Lines = agentLines(a[0])
			}
		}
	}
	for _, p := range m.order {
		mf := m.files[p]
		st, err := mf.f.Read(func(r transcript.Response) {
			m.count(p, mf, r)
			if mf.main && m.OnMain != nil {
				m.OnMain(mf.session, r)
			}
		})
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Gone (removed by hand, or a folder moved): what it held was
			// spent all the same, so its counts stay.
		case err != nil:
			notes = append(notes, err.Error())
		}
		for _, pr := range st.Problems {
			notes = append(notes, p+": "+pr)
		}
	}
	return m.Totals(), notes
}

// found is where a session's main transcripts were found, and when.
type found struct {
	main []string
	at   time.Time
}

// findEvery is how often a session whose main transcript was found is
// looked for again in every project folder (transcript.Find): a session's
// transcript stays in the folder of the project it began in, while a
// user's projects folder has a folder for every folder Claude Code was ever
// run in, each looked into for each session. Between two such looks only
// its subagents' folder is read.
const findEvery = time.Minute

// find returns session id's transcripts, every project folder looked into
// when its main transcript was not found yet or findEvery ago.
func (m *Meter) find(id string) (transcript.Files, error) {
	now := time.Now()
	if f, ok := m.found[id]; ok && now.Sub(f.at) < findEvery {
		subs, err := transcript.Subagents(f.main, id)
		return transcript.Files{Main: f.main, Subagents: subs}, err
	}
	files, err := transcript.Find(m.claudeDir, id)
	if err == nil && len(files.Main) > 0 {
		if m.found == nil {
			m.found = map[string]found{}
		}
		m.found[id] = found{main: files.Main, at: now}
	}
	return files, err
}

// UpdateAll is Update of each of meters, jobs at a time (at least one):
// a team's members' transcripts read at once on a first read.
func UpdateAll(meters []*Meter, jobs int) ([]Totals, [][]string) {
	totals, notes := make([]Totals, len(meters)), make([][]string, len(meters))
	parallel.Each(len(meters), jobs, func(i int) { totals[i], notes[i] = meters[i].Update() })
	return totals, notes
}

// Totals are the running totals as of the last Update.
func (m *Meter) Totals() Totals {
	var t Totals
	for _, p := range m.order {
		t.Add(m.files[p].totals)
	}
	if t.ByModel == nil {
		t.ByModel = map[string]Model{}
	}
	return t
}

func (m *Meter) add(p, session string, main bool) {
	mf := &meterFile{f: transcript.NewFollower(p), index: uint32(len(m.order)), session: session, main: main}
	mf.f.OnRestart = func() {
		for k, i := range m.owner { // rare: a file replaced or truncated
			if i == mf.index {
				delete(m.owner, k)
			}
		}
		mf.totals = Totals{}
	}
	m.files[p] = mf
	m.order = append(m.order, p)
}

func (m *Meter) count(p string, mf *meterFile, r transcript.Response) {
	if !wanted(r, m.since) {
		return
	}
	if k, ok := keyOf(r); ok {
		if _, dup := m.owner[k]; dup {
			return
		}
		m.owner[k] = mf.index
	}
	mf.totals.count(r, m.prices)
}

// Package relay carries a Claude Code team's files between the lead's host
// (the hub, where the team's supervisor runs) and one other host where
// members run (a spoke), so that a teammate there reads and writes its
// team's files on its own host as if the team were all there: the team's
// config (the hub's is the team's), its tasks (the newest change of a file
// wins, either side), and messages, each moved to the host where the
// mailbox's owner reads it (a teammate there, or the lead here), under
// Claude Code's locks on both sides (claudecode.AppendNew, RemoveMessages):
// a message is taken out of the copy it was written into only once the
// owner's host acknowledged it, so a dropped connection loses none (one
// may arrive twice; AppendNew takes it once). Hook events of the spoke's
// members (`teamctl hook` there) come to the hub.
//
// Both sides run the same loop over a pair of byte streams (ssh's stdio:
// `teamctl relay` on the spoke), in frames: a 4-byte big-endian length and
// a JSON object. They look at their files every Poll (a handful of small
// files: cheaper than a watcher per folder on both hosts, and as prompt as
// Claude Code, which polls its inbox about once a second).
package relay

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// Options say which side this is and what it carries.
type Options struct {
	ConfigDir  string // Claude Code's folder on this host
	ClaudeTeam string // the Claude Code team (session-XXXXXXXX)
	Hub        bool
	// Owned (hub) are the members that run on the spoke: their mailboxes
	// are read there. The spoke learns them from the hub's hello.
	Owned []string
	// Team (spoke) is teamctl's team, whose event log on the spoke holds its
	// members' hook events.
	Team string
	// Event (hub) takes a hook event of one of the spoke's members.
	Event func(state.Event)
	Poll  time.Duration // how often files are looked at (default 250 ms)
	// Once (hub): end after one exchange, the spoke having taken what was
	// sent (up's push before a teammate there starts).
	Once bool
	// Log, when set, is told what the relay could not do (a mailbox
	// locked too long, a file refused); the relay goes on.
	Log func(msg string, err error)
}

// frame is one message of the protocol.
type frame struct {
	Kind string `json:"kind"`
	// hello (hub → spoke)
	Owned      []string `json:"owned,omitempty"`
	ClaudeTeam string   `json:"claude_team,omitempty"`
	// move, ack
	ID       uint64               `json:"id,omitempty"`
	Inbox    string               `json:"inbox,omitempty"`
	Messages []claudecode.Message `json:"messages,omitempty"`
	// config, task
	Name string `json:"name,omitempty"`
	Data []byte `json:"data,omitempty"`
	// event (spoke → hub)
	Event *state.Event `json:"event,omitempty"`
}

// Frame kinds.
const (
	kindHello   = "hello"
	kindConfig  = "config"
	kindTask    = "task"
	kindMove    = "move"
	kindAck     = "ack"
	kindEvent   = "event"
	kindFlush   = "flush"   // hub, Once: say when all before it is taken
	kindFlushed = "flushed" // spoke: all before the flush is taken
)

// maxFrame bounds a frame: a whole mailbox's messages or a config.
const maxFrame = 16 << 20

func writeFrame(w io.Writer, f frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func readFrame(r *bufio.Reader) (frame, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return frame{}, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame {
		return frame{}, fmt.Errorf("relay: a frame of %d bytes (at most %d)", size, maxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return frame{}, fmt.Errorf("relay: a frame that is not JSON: %w", err)
	}
	return f, nil
}

type side struct {
	o     Options
	w     *bufio.Writer
	owned map[string]bool
	// known are the task files' and config's contents (by hash) last sent
	// or taken, so a file written from the other side is not sent back.
	known  map[string][32]byte
	nextID uint64
	// inflight are the moves not yet acknowledged: their mailbox and keys.
	inflight map[uint64]move
	sending  map[string]bool // keys of messages in flight
	events   *state.EventTail
	ready    bool // the spoke has taken the hub's first look (its flush)
	// config (spoke) is a team config not written yet (its lock held too
	// long): tried again at every look.
	config []byte
}

type move struct {
	inbox string
	keys  map[string]bool
}

// Run relays until ctx ends or the other side goes (its stream's end:
// nil; anything else: the error).
func Run(ctx context.Context, r io.Reader, w io.Writer, o Options) error {
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = func(string, error) {}
	}
	s := &side{o: o, w: bufio.NewWriter(w), owned: map[string]bool{}, known: map[string][32]byte{},
		inflight: map[uint64]move{}, sending: map[string]bool{}}
	for _, m := range o.Owned {
		s.owned[m] = true
	}
	frames := make(chan frame, 64)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			f, err := readFrame(br)
			if err != nil {
				readErr <- err
				close(frames)
				return
			}
			select {
			case frames <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	if o.Hub {
		s.ready = true
		if err := s.send(frame{Kind: kindHello, Owned: o.Owned, ClaudeTeam: o.ClaudeTeam}); err != nil {
			return err
		}
		if err := s.scan(ctx); err != nil {
			return err
		}
		// The spoke looks at its own files only once it has taken all of
		// these: its copies, stale after a dropped connection, never
		// overwrite what the hub has.
		if err := s.send(frame{Kind: kindFlush}); err != nil {
			return err
		}
	}
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case f, ok := <-frames:
			if !ok {
				err := <-readErr
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			done, err := s.take(ctx, f)
			if err != nil || done {
				return err
			}
		case <-tick.C:
			if s.ready {
				if err := s.scan(ctx); err != nil {
					return err
				}
			}
		}
	}
}

func (s *side) send(f frame) error {
	if err := writeFrame(s.w, f); err != nil {
		return err
	}
	return s.w.Flush()
}

// outbox reports whether this side's copy of member's mailbox is only a
// way to the other side: the hub's copies of the spoke's members', the
// spoke's copies of everyone else's.
func (s *side) outbox(member string) bool {
	if s.o.Hub {
		return s.owned[member]
	}
	return !s.owned[member]
}

// scan sends what changed on this side since the last look.
func (s *side) scan(ctx context.Context) error {
	if s.o.Hub {
		if p, err := claudecode.TeamConfigPath(s.o.ConfigDir, s.o.ClaudeTeam); err == nil {
			if b, err := claudecode.ReadTeamConfigBytes(p); err == nil && s.changed("config", b) {
				if err := s.send(frame{Kind: kindConfig, Data: b}); err != nil {
					return err
				}
			}
		}
	}
	tasks, err := claudecode.TaskFileBytes(s.o.ConfigDir, s.o.ClaudeTeam)
	if err != nil {
		s.o.Log("read tasks", err)
	}
	for _, name := range slices.Sorted(maps.Keys(tasks)) {
		if s.changed("task/"+name, tasks[name]) {
			if err := s.send(frame{Kind: kindTask, Name: name, Data: tasks[name]}); err != nil {
				return err
			}
		}
	}
	names, err := claudecode.InboxNames(s.o.ConfigDir, s.o.ClaudeTeam)
	if err != nil {
		s.o.Log("list mailboxes", err)
	}
	for _, name := range names {
		if !s.outbox(name) {
			continue
		}
		if err := s.moveOut(name); err != nil {
			return err
		}
	}
	if !s.o.Hub {
		s.writeConfig(ctx)
		return s.sendEvents()
	}
	return nil
}

// writeConfig writes the team config the hub sent, if one waits.
func (s *side) writeConfig(ctx context.Context) {
	if s.config == nil {
		return
	}
	if !json.Valid(s.config) {
		// Read on the hub while Claude Code wrote it: its next change
		// brings the whole.
		s.config = nil
		return
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := claudecode.WriteTeamConfigCopy(wctx, s.o.ConfigDir, s.o.ClaudeTeam, s.config)
	cancel()
	if err != nil {
		s.o.Log("write the team config (again at the next look)", err)
		return
	}
	s.config = nil
}

// changed reports whether b is not what key last held on either side, and
// remembers it.
func (s *side) changed(key string, b []byte) bool {
	h := sha256.Sum256(b)
	if s.known[key] == h {
		return false
	}
	s.known[key] = h
	return true
}

// moveOut sends the messages of the copy of member's mailbox that are not
// on their way already.
func (s *side) moveOut(member string) error {
	path, err := claudecode.InboxPath(s.o.ConfigDir, s.o.ClaudeTeam, member)
	if err != nil {
		return nil
	}
	msgs, err := claudecode.ReadMailbox(path)
	if err != nil {
		s.o.Log("read mailbox "+member, err)
		return nil
	}
	var out []claudecode.Message
	keys := map[string]bool{}
	for _, m := range msgs {
		k := claudecode.MessageKey(m)
		if !s.sending[k] && !keys[k] {
			out = append(out, m)
			keys[k] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	s.nextID++
	s.inflight[s.nextID] = move{inbox: member, keys: keys}
	for k := range keys {
		s.sending[k] = true
	}
	return s.send(frame{Kind: kindMove, ID: s.nextID, Inbox: member, Messages: out})
}

// sendEvents sends the hook events of the spoke's team log written since
// the last look.
func (s *side) sendEvents() error {
	if s.events == nil {
		t, err := state.TailEvents(s.o.Team, 0)
		if err != nil {
			s.o.Log("read events", err)
			return nil
		}
		s.events = t
	}
	var evs []state.Event
	if err := s.events.Read(func(e state.Event) {
		if e.Kind == state.EventHook {
			evs = append(evs, e)
		}
	}); err != nil {
		s.o.Log("read events", err)
	}
	for i := range evs {
		if err := s.send(frame{Kind: kindEvent, Event: &evs[i]}); err != nil {
			return err
		}
	}
	return nil
}

// take acts on a frame of the other side; done once a Once exchange is over.
func (s *side) take(ctx context.Context, f frame) (done bool, err error) {
	switch f.Kind {
	case kindHello:
		if s.o.Hub {
			return false, errors.New("relay: a hello from the spoke")
		}
		if !claudecode.ValidName(f.ClaudeTeam) || (s.o.ClaudeTeam != "" && f.ClaudeTeam != s.o.ClaudeTeam) {
			return false, fmt.Errorf("relay: the hub's team %q is not %q", f.ClaudeTeam, s.o.ClaudeTeam)
		}
		s.o.ClaudeTeam = f.ClaudeTeam
		s.owned = map[string]bool{}
		for _, m := range f.Owned {
			if claudecode.ValidMemberName(m) {
				s.owned[m] = true
			}
		}
	case kindConfig:
		if s.o.Hub {
			return false, errors.New("relay: a team config from the spoke (the lead's host has the team's)")
		}
		if s.changed("config", f.Data) {
			s.config = f.Data
			s.writeConfig(ctx)
		}
	case kindTask:
		if s.changed("task/"+f.Name, f.Data) {
			if err := claudecode.WriteTaskCopy(s.o.ConfigDir, s.o.ClaudeTeam, f.Name, f.Data); err != nil {
				s.o.Log("write task "+f.Name, err)
			}
		}
	case kindMove:
		// A mailbox this side's members read (the spoke's), or any but the
		// spoke's (the hub's, on its way to its owner): never one back.
		if !claudecode.ValidMemberName(f.Inbox) || s.outbox(f.Inbox) {
			return false, fmt.Errorf("relay: messages for %q refused: its mailbox is not read on this side", f.Inbox)
		}
		path, err := claudecode.InboxPath(s.o.ConfigDir, s.o.ClaudeTeam, f.Inbox)
		if err != nil {
			return false, err
		}
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = claudecode.AppendNew(actx, path, f.Messages)
		cancel()
		if err != nil {
			s.o.Log("deliver to "+f.Inbox, err)
			return false, nil // not acknowledged: sent again on the next connection
		}
		return false, s.send(frame{Kind: kindAck, ID: f.ID})
	case kindAck:
		mv, ok := s.inflight[f.ID]
		if !ok {
			return false, nil
		}
		delete(s.inflight, f.ID)
		path, err := claudecode.InboxPath(s.o.ConfigDir, s.o.ClaudeTeam, mv.inbox)
		if err == nil {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = claudecode.RemoveMessages(rctx, path, mv.keys)
			cancel()
		}
		if err != nil {
			s.o.Log("take delivered messages out of "+mv.inbox, err)
		}
		for k := range mv.keys {
			delete(s.sending, k)
		}
	case kindEvent:
		if !s.o.Hub || f.Event == nil {
			return false, errors.New("relay: an event from the hub")
		}
		if e := *f.Event; e.Kind == state.EventHook && s.owned[e.Member] && s.o.Event != nil {
			s.o.Event(e)
		}
	case kindFlush:
		s.ready = true
		return false, s.send(frame{Kind: kindFlushed})
	case kindFlushed:
		return s.o.Once && len(s.inflight) == 0, nil
	default:
		return false, fmt.Errorf("relay: a frame of kind %q", f.Kind)
	}
	return false, nil
}

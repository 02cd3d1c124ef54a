package supervisor

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// TestConfigAsRead: the team's config.json, as it is read one time after
// another, and exactly what the daemon decides: a placeholder written only
// when the config is gone while a layout teammate runs; a config it would
// not read reported once; members joining and leaving reported (the first
// read only learns who is there); a config being written left alone.
func TestConfigAsRead(t *testing.T) {
	type read func(w *world) configRead
	gone := func(w *world) configRead {
		path := w.s.files.Paths().Config
		return configRead{path: path, err: &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}}
	}
	large := func(w *world) configRead {
		path := w.s.files.Paths().Config
		return configRead{path: path, err: &claudecode.TooLargeError{What: "team config", Path: path, Size: 300 << 20, Limit: 4 << 20}}
	}
	link := func(w *world) configRead {
		path := w.s.files.Paths().Config
		return configRead{path: path, err: &claudecode.LinkError{Path: filepath.Dir(path)}}
	}
	partial := func(w *world) configRead {
		return configRead{path: w.s.files.Paths().Config, err: errors.New("unexpected end of JSON input")}
	}
	members := func(names ...string) read {
		return func(w *world) configRead {
			st := w.s.st
			cfg := claudecode.MinimalTeamConfig(st.ClaudeTeam, st.LeadSessionID, "/", os.Getpid(), w.clock.Now())
			for _, name := range names {
				cfg.Members = append(cfg.Members, claudecode.TeamMember{AgentID: name + "@" + st.ClaudeTeam, Name: name, BackendType: "tmux"})
			}
			return configRead{path: w.s.files.Paths().Config, cfg: &cfg}
		}
	}
	for _, c := range []struct {
		name        string
		mateEnded   bool
		reads       []read
		want        []wantEvent
		placeholder bool
	}{
		{name: "gone while a teammate runs", reads: []read{gone, gone}, placeholder: true, want: []wantEvent{
			{state.EventConfig, "", "the team's config.json was gone while teammates run; wrote a placeholder"},
		}},
		{name: "gone, the teammates ended", mateEnded: true, reads: []read{gone}},
		{name: "too large", reads: []read{large, large}, want: []wantEvent{
			{state.EventFileRefused, "", "team config"},
		}},
		{name: "a link", reads: []read{link, link, members(), link}, want: []wantEvent{
			{state.EventFileRefused, "", "is a symlink"},
			{state.EventFileRefused, "", "is a symlink"},
		}},
		{name: "being written", reads: []read{partial}},
		{name: "members joining and leaving", reads: []read{members("mate"), members("mate", "scout"), members("mate", "scout"), members("scout")}, want: []wantEvent{
			{state.EventMember, "scout", "joined the team's config.json"},
			{state.EventMember, "mate", "left the team's config.json"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
			if c.mateEnded {
				w.exit("mate", "0", "")
			}
			// The placeholder the first look wrote, gone: the decisions below
			// are the reads' alone.
			if err := os.Remove(w.s.files.Paths().Config); err != nil {
				t.Fatal(err)
			}
			got := w.written(func() {
				for _, r := range c.reads {
					w.s.checkConfig(w.ctx, r(w))
				}
			})
			checkEvents(t, got, c.want)
			cfg, err := claudecode.ReadTeamConfig(w.s.files.Paths().Config)
			switch {
			case c.placeholder && (err != nil || !cfg.IsPlaceholder()):
				t.Errorf("no placeholder: %+v %v", cfg, err)
			case !c.placeholder && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a config written: %+v %v", cfg, err)
			}
		})
	}
}

// TestPromptsGivenAgainAsRead: up left mate's prompt in a placeholder
// config's mailbox; the config as read, and exactly what the daemon
// decides: nothing before a lead took the placeholder over; once one did, the
// prompt given again only when inboxes/ was emptied and mate has no stored
// conversation (one it has took its prompt), and the record kept, looked at
// again, until promptWatch is over.
func TestPromptsGivenAgainAsRead(t *testing.T) {
	const prompt = "Do PROMPT-X."
	for _, c := range []struct {
		name      string
		takenOver bool // the config read is the lead's own
		emptied   bool // inboxes/ is gone
		stored    bool // mate has a stored conversation
		given     bool // the prompt is given again
		kept      bool // the record stays, looked at again
	}{
		{name: "not taken over", emptied: true, kept: true},
		{name: "taken over, inboxes/ emptied", takenOver: true, emptied: true, given: true},
		{name: "taken over, the mailbox there", takenOver: true, kept: true},
		{name: "taken over, a stored conversation", takenOver: true, emptied: true, stored: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
			for i := range w.s.lay.Members {
				if w.s.lay.Members[i].Name == "mate" {
					w.s.lay.Members[i].Prompt = prompt
				}
			}
			st := w.s.st
			if _, err := claudecode.EnsureTeamConfig(st.ClaudeConfig, st.ClaudeTeam, st.ClaudeLeadSession(), "/", w.clock.Now()); err != nil {
				t.Fatal(err)
			}
			if err := claudecode.DeliverPrompt(w.ctx, st.ClaudeConfig, st.ClaudeTeam, "mate", prompt); err != nil {
				t.Fatal(err)
			}
			st.PromptsInPlaceholder = []string{"mate"}
			if err := state.Save(st); err != nil {
				t.Fatal(err)
			}
			m, _ := st.Member("mate")
			if c.stored {
				conv := filepath.Join(st.ClaudeConfig, "projects", "-work", m.SessionID+".jsonl")
				os.MkdirAll(filepath.Dir(conv), 0o700)
				if err := os.WriteFile(conv, []byte("{}\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := w.s.files.Paths()
			if c.emptied {
				if err := os.RemoveAll(p.Inboxes); err != nil {
					t.Fatal(err)
				}
			}
			cfg := claudecode.PlaceholderTeamConfig(st.ClaudeTeam, st.LeadSessionID, "/", w.clock.Now())
			if c.takenOver {
				cfg = claudecode.MinimalTeamConfig(st.ClaudeTeam, st.LeadSessionID, "/", os.Getpid(), w.clock.Now())
			}
			b, _ := json.Marshal(cfg)
			if err := os.WriteFile(p.Config, b, 0o600); err != nil {
				t.Fatal(err)
			}
			w.s.files.Take(false)

			got := w.written(func() { w.s.checkPromptsInPlaceholder(w.ctx, readConfig(p.Config)) })
			var want []wantEvent
			if c.given {
				want = append(want, wantEvent{state.EventConfig, "mate", "emptied its mailboxes before mate read its prompt; gave it again"})
			}
			checkEvents(t, got, want)
			msgs, _ := claudecode.ReadMailbox(mustInbox(t, w, "mate"))
			if n := len(msgs); (n == 1 && msgs[0].Text == prompt) != (c.given || !c.emptied) || n > 1 {
				t.Errorf("mate's mailbox: %+v", msgs)
			}
			saved, _ := state.Load("decide")
			if kept := slices.Equal(saved.PromptsInPlaceholder, []string{"mate"}); kept != c.kept {
				t.Errorf("the record kept: %v (%v)", kept, saved.PromptsInPlaceholder)
			}
			w.advance(promptLook)
			if looked := w.s.files.Take(false)[filewatch.Config]; looked != (c.kept && c.takenOver) {
				t.Errorf("looked at again: %v", looked)
			}
			if !c.kept || !c.takenOver {
				return
			}
			// Once promptWatch is over, the record goes.
			w.advance(promptWatch)
			w.s.checkPromptsInPlaceholder(w.ctx, readConfig(p.Config))
			if saved, _ := state.Load("decide"); len(saved.PromptsInPlaceholder) != 0 {
				t.Errorf("still waiting to give prompts again: %v", saved.PromptsInPlaceholder)
			}
		})
	}
}

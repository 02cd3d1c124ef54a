package team

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/relaunch"
)

// TestInbox: whose mailbox Inbox reads — the lead's is the one teammates
// write to (team-lead), a teammate's its own — an empty one is an empty
// list (JSON [], not null), and a plain process or a name not a member's is
// refused. The team may be up or down; tmux is not asked.
func TestInbox(t *testing.T) {
	for _, c := range []struct {
		name   string
		member string
		down   bool
		want   []string // the texts, in order
		err    string
	}{
		{name: "the lead's: what the teammates wrote to team-lead", member: "lead", want: []string{"from worker", "done"}},
		{name: "a teammate's own: its prompt and what it was sent", member: "worker", want: []string{"look around", "and the tests"}},
		{name: "the team down: read all the same", member: "worker", down: true, want: []string{"look around", "and the tests"}},
		{name: "a plain process has none", member: "sh",
			err: "sh is a plain process, not Claude Code: it has no mailbox (`teamctl attach sh` shows its screen)"},
		{name: "no such member", member: "nobody", err: `team alpha has no member "nobody"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			st := f.up(f.layout("team.yaml", alpha))
			dir := relaunch.ClaudeConfigDir(st)
			lead, err := claudecode.InboxPath(dir, st.ClaudeTeam, claudecode.LeadMailboxName)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{"from worker", "done"} {
				if err := claudecode.AppendMessage(f.ctx, lead, claudecode.Message{From: "worker", Text: text}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.open("alpha").Send(f.ctx, "worker", "and the tests"); err != nil {
				t.Fatal(err)
			}
			if c.down {
				f.stop()
			}
			f.log = nil
			msgs, err := f.open("alpha").Inbox(c.member)
			f.wantLog()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("inbox: %v, want an error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, m.Text)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s's inbox %q, want %q", c.member, got, c.want)
			}
		})
	}
}

// TestInboxEmptyIsAList: a mailbox nobody wrote to is an empty list, so
// `inbox --json` prints [] rather than null.
func TestInboxEmptyIsAList(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	msgs, err := f.open("alpha").Inbox("lead")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(msgs); string(b) != "[]" {
		t.Errorf("an empty mailbox is %s, want []", b)
	}
}

// TestTasks: the tasks are the team's own Claude Code team's (those of
// another Claude Code team in the same folder are not), by id, with a task
// file that is a symlink left unread and named.
func TestTasks(t *testing.T) {
	f := newFakeWorld(t)
	st := f.up(f.layout("team.yaml", alpha))
	dir := relaunch.ClaudeConfigDir(st)
	write := func(team, file, body string) string {
		t.Helper()
		folder := filepath.Join(dir, "tasks", team)
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(folder, file)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	task := func(id, subject, status, owner string) string {
		b, _ := json.Marshal(map[string]string{"id": id, "subject": subject, "status": status, "owner": owner})
		return string(b)
	}
	write(st.ClaudeTeam, "2.json", task("2", "Write the tests", "pending", ""))
	write(st.ClaudeTeam, "1.json", task("1", "Fix the login bug", "completed", "worker"))
	elsewhere := write("session-other", "1.json", task("1", "Another team's task", "pending", "x"))
	link := filepath.Join(dir, "tasks", st.ClaudeTeam, "3.json")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	tasks, skipped, err := f.open("alpha").Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range tasks {
		got = append(got, x.ID+" "+x.Status+" "+x.Owner+" "+x.Subject)
	}
	want := []string{"1 completed worker Fix the login bug", "2 pending  Write the tests"}
	if !slices.Equal(got, want) {
		t.Errorf("tasks %q, want %q", got, want)
	}
	if len(skipped) != 1 || skipped[0].Path != link || !strings.Contains(skipped[0].Err.Error(), "symlink") {
		t.Errorf("skipped %+v, want the link %s", skipped, link)
	}
	f.wantLog()
}

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdHook: the hook's caller is its environment (TEAMCTL_TEAM,
// TEAMCTL_MEMBER, TMUX_PANE), whatever arguments it is given; it waits 30s
// for its JSON, and nothing is done but the run function.
func TestNewCmdHook(t *testing.T) {
	t.Setenv("TEAMCTL_TEAM", "auth-fix")
	t.Setenv("TEAMCTL_MEMBER", "lead")
	t.Setenv("TMUX_PANE", "%3")
	var got *hookOptions
	cmd := newHookCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), func(_ context.Context, o *hookOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"whatever", "Claude", "Code", "passes"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Caller != (team.HookCaller{Team: "auth-fix", Member: "lead", Pane: "%3"}) || got.Wait != 30*time.Second || got.Record == nil {
		t.Fatalf("options %+v", got)
	}
}

// readCounter is a standard input that says whether it was read.
type readCounter struct {
	r     io.Reader
	reads atomic.Int32
}

func (c *readCounter) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(p)
}

// TestHookRun: a hook's JSON on stdin is recorded for its caller; a caller
// that is not a member's pane is not even read, JSON that names no event is
// not recorded, nor is JSON that does not come within the wait; nothing is
// ever printed or an error, not even the record's.
func TestHookRun(t *testing.T) {
	caller := team.HookCaller{Team: "auth-fix", Member: "lead", Pane: "%3"}
	never, stdin := io.Pipe() // a caller that never closes stdin (until the test ends)
	defer stdin.Close()
	for _, c := range []struct {
		name      string
		caller    team.HookCaller
		in        io.Reader
		recordErr error
		want      []claudecode.Hook
		read      bool
	}{
		{name: "stop", caller: caller, in: strings.NewReader(`{"hook_event_name":"Stop","session_id":"abc"}`),
			want: []claudecode.Hook{{Event: "Stop"}}, read: true},
		{name: "notification", caller: caller, in: strings.NewReader(`{"hook_event_name":"Notification","notification_type":"idle_prompt","message":"waiting"}`),
			want: []claudecode.Hook{{Event: "Notification", Type: "idle_prompt", Message: "waiting"}}, read: true},
		{name: "not recorded", caller: caller, in: strings.NewReader(`{"hook_event_name":"Stop"}`), recordErr: errors.New("no such team"),
			want: []claudecode.Hook{{Event: "Stop"}}, read: true},
		{name: "no event", caller: caller, in: strings.NewReader(`{"session_id":"abc"}`), read: true},
		{name: "not JSON", caller: caller, in: strings.NewReader(`Stop`), read: true},
		{name: "never closed", caller: caller, in: never, read: true},
		{name: "outside a pane", caller: team.HookCaller{Team: "auth-fix", Member: "lead"}, in: strings.NewReader(`{"hook_event_name":"Stop"}`)},
		{name: "no member", caller: team.HookCaller{Team: "auth-fix", Pane: "%3"}, in: strings.NewReader(`{"hook_event_name":"Stop"}`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			in := &readCounter{r: c.in}
			var recorded []claudecode.Hook
			err := hookRun(context.Background(), &hookOptions{
				IO:     iostreams.Test(in, &out, &errOut),
				Caller: c.caller,
				Wait:   50 * time.Millisecond,
				Record: func(hc team.HookCaller, h claudecode.Hook) error {
					if hc != caller {
						t.Errorf("recorded for %+v", hc)
					}
					recorded = append(recorded, h)
					return c.recordErr
				},
			})
			if err != nil || out.Len() > 0 || errOut.Len() > 0 {
				t.Errorf("error %v, printed %q and %q", err, out.String(), errOut.String())
			}
			if len(recorded) != len(c.want) || len(c.want) == 1 && recorded[0] != c.want[0] {
				t.Errorf("recorded %+v, want %+v", recorded, c.want)
			}
			// A stdin never closed may not have been reached yet when the
			// wait is over.
			if n := in.reads.Load(); (n > 0) != c.read && c.in != never {
				t.Errorf("stdin read %d times", n)
			}
		})
	}
}

// TestHookFromCodex: Codex's notify (`teamctl hook --from codex JSON`, the
// turn's JSON its last argument, nothing on stdin) is the member's Stop with
// its last answer; another notification, or none, records nothing.
func TestHookFromCodex(t *testing.T) {
	caller := team.HookCaller{Team: "mixed", Member: "rev", Pane: "%4"}
	turn := `{"type":"agent-turn-complete","thread-id":"t","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"all done"}`
	for _, c := range []struct {
		args []string
		want []claudecode.Hook
	}{
		{[]string{"--from", "codex", turn}, []claudecode.Hook{{Event: "Stop", Message: "all done"}}},
		{[]string{"--from", "codex", `{"type":"approval-requested"}`}, nil},
		{[]string{"--from", "codex"}, nil},
	} {
		var got []claudecode.Hook
		cmd := newHookCmd(iostreams.Test(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer)), func(ctx context.Context, o *hookOptions) error {
			o.Caller = caller
			o.Record = func(_ team.HookCaller, h claudecode.Hook) error { got = append(got, h); return nil }
			return hookRun(ctx, o)
		})
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) || len(got) == 1 && got[0] != c.want[0] {
			t.Errorf("%q: recorded %+v, want %+v", c.args, got, c.want)
		}
	}
}

// TestHookFromGemini: Gemini CLI's AfterAgent hook (`teamctl hook --from
// gemini`, its JSON on stdin) is the member's Stop with the model's answer;
// another event records nothing.
func TestHookFromGemini(t *testing.T) {
	caller := team.HookCaller{Team: "mixed", Member: "gem", Pane: "%5"}
	for _, c := range []struct {
		in   string
		want []claudecode.Hook
	}{
		{`{"hook_event_name":"AfterAgent","prompt":"hi","prompt_response":"all done"}`, []claudecode.Hook{{Event: "Stop", Message: "all done"}}},
		{`{"hook_event_name":"BeforeAgent","prompt":"hi"}`, []claudecode.Hook{{Event: "BeforeAgent", Message: "hi"}}},
		{`{"hook_event_name":"Notification"}`, nil},
	} {
		var got []claudecode.Hook
		cmd := newHookCmd(iostreams.Test(strings.NewReader(c.in), new(bytes.Buffer), new(bytes.Buffer)), func(ctx context.Context, o *hookOptions) error {
			o.Caller = caller
			o.Record = func(_ team.HookCaller, h claudecode.Hook) error { got = append(got, h); return nil }
			return hookRun(ctx, o)
		})
		cmd.SetArgs([]string{"--from", "gemini"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) || len(got) == 1 && got[0] != c.want[0] {
			t.Errorf("%s: recorded %+v, want %+v", c.in, got, c.want)
		}
	}
}

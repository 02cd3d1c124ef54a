package tmux

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestDecodeOutput(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`tick\015\012`:       "tick\r\n",
		`back\134slash`:      `back\slash`,
		`esc \033[31mred`:    "esc \x1b[31mred",
		`plain ❯ text`:       "plain ❯ text",
		`trailing \01`:       `trailing \01`,
		`not octal \089 end`: `not octal \089 end`,
	} {
		if got := string(DecodeOutput([]byte(in))); got != want {
			t.Errorf("DecodeOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandLineQuotes(t *testing.T) {
	t.Parallel()
	got := commandLine([]string{"send-keys", "-t", "%1", `say "hi" $HOME \ ;`, "a\nb", "~x"})
	if want := `"send-keys" "-t" "%1" "say \"hi\" \$HOME \\ ;" "a\nb" "\~x"`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestParseNotification(t *testing.T) {
	t.Parallel()
	n, ok := parseNotification([]byte(`%output %3 hi\015\012`))
	if !ok || n.Kind != "output" || n.Pane != "%3" || string(n.Data) != "hi\r\n" {
		t.Errorf("%+v", n)
	}
	n, _ = parseNotification([]byte(`%subscription-changed dead $0 @0 0 %1 : 1/7`))
	if n.Kind != "subscription-changed" || n.Name != "dead" || n.Pane != "%1" || n.Args != "1/7" {
		t.Errorf("%+v", n)
	}
	n, _ = parseNotification([]byte(`%layout-change @0 e553,200x50,0,0 e553,200x50,0,0 *`))
	if n.Kind != "layout-change" || n.Args != "@0 e553,200x50,0,0 e553,200x50,0,0 *" {
		t.Errorf("%+v", n)
	}
}

// TestControlClient drives a real tmux server on its own socket: commands and
// their replies, pane output as it happens, and a subscription that reports a
// pane's exit status.
func TestControlClient(t *testing.T) {
	t.Parallel()
	s := testServer(t, "ctltest")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "w", "-x", "80", "-y", "24", "/bin/sh", "-c", "read line; echo got:$line; read more; exit 7")
	b.Add("set-option", "-g", "remain-on-exit", "on")
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	c, err := s.Control(ctx, "=w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lines, err := c.Command(ctx, "list-panes", "-a", "-F", "#{pane_id} $HOME")
	if err != nil || len(lines) != 1 || lines[0] != "%0 $HOME" {
		t.Fatalf("list-panes: %q %v", lines, err)
	}
	if _, err := c.Command(ctx, "refresh-client", "-B", "dead:%*:#{pane_dead}/#{pane_dead_status}"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Command(ctx, "no-such-command"); err == nil {
		t.Error("an unknown command did not fail")
	}
	if _, err := s.Run(ctx, "send-keys", "-t", "%0", "-l", "hello"); err != nil {
		t.Fatal(err)
	}
	s.Run(ctx, "send-keys", "-t", "%0", "Enter")
	var output strings.Builder
	sawExit, sentMore := false, false
	for !sawExit || !strings.Contains(output.String(), "got:hello") {
		select {
		case n := <-c.Notes():
			switch {
			case n.Kind == "output" && n.Pane == "%0":
				output.Write(n.Data)
				if !sentMore && strings.Contains(output.String(), "got:hello") {
					sentMore = true
					s.Run(ctx, "send-keys", "-t", "%0", "Enter") // now let it exit
				}
			case n.Kind == "subscription-changed" && n.Name == "dead" && n.Pane == "%0" && strings.HasPrefix(n.Args, "1/"):
				// "1/7", or "1/" when tmux reported the death before it had the
				// status (it then may not report again; the status is checked below).
				sawExit = true
			}
		case <-ctx.Done():
			t.Fatalf("output %q, exit seen %v", output.String(), sawExit)
		}
	}
	// tmux may never learn the status of a pane it already reported dead (see
	// supervisor.deadChanged); when it does, it must be the program's.
	deadline := time.Now().Add(3 * time.Second)
	for status := ""; status != "7" && time.Now().Before(deadline); {
		lines, err := c.Command(ctx, "display-message", "-p", "-t", "%0", "#{pane_dead_status}")
		if err != nil {
			t.Fatalf("exit status: %q %v", lines, err)
		}
		if len(lines) == 1 {
			status = lines[0]
		}
		if status != "" && status != "7" {
			t.Fatalf("exit status %q, want 7", status)
		}
	}
	screen, err := c.Command(ctx, "capture-pane", "-p", "-J", "-t", "%0")
	if err != nil || !strings.Contains(strings.Join(screen, "\n"), "got:hello") {
		t.Errorf("capture: %q %v", screen, err)
	}
	s.KillServer(ctx)
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("control client did not end with the server")
	}
}

// TestControlReplyHoldingGuardLines captures a screen showing lines that look
// like the guard lines of a control-mode reply: the whole screen comes back,
// and the client stays in step for the next command.
func TestControlReplyHoldingGuardLines(t *testing.T) {
	t.Parallel()
	s := testServer(t, "ctlguard")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "w", "-x", "80", "-y", "24", "/bin/sh", "-c", `printf '%%end 1 1 1\n%%error 2 2 1\nafter the guards\n'; exec sleep 300`)
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	c, err := s.Control(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for {
		lines, err := c.Command(ctx, "capture-pane", "-p", "-J", "-t", "%0")
		if err != nil {
			t.Fatalf("capture-pane: %v (%q)", err, lines)
		}
		text := strings.Join(lines, "\n")
		if strings.Contains(text, "after the guards") {
			if !strings.Contains(text, "%end 1 1 1\n%error 2 2 1\n") {
				t.Errorf("screen lost lines: %q", text)
			}
			break
		}
		if strings.Contains(text, "%end 1 1 1") {
			t.Fatalf("reply cut at a line of the screen: %q", text)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the screen never showed the text: %q", text)
		case <-time.After(20 * time.Millisecond): // poll interval while the pane starts
		}
	}
	lines, err := c.Command(ctx, "display-message", "-p", "-t", "%0", "#{pane_id}")
	if err != nil || len(lines) != 1 || lines[0] != "%0" {
		t.Errorf("next command: %q %v", lines, err)
	}
}

// TestControlReplyNotHeldByGatheringOutput: while a pane prints steadily the
// reader lets output gather for its Coalesce between reads; a command sent
// meanwhile gets its reply at once, not after the gathering.
func TestControlReplyNotHeldByGatheringOutput(t *testing.T) {
	t.Parallel()
	s := testServer(t, "ctlgather")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "w", "-x", "80", "-y", "24", "/bin/sh", "-c", "while :; do echo tick; sleep 0.01; done")
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	c, err := s.ControlWith(ctx, "=w", ControlOptions{Coalesce: 10 * time.Minute}) // far longer than the test's deadline
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 3; i++ {
		select {
		case n := <-c.Notes(): // the reader gathers after each batch of output
			if n.Kind != "output" {
				i--
			}
		case <-ctx.Done():
			t.Fatal("no output")
		}
		lines, err := c.Command(ctx, "display-message", "-p", "reply-%d")
		if err != nil || len(lines) != 1 {
			t.Fatalf("a command while output gathers: %q %v", lines, err)
		}
	}
}

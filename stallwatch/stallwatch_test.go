package stallwatch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func screenFile(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCheck(t *testing.T) {
	d := New(DefaultPatterns())
	idleBox := "\n────────\n❯ \n────────\n  ⏸ manual mode on · ? for shortcuts\n"
	for _, c := range []struct {
		name    string
		screen  string
		kind    Kind
		pattern string
		line    string
	}{
		// Claude Code 2.1.328, captured in a 120x40 pane (testdata/claude-*.txt).
		{"claude trust dialog", screenFile(t, "claude-trust.txt"), Stalled, "claude-trust", "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source"},
		{"claude api key dialog", screenFile(t, "claude-apikey.txt"), Stalled, "claude-api-key", "Do you want to use this API key?"},
		{"claude idle input box", screenFile(t, "claude-idle.txt"), Idle, "", ""},
		{"claude bash permission dialog", screenFile(t, "claude-permission.txt"), Stalled, "claude-permission", "Do you want to proceed?"},
		{"claude create-file dialog", screenFile(t, "claude-edit.txt"), Stalled, "claude-edit", "Do you want to create notes.txt?"},
		{"claude working spinner", screenFile(t, "claude-working.txt"), Busy, "", ""},
		// Claude Code 2.1.332, captured the same way (testdata/claude-2.1.332-*.txt).
		{"2.1.332 trust dialog", screenFile(t, "claude-2.1.332-trust.txt"), Stalled, "claude-trust", "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source"},
		{"2.1.332 api key dialog", screenFile(t, "claude-2.1.332-apikey.txt"), Stalled, "claude-api-key", "Do you want to use this API key?"},
		{"2.1.332 idle input box after a turn", screenFile(t, "claude-2.1.332-idle.txt"), Idle, "", ""},
		{"2.1.332 bash permission dialog", screenFile(t, "claude-2.1.332-permission.txt"), Stalled, "claude-permission", "Do you want to proceed?"},
		{"2.1.332 create-file dialog", screenFile(t, "claude-2.1.332-edit.txt"), Stalled, "claude-edit", "Do you want to create notes.txt?"},
		{"2.1.332 auto mode behind a gateway", screenFile(t, "claude-2.1.332-gateway.txt"), Stalled, "claude-auto-gateway", "Auto mode can't check actions in this session"},
		// Captured for the dialogs' options (dialog_test.go), both versions.
		{"claude bypass warning", screenFile(t, "claude-bypass.txt"), Stalled, "claude-bypass", "WARNING: Claude Code running in Bypass Permissions mode"},
		{"2.1.332 bypass warning", screenFile(t, "claude-2.1.332-bypass.txt"), Stalled, "claude-bypass", "WARNING: Claude Code running in Bypass Permissions mode"},
		{"claude mcp dialog", screenFile(t, "claude-mcp.txt"), Stalled, "claude-mcp", "New MCP server found in this project: scratch"},
		{"2.1.332 mcp dialog", screenFile(t, "claude-2.1.332-mcp.txt"), Stalled, "claude-mcp", "New MCP server found in this project: scratch"},
		{"claude plan approval", screenFile(t, "claude-plan.txt"), Stalled, "claude-plan", "Claude has written up a plan and is ready to execute. Would you like to proceed?"},
		{"2.1.332 plan approval", screenFile(t, "claude-2.1.332-plan.txt"), Stalled, "claude-plan", "Claude has written up a plan and is ready to execute. Would you like to proceed?"},
		{"claude auto mode behind a gateway", screenFile(t, "claude-gateway.txt"), Stalled, "claude-auto-gateway", "Auto mode can't check actions in this session"},
		{"claude action after the gateway dialog", screenFile(t, "claude-gateway-tooluse.txt"), Stalled, "claude-permission", "Do you want to proceed?"},
		{"2.1.332 action after the gateway dialog", screenFile(t, "claude-2.1.332-gateway-tooluse.txt"), Stalled, "claude-permission", "Do you want to proceed?"},
		{"2.1.332 permission dialog in a narrow pane", screenFile(t, "claude-2.1.332-permission-narrow.txt"), Stalled, "claude-permission", "Do you want to proceed?"},
		{"unknown dialog by its footer", " Fetch https://example.com\n Allow this fetch?\n ❯ 1. Yes\n Esc to cancel · Tab to amend", Stalled, "claude-dialog", "Esc to cancel · Tab to amend"},
		// The seed's shell prompts, on the last non-blank line.
		{"overwrite y/n", "copying...\nOverwrite? (y/n) \n\n", Stalled, "yes-no", "Overwrite? (y/n)"},
		{"continue [y/n]", "Do it\nContinue? [y/n]", Stalled, "yes-no-brackets", "Continue? [y/n]"},
		{"press enter", "done\nPress Enter to continue", Stalled, "press-key", "Press Enter to continue"},
		{"press any key lower case", "press any key", Stalled, "press-key", "press any key"},
		{"bare continue?", "Continue?", Stalled, "continue", "Continue?"},
		{"overwrite without y/n", "file exists. Overwrite?", Stalled, "overwrite", "file exists. Overwrite?"},
		{"coloured prompt", "\x1b[1;33mOverwrite? (y/n)\x1b[0m ", Stalled, "yes-no", "Overwrite? (y/n)"},
		{"redrawn line with CR", "progress 10%\rprogress 100%\rContinue? [y/n]", Stalled, "yes-no-brackets", "Continue? [y/n]"},
		{"stand-in permission dialog", " Bash command\n\n   rm -rf build/\n\n Do you want to proceed?\n ❯ 1. Yes\n   3. No\n\n Esc to cancel · Tab to amend\n", Stalled, "claude-permission", "Do you want to proceed?"},
		{"edit dialog", " Do you want to make this edit to main.go?\n ❯ 1. Yes\n", Stalled, "claude-edit", "Do you want to make this edit to main.go?"},
		{"plan approval", "Would you like to proceed?\n❯ 1. Yes", Stalled, "claude-plan", "Would you like to proceed?"},
		{"bypass warning", "WARNING: Claude Code running in Bypass Permissions mode\n ❯ 1. No, exit\n   2. Yes, I accept", Stalled, "claude-bypass", "WARNING: Claude Code running in Bypass Permissions mode"},
		{"gateway auto mode", "Auto mode can’t check actions in this session\nEnter to stay in auto mode", Stalled, "claude-auto-gateway", "Auto mode can’t check actions in this session"},
		// Near misses: must not stall.
		{"question not on the last line", "Overwrite? (y/n) y\nwriting file\n", Busy, "", ""},
		{"y/n without brackets", "answer y/n later", Busy, "", ""},
		{"continued", "Continued processing", Busy, "", ""},
		{"question quoted above the idle box", "The tool said: Do you want to proceed?" + idleBox, Idle, "", ""},
		{"old dialog far above", " Do you want to proceed?\n" + strings.Repeat("log line\n", 40) + "still working", Busy, "", ""},
		{"working footer is not idle", "────\n❯ \n────\n  ⏵⏵ auto mode on · esc to interrupt", Busy, "", ""},
		{"empty screen", "\n\n\n", Busy, "", ""},
		{"spinner", "✻ Working… (esc to interrupt)", Busy, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := d.Check(c.screen)
			if v.Kind != c.kind || v.Pattern != c.pattern || (c.line != "" && v.Line != c.line) {
				t.Errorf("got %v %q %q, want %v %q %q", v.Kind, v.Pattern, v.Line, c.kind, c.pattern, c.line)
			}
			if v.Kind == Stalled && !strings.Contains(v.Excerpt, v.Line) {
				t.Errorf("excerpt %q lacks the matched line", v.Excerpt)
			}
		})
	}
}

func TestCompile(t *testing.T) {
	if _, err := Compile("bad", "(", Screen); err == nil {
		t.Error("invalid regex accepted")
	}
	if _, err := Compile("x", "a", "everywhere"); err == nil {
		t.Error("unknown scope accepted")
	}
	p, err := Compile("deploy", `Deploy to prod\?`, "")
	if err != nil || p.Scope != LastLine {
		t.Fatalf("%+v %v", p, err)
	}
	if v := New([]Pattern{p}).Check("DEPLOY TO PROD?"); v.Kind != Stalled || v.Pattern != "deploy" {
		t.Errorf("custom pattern: %+v", v)
	}
}

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mred\x1b[0m":                 "red",
		"\x1b]0;title\x07text":               "text",
		"\x1b]8;;http://x\x1b\\link":         "link",
		"\x1b(Bplain":                        "plain",
		"a\r\nb":                             "a\nb",
		"10%\r50%\r100%":                     "100%",
		"bell\x07 and \x08backspace":         "bell and backspace",
		"\x1b[?1049h\x1b[H\x1b[2Jscreen":     "screen",
		"unterminated \x1b[":                 "unterminated ",
		"utf8 ❯ ─ ✻":                         "utf8 ❯ ─ ✻",
		"\x1bPdcs stuff\x1b\\after":          "after",
		"tab\tstays":                         "tab\tstays",
		"\x1b7saved\x1b8":                    "saved",
		"line1\nline2\roverwritten\nline3\r": "line1\noverwritten\nline3",
	} {
		if got := Strip([]byte(in)); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStreamKeepsTheTail(t *testing.T) {
	s := New(DefaultPatterns()).NewStream()
	for i := 0; i < 2000; i++ {
		s.Write([]byte("building step with a long line of output\r\n"))
	}
	if v := s.Check(); v.Kind != Busy {
		t.Fatalf("busy output: %+v", v)
	}
	s.Write([]byte("\x1b[1mContinue? [y/n] \x1b[0m"))
	if v := s.Check(); v.Kind != Stalled || v.Pattern != "yes-no-brackets" {
		t.Fatalf("prompt: %+v", v)
	}
	if len(s.tail) > streamTail {
		t.Fatalf("tail grew to %d", len(s.tail))
	}
	s.Write(make([]byte, 3*streamTail))
	if len(s.tail) != streamTail {
		t.Fatalf("tail after a huge write: %d", len(s.tail))
	}
}

func FuzzCheck(f *testing.F) {
	for _, seed := range []string{"Overwrite? (y/n)", "\x1b[31m\x1b]0;x\x07❯ \n──\n", "a\rb\r\n\x1b[", "\x9b31m"} {
		f.Add([]byte(seed))
	}
	d := New(DefaultPatterns())
	f.Fuzz(func(t *testing.T, b []byte) {
		out := Strip(b)
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("escape left in %q", out)
		}
		v := d.Check(string(b))
		if v.Kind == Stalled && v.Pattern == "" {
			t.Fatal("stalled without a pattern")
		}
		s := d.NewStream()
		s.Write(b)
		s.Check()
	})
}

func BenchmarkCheckScreen(b *testing.B) {
	d := New(DefaultPatterns())
	screen := screenFile(b, "claude-idle.txt")
	b.SetBytes(int64(len(screen)))
	for b.Loop() {
		d.Check(screen)
	}
}

func BenchmarkStripStream(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[32m✻ Working… (esc to interrupt)\x1b[0m\r\n", 100))
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		Strip(chunk)
	}
}

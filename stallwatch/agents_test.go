package stallwatch

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentDialogsOnRealScreens decides every Codex and Gemini screen
// captured from the real binaries (Codex 0.171.0, Gemini CLI 0.61.0, against
// internal/fakeapi, in a 120x40 pane: testdata/codex-*, testdata/gemini-*):
// the verdict and pattern, the question line, the options read, and the keys
// that "yes" and "no" send — each checked on the binary (docs/codex.md,
// docs/gemini.md): y ran Codex's command (and its edit) and Esc or n left
// it unrun (Esc the edit unmade); Enter
// trusted Codex's folder and Esc left it untrusted; 1 ran Gemini's command
// and Esc left it (and its file write) undone; Esc left Gemini's folder untrusted (it exits); 2
// stopped Gemini's quota dialog, which ignores Esc.
func TestAgentDialogsOnRealScreens(t *testing.T) {
	det := New(DefaultPatterns())
	for _, c := range []struct {
		file     string
		kind     Kind
		pattern  string
		line     string
		options  []string // Describe's parts; nil when no dialog
		selected int
		yes      string // "" when yes is not unambiguous
		yesKeys  []string
		no       string
		noKeys   []string
	}{
		{
			"codex-0.171.0-approval-command.txt", Stalled, "codex-approval", "Would you like to run the following command?",
			[]string{"1. Yes, proceed (y)", "2. Yes, and don't ask again for commands that start with `touch ran.txt` (p)", "3. No, and tell Codex what to do differently (esc)"}, 0,
			"1. Yes, proceed (y)", []string{"y"}, "3. No, and tell Codex what to do differently (esc)", []string{"Escape"},
		},
		{
			"codex-0.171.0-approval-edit.txt", Stalled, "codex-approval", "Would you like to make the following edits?",
			[]string{"1. Yes, proceed (y)", "2. Yes, and don't ask again for these files (a)", "3. No, and tell Codex what to do differently (esc)"}, 0,
			"1. Yes, proceed (y)", []string{"y"}, "3. No, and tell Codex what to do differently (esc)", []string{"Escape"},
		},
		{
			"codex-0.171.0-trust.txt", Stalled, "codex-trust", "Trust this folder? Codex can read, edit, and run files here, subject to your permission settings. Folder settings",
			[]string{"1. Trust and continue", "2. Back to Agent Command Center"}, 0,
			"1. Trust and continue", []string{"Enter"}, "back (Esc)", []string{"Escape"},
		},
		{
			"gemini-0.61.0-approval-shell.txt", Stalled, "gemini-approval", "Allow execution of [Shell]?",
			[]string{"1. Allow once", "2. Allow for this session", "3. No, suggest changes (esc)"}, 0,
			"1. Allow once", []string{"1"}, "3. No, suggest changes (esc)", []string{"Escape"},
		},
		// Its No is the fourth row here, the third above: Esc either way.
		{
			"gemini-0.61.0-approval-edit.txt", Stalled, "gemini-approval", "Apply this change?",
			[]string{"1. Allow once", "2. Allow for this session", "3. Modify with external editor", "4. No, suggest changes (esc)"}, 0,
			"1. Allow once", []string{"1"}, "4. No, suggest changes (esc)", []string{"Escape"},
		},
		{
			"gemini-0.61.0-trust.txt", Stalled, "gemini-trust", "Do you trust the files in this folder?",
			[]string{"1. Trust folder (proj)", "2. Trust parent folder (agents-gm)", "3. Don't trust"}, 0,
			"1. Trust folder (proj)", []string{"1"}, "exit (Esc)", []string{"Escape"},
		},
		// Not a yes/no question: no yes; no is Stop.
		{
			"gemini-0.61.0-quota.txt", Stalled, "gemini-quota", "Usage limit reached for all Pro models.",
			[]string{"1. Keep trying", "2. Stop"}, 0, "", nil, "2. Stop", []string{"2"},
		},
		{
			"gemini-0.61.0-quota-reset.txt", Stalled, "gemini-quota", "Usage limit reached for all Pro models.",
			[]string{"1. Switch to gemini-3-flash-preview", "2. Stop"}, 0, "", nil, "2. Stop", []string{"2"},
		},
		// Idle composers, after an answer, a refusal, a limit: nothing asked.
		{file: "codex-0.171.0-idle.txt", kind: Idle},
		{file: "codex-0.171.0-declined.txt", kind: Idle},
		{file: "codex-0.171.0-usage-limit.txt", kind: Idle},
		{file: "codex-0.171.0-usage-limit-days.txt", kind: Idle},
		{file: "gemini-0.61.0-idle.txt", kind: Idle},
		{file: "gemini-0.61.0-declined.txt", kind: Idle},
		{file: "gemini-0.61.0-quota-stopped.txt", kind: Idle},
	} {
		t.Run(c.file, func(t *testing.T) {
			screen := screenFile(t, c.file)
			v := det.Check(screen)
			if v.Kind != c.kind || v.Pattern != c.pattern || v.Line != c.line {
				t.Errorf("Check = %v %q %q, want %v %q %q", v.Kind, v.Pattern, v.Line, c.kind, c.pattern, c.line)
			}
			if c.pattern != "" && !IsDialog(c.pattern) {
				t.Errorf("IsDialog(%q) = false", c.pattern)
			}
			d, ok := ReadDialog(screen)
			if c.options == nil {
				if ok {
					t.Errorf("a dialog read: %q", d.Describe(0))
				}
				return
			}
			if !ok {
				t.Fatal("no dialog read")
			}
			if got := strings.Split(d.Describe(0), " · "); !slices.Equal(got, c.options) || d.Selected != c.selected {
				t.Errorf("options %q selected %d,\nwant %q selected %d", got, d.Selected, c.options, c.selected)
			}
			check := func(what string, o Option, ok bool, want string, keys []string) {
				if want == "" {
					if ok {
						t.Errorf("%s = %q, want none", what, o)
					}
					return
				}
				if !ok || o.String() != want {
					t.Errorf("%s = %q (%v), want %q", what, o, ok, want)
				}
				if k := d.Keys(o); !slices.Equal(k, keys) {
					t.Errorf("keys for %s = %q, want %q", what, k, keys)
				}
			}
			y, yok := d.Yes()
			check("yes", y, yok, c.yes, c.yesKeys)
			n, nok := d.No()
			check("no", n, nok, c.no, c.noKeys)
		})
	}
}

// TestAgentNoNeverApproves: on every Codex and Gemini dialog captured, the
// keys of "no" are never Enter (which confirms the selected row, a Yes or
// Allow or Trust on each of them) and never the digit or key of an option
// that approves.
func TestAgentNoNeverApproves(t *testing.T) {
	for _, f := range []string{"codex-0.171.0-approval-command.txt", "codex-0.171.0-approval-edit.txt", "codex-0.171.0-trust.txt", "gemini-0.61.0-approval-shell.txt", "gemini-0.61.0-approval-edit.txt", "gemini-0.61.0-trust.txt", "gemini-0.61.0-quota.txt", "gemini-0.61.0-quota-reset.txt"} {
		d, ok := ReadDialog(screenFile(t, f))
		if !ok {
			t.Errorf("%s: no dialog", f)
			continue
		}
		n, ok := d.No()
		if !ok {
			t.Errorf("%s: no No", f)
			continue
		}
		keys := d.Keys(n)
		if slices.Contains(keys, "Enter") {
			t.Errorf("%s: no is %q", f, keys)
		}
		for _, o := range d.Options {
			w := firstWord(o.Text)
			if (w == "yes" || w == "allow" || w == "trust" || w == "keep" || w == "switch") && slices.Equal(d.Keys(o), keys) {
				t.Errorf("%s: no is %q, the keys of %q", f, keys, o)
			}
		}
	}
}

// TestAgentDialogsNotMistaken: what is no Codex or Gemini dialog stays as
// it was: Claude Code's screens, a question quoted in a conversation, a
// typed prompt that looks like a row.
func TestAgentDialogsNotMistaken(t *testing.T) {
	det := New(DefaultPatterns())
	for _, c := range []struct {
		name, screen string
		kind         Kind
		pattern      string
	}{
		{"Claude Code's permission", screenFile(t, "claude-2.1.332-permission.txt"), Stalled, "claude-permission"},
		{"Claude Code's trust", screenFile(t, "claude-2.1.332-trust.txt"), Stalled, "claude-trust"},
		{"Claude Code idle", screenFile(t, "claude-2.1.332-idle.txt"), Idle, ""},
		{"Claude Code working", screenFile(t, "claude-working.txt"), Busy, ""},
		{"a question quoted above Codex's composer", "› what does codex ask?\n• It asks: Would you like to run the following command?\n\n› Ask Codex to do anything\n\n  gpt-fake default · /tmp/p\n  ← for agents · ? for shortcuts", Idle, ""},
		{"a numbered prompt typed into Codex's composer", "• ok\n\n› 1. do this\n\n  gpt-fake default · /tmp/p\n  ← for agents · ? for shortcuts", Idle, ""},
		{"Codex working", "› make the file\n\n• Working (3s • esc to interrupt)\n\n› Ask Codex to do anything\n  ← for agents · ? for shortcuts", Busy, ""},
		{"a shell's press-enter", "Installing\nPress Enter to continue", Stalled, "press-key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := det.Check(c.screen)
			if v.Kind != c.kind || v.Pattern != c.pattern {
				t.Errorf("Check = %v %q, want %v %q", v.Kind, v.Pattern, c.kind, c.pattern)
			}
		})
	}
}

// TestAgentLimits reads the usage-limit screens of Codex and Gemini
// (captured against the fakes' 429s at 00:00 UTC, Dec 5 2026, in a UTC
// pane) with their reset times.
func TestAgentLimits(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 1, 0, 0, time.UTC)
	for _, c := range []struct {
		file  string
		ok    bool
		line  string // a part of Limit.Line
		reset time.Time
		shown string
	}{
		{"codex-0.171.0-usage-limit.txt", true, "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 1:30 AM.", time.Date(2026, 12, 5, 1, 30, 0, 0, time.UTC), "1:30 AM"},
		{"codex-0.171.0-usage-limit-days.txt", true, "try again at Dec 8th, 2026 3:00 AM.", time.Date(2026, 12, 8, 3, 0, 0, 0, time.UTC), "Dec 8th, 2026 3:00 AM"},
		{"gemini-0.61.0-quota-reset.txt", true, "Usage limit reached for all Pro models.", time.Date(2026, 12, 5, 2, 4, 0, 0, time.UTC), "2:04 AM UTC"},
		{"gemini-0.61.0-quota.txt", true, "Usage limit reached for all Pro models.", time.Time{}, ""},
		{"codex-0.171.0-idle.txt", false, "", time.Time{}, ""},
		{"codex-0.171.0-approval-command.txt", false, "", time.Time{}, ""},
		{"codex-0.171.0-declined.txt", false, "", time.Time{}, ""},
		{"gemini-0.61.0-idle.txt", false, "", time.Time{}, ""},
		{"gemini-0.61.0-approval-shell.txt", false, "", time.Time{}, ""},
		{"gemini-0.61.0-quota-stopped.txt", false, "", time.Time{}, ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			l, ok := ReadLimit(screenFile(t, c.file), now, time.UTC)
			if ok != c.ok || !strings.Contains(l.Line, c.line) || !l.Reset.Equal(c.reset) || l.Shown != c.shown || l.Retrying {
				t.Errorf("got %v %+v, want %v line ⊇ %q reset %v shown %q", ok, l, c.ok, c.line, c.reset, c.shown)
			}
		})
	}
	// A model's answer that quotes the limit is none: Codex marks its own
	// errors "■", an answer "•".
	quoted := "› what did it say?\n\n• It said: You’ve hit your usage limit … try again at 1:30 AM.\n\n› Ask Codex to do anything\n\n  ← for agents · ? for shortcuts"
	if l, ok := ReadLimit(quoted, now, time.UTC); ok {
		t.Errorf("a quoted limit read as one: %+v", l)
	}
}

// TestAgentPatternsWithoutDefaults: a detector without the default patterns
// (a layout's watchdog with defaults: false) still knows Codex's and
// Gemini's dialogs, which no layout names yet.
func TestAgentPatternsWithoutDefaults(t *testing.T) {
	for file, want := range map[string]string{"codex-0.171.0-approval-command.txt": "codex-approval", "gemini-0.61.0-approval-shell.txt": "gemini-approval"} {
		if v := New(nil).Check(screenFile(t, file)); v.Kind != Stalled || v.Pattern != want {
			t.Errorf("%s: %v %q, want stalled %q", file, v.Kind, v.Pattern, want)
		}
	}
}

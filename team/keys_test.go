package team

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func screenOf(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "stallwatch", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestChooseAnswer: what a person's answer sends for what a member's screen
// shows (real Claude Code screens), and which answers are refused.
func TestChooseAnswer(t *testing.T) {
	perm, plan, trust, gateway := screenOf(t, "claude-permission.txt"), screenOf(t, "claude-2.1.332-plan.txt"), screenOf(t, "claude-trust.txt"), screenOf(t, "claude-gateway.txt")
	prompt := "copying files\nOverwrite? (y/n) "
	stalled := func(pattern string) *Stall { return &Stall{Pattern: pattern} }
	for _, c := range []struct {
		name   string
		a      Answer
		screen string
		stall  *Stall // nil: not known (--force)
		keys   []string
		option string
		err    string // in the refusal
	}{
		{"n on a permission dialog is its No", Answer{Reply: "n"}, perm, stalled("claude-permission"), []string{"4"}, "4. No", ""},
		{"no, spelt out", Answer{Reply: "No"}, perm, stalled("claude-permission"), []string{"4"}, "4. No", ""},
		{"y is its plain Yes", Answer{Reply: "y"}, perm, stalled("claude-permission"), []string{"1"}, "1. Yes", ""},
		{"a number", Answer{Reply: "2"}, perm, stalled("claude-permission"), []string{"2"}, "2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project", ""},
		{"by text", Answer{Option: "no"}, perm, stalled("claude-permission"), []string{"4"}, "4. No", ""},
		{"as the person saw it", Answer{Reply: "4", Expect: "4. No"}, perm, stalled("claude-permission"), []string{"4"}, "4. No", ""},
		{"a dialog changed since", Answer{Reply: "1", Expect: "1. Yes, and use auto mode"}, perm, stalled("claude-permission"), nil, "", `lead's dialog changed: it now offers "1. Yes", not 1. Yes, and use auto mode; nothing was sent`},
		{"no such number", Answer{Reply: "5"}, perm, stalled("claude-permission"), nil, "", "lead's dialog has no option 5; it offers: 1. Yes · 2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj fr… · 3. Yes, and switch to auto mode · auto mode handles these prom… · 4. No"},
		{"y on a plan approval", Answer{Reply: "y"}, plan, stalled("claude-plan"), nil, "", "no single plain yes: choose an option by its number (`teamctl answer lead N`) or --option TEXT: 1. Yes, and use auto mode · 2. Yes, manually approve edits · 3. Tell Claude what to change shift+tab to approve with this f…"},
		{"n on a plan approval", Answer{Reply: "n"}, plan, stalled("claude-plan"), nil, "", "no plain no and no Esc to cancel"},
		{"a plan's option by number", Answer{Reply: "2"}, plan, stalled("claude-plan"), []string{"2"}, "2. Yes, manually approve edits", ""},
		{"an ambiguous text", Answer{Option: "yes"}, plan, stalled("claude-plan"), nil, "", `"yes" is the start of several of lead's options: "1. Yes, and use auto mode", "2. Yes, manually approve edits"`},
		{"no such text", Answer{Option: "maybe"}, plan, stalled("claude-plan"), nil, "", `lead's dialog has no option "maybe"; it offers: 1. Yes`},
		{"trust: n is No, exit, by Esc", Answer{Reply: "n"}, trust, stalled("claude-trust"), []string{"Escape"}, "No, exit", ""},
		{"trust: y is its only yes", Answer{Reply: "y"}, trust, stalled("claude-trust"), []string{"Down", "Enter"}, "Yes, I trust this folder", ""},
		{"gateway: n is Esc to cancel", Answer{Reply: "n"}, gateway, stalled("claude-auto-gateway"), []string{"Escape"}, "cancel (Esc)", ""},
		{"gateway: y means nothing", Answer{Reply: "y"}, gateway, stalled("claude-auto-gateway"), nil, "", "no single plain yes"},
		{"keys go as they are", Answer{Keys: []string{"n", "Enter"}}, perm, stalled("claude-permission"), []string{"n", "Enter"}, "", ""},
		{"a dialog read even when forced", Answer{Reply: "n"}, perm, nil, []string{"4"}, "4. No", ""},
		{"a prompt: typed, then Enter", Answer{Reply: "y"}, prompt, stalled("yes-no"), []string{"y", "Enter"}, "", ""},
		{"a prompt takes a number too", Answer{Reply: "2"}, prompt, stalled("yes-no"), []string{"2", "Enter"}, "", ""},
		{"a prompt has no options", Answer{Option: "yes"}, prompt, stalled("yes-no"), nil, "", "lead waits at a prompt, not a menu of options"},
		{"a dialog whose options cannot be read", Answer{Reply: "n"}, " Do you want to proceed?\n Esc to cancel · Tab to amend", stalled("claude-permission"), nil, "", "lead waits at a Claude Code dialog (claude-permission) whose options teamctl cannot read: answer it attached (`teamctl attach lead`), or send keys with --keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := chooseAnswer("lead", c.a, c.screen, c.stall)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q (sent %q)", err, c.err, got.Keys)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Keys, c.keys) || got.Option != c.option {
				t.Errorf("sent %q choosing %q, want %q choosing %q", got.Keys, got.Option, c.keys, c.option)
			}
		})
	}
}

func TestAnswerCheck(t *testing.T) {
	for _, c := range []struct {
		a   Answer
		err string
	}{
		{Answer{Reply: "y"}, ""}, {Answer{Reply: "NO"}, ""}, {Answer{Reply: "12"}, ""},
		{Answer{Option: "Yes"}, ""}, {Answer{Keys: []string{"Down", "Enter"}}, ""},
		{Answer{}, "answer with one of"},
		{Answer{Reply: "y", Keys: []string{"Enter"}}, "answer with one of"},
		{Answer{Reply: "0"}, `answer "0": want y, n or an option's number`},
		{Answer{Reply: "maybe"}, `answer "maybe"`},
		{Answer{Reply: "y\n"}, `answer "y\n"`},
	} {
		err := checkAnswer(c.a)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: %v, want %q", c.a, err, c.err)
		}
	}
}

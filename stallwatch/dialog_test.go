package stallwatch

import (
	"slices"
	"strings"
	"testing"
)

// TestReadDialogOnRealScreens reads the options of every dialog captured from
// the real Claude Code (2.1.328 and 2.1.332, testdata) and checks what "yes"
// and "no" choose and which keys are sent for them.
func TestReadDialogOnRealScreens(t *testing.T) {
	perm := []string{"1. Yes", "2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project", "3. Yes, and switch to auto mode · auto mode handles these prompts for you", "4. No"}
	perm332 := slices.Clone(perm)
	perm332[1] = "2. Yes, and always allow access to /tmp/tmp.x2p1s8/proj/build from this project"
	narrow := slices.Clone(perm)
	narrow[1] = "2. Yes, and always allow access to /tmp/tmp.d1a7og3/proj from this project" // two lines on screen
	edit := []string{"1. Yes", "2. Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)", "3. No"}
	trust := []string{"No, exit", "Yes, I trust this folder"}
	apiKey := []string{"Yes", "No (recommended)"}
	bypass := []string{"No, exit", "Yes, I accept"}
	mcp := []string{"Use this MCP server", "Use this and all future MCP servers in this project", "Continue without using this MCP server"}
	plan := []string{"1. Yes, and use auto mode", "2. Yes, manually approve edits", "3. Tell Claude what to change shift+tab to approve with this feedback"}
	gateway := []string{"stay in auto mode (Enter)", "leave for accept edits mode and stop (shift+Tab)", "cancel (Esc)"}
	gatewayTool := []string{"No", "Yes"}
	for _, c := range []struct {
		file     string
		options  []string
		selected int
		numbered bool
		yes      string // "" when yes is not unambiguous
		yesKeys  []string
		no       string
		noKeys   []string
	}{
		{"claude-permission.txt", perm, 0, true, "1. Yes", []string{"1"}, "4. No", []string{"4"}},
		{"claude-2.1.332-permission.txt", perm332, 0, true, "1. Yes", []string{"1"}, "4. No", []string{"4"}},
		{"claude-2.1.332-permission-narrow.txt", narrow, 0, true, "1. Yes", []string{"1"}, "4. No", []string{"4"}},
		{"claude-edit.txt", edit, 0, true, "1. Yes", []string{"1"}, "3. No", []string{"3"}},
		{"claude-2.1.332-edit.txt", edit, 0, true, "1. Yes", []string{"1"}, "3. No", []string{"3"}},
		{"claude-trust.txt", trust, 0, false, "Yes, I trust this folder", []string{"Down", "Enter"}, "No, exit", []string{"Escape"}},
		{"claude-trust-narrow.txt", trust, 0, false, "Yes, I trust this folder", []string{"Down", "Enter"}, "No, exit", []string{"Escape"}},
		{"claude-2.1.332-trust.txt", trust, 0, false, "Yes, I trust this folder", []string{"Down", "Enter"}, "No, exit", []string{"Escape"}},
		{"claude-apikey.txt", apiKey, 1, false, "Yes", []string{"Up", "Enter"}, "No (recommended)", []string{"Escape"}},
		{"claude-2.1.332-apikey.txt", apiKey, 1, false, "Yes", []string{"Up", "Enter"}, "No (recommended)", []string{"Escape"}},
		{"claude-bypass.txt", bypass, 0, false, "Yes, I accept", []string{"Down", "Enter"}, "No, exit", []string{"Escape"}},
		{"claude-2.1.332-bypass.txt", bypass, 0, false, "Yes, I accept", []string{"Down", "Enter"}, "No, exit", []string{"Escape"}},
		// No Yes, no No: "no" is the footer's Esc ("to cancel" on 2.1.328, "to reject" on 2.1.332).
		{"claude-mcp.txt", mcp, 2, false, "", nil, "cancel (Esc)", []string{"Escape"}},
		{"claude-2.1.332-mcp.txt", mcp, 2, false, "", nil, "reject (Esc)", []string{"Escape"}},
		// Two kinds of yes and no No: a person chooses by number. The plan's
		// own numbered steps above the menu are not options.
		{"claude-plan.txt", plan, 0, true, "", nil, "", nil},
		{"claude-2.1.332-plan.txt", plan, 0, true, "", nil, "", nil},
		// No menu: the footer's keys are the choices.
		{"claude-gateway.txt", gateway, 0, false, "", nil, "cancel (Esc)", []string{"Escape"}},
		{"claude-2.1.332-gateway.txt", gateway, 0, false, "", nil, "cancel (Esc)", []string{"Escape"}},
		// After the gateway dialog, each action asks with No selected.
		{"claude-gateway-tooluse.txt", gatewayTool, 0, false, "Yes", []string{"Down", "Enter"}, "No", []string{"Escape"}},
		{"claude-2.1.332-gateway-tooluse.txt", gatewayTool, 0, false, "Yes", []string{"Down", "Enter"}, "No", []string{"Escape"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			d, ok := ReadDialog(screenFile(t, c.file))
			if !ok {
				t.Fatal("no dialog read")
			}
			var got []string
			for _, o := range d.Options {
				got = append(got, o.String())
			}
			if !slices.Equal(got, c.options) {
				t.Errorf("options:\n got %q\nwant %q", got, c.options)
			}
			if d.Selected != c.selected || d.Numbered != c.numbered {
				t.Errorf("selected %d numbered %v, want %d %v", d.Selected, d.Numbered, c.selected, c.numbered)
			}
			check := func(what string, o Option, ok bool, want string, keys []string) {
				if want == "" {
					if ok {
						t.Errorf("%s = %q, want none (ambiguous)", what, o)
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

// TestNoChoiceRunsTheSelectedYes: on every dialog seen, the keys of "no"
// never end in a bare Enter while a Yes is selected — what `n Enter` did.
func TestNoChoiceRunsTheSelectedYes(t *testing.T) {
	for _, f := range []string{"claude-permission.txt", "claude-2.1.332-permission.txt", "claude-edit.txt", "claude-2.1.332-edit.txt", "claude-trust.txt", "claude-bypass.txt", "claude-mcp.txt", "claude-gateway.txt", "claude-gateway-tooluse.txt"} {
		d, _ := ReadDialog(screenFile(t, f))
		n, ok := d.No()
		if !ok {
			t.Errorf("%s: no No", f)
			continue
		}
		keys := d.Keys(n)
		if keys[len(keys)-1] == "Enter" && strings.HasPrefix(normalise(d.Options[d.Selected].Text), "yes") && len(keys) == 1 {
			t.Errorf("%s: no is %q, which picks the selected %q", f, keys, d.Options[d.Selected])
		}
	}
}

func TestReadDialogOnOtherScreens(t *testing.T) {
	permission := " Bash command\n\n   rm -rf build/\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to build/ from this project\n   3. No\n\n Esc to cancel · Tab to amend\n"
	for _, c := range []struct {
		name    string
		screen  string
		ok      bool
		options string // Describe(0)
	}{
		{"stand-in permission dialog", permission, true, "1. Yes · 2. Yes, and always allow access to build/ from this project · 3. No"},
		{"coloured", "\x1b[1m Do you want to proceed?\x1b[0m\r\n \x1b[36m❯ 1. Yes\x1b[0m\r\n   2. No\r\n Esc to cancel\r\n", true, "1. Yes · 2. No"},
		{"selected lower down", "  Pick\n    a\n    b\n  ❯ c\n  Enter to confirm", true, "1: a · 2: b · 3: c"},
		{"numbers out of order are no numbered menu", " ❯ 1. a\n   3. b\n", true, "1: 1. a · 2: 3. b"},
		{"one line is no menu", " Question\n ❯ 1. Yes\n Esc to cancel", false, ""},
		{"the idle input box", "❯ earlier prompt\n● done\n────\n❯\u00a0\n────\n  ⏸ manual mode on", false, ""},
		{"text typed into the idle box", "────\n❯ 1\n────\n  ⏸ manual mode on · ? for shortcuts", false, ""},
		{"a shell prompt at column 0", "❯ npm install\n❯ npx thing\nOk to proceed? (y)", false, ""},
		{"a menu far above the bottom", "  ❯ a\n    b\n" + strings.Repeat("log\n", 6) + "Overwrite? (y/n)", false, ""},
		{"conversation above a footer-only dialog is no menu", screenFile(t, "claude-gateway.txt"), true, "1: stay in auto mode (Enter) · 2: leave for accept edits mode and stop (shift+Tab) · 3: cancel (Esc)"},
		{"confirm and cancel alone are no dialog", "Some text\nEnter to confirm · Esc to cancel", false, ""},
		{"a shell prompt", "copying\nOverwrite? (y/n)", false, ""},
		{"empty", "\n\n", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := ReadDialog(c.screen)
			if ok != c.ok || (ok && d.Describe(0) != c.options) {
				t.Errorf("ReadDialog = %v %q, want %v %q", ok, d.Describe(0), c.ok, c.options)
			}
		})
	}
}

func TestChoose(t *testing.T) {
	perm, _ := ReadDialog(screenFile(t, "claude-permission.txt"))
	trust, _ := ReadDialog(screenFile(t, "claude-trust.txt"))
	mcp, _ := ReadDialog(screenFile(t, "claude-2.1.332-mcp.txt"))
	gateway, _ := ReadDialog(screenFile(t, "claude-gateway.txt"))
	for _, c := range []struct {
		name    string
		d       Dialog
		number  int    // choose by number when > 0
		text    string // else by text
		want    string // the option chosen, "" for none
		keys    []string
		several int // candidates when none is chosen
	}{
		{"permission by number", perm, 4, "", "4. No", []string{"4"}, 0},
		{"permission 2", perm, 2, "", "2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project", []string{"2"}, 0},
		{"no such number", perm, 5, "", "", nil, 0},
		{"exact text", perm, 0, "yes", "1. Yes", []string{"1"}, 0},
		{"as written", perm, 0, "4. No", "4. No", []string{"4"}, 0},
		{"a unique prefix", perm, 0, "Yes, and always", "2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project", []string{"2"}, 0},
		{"an ambiguous prefix", perm, 0, "Yes, and", "", nil, 2},
		{"no such text", perm, 0, "Maybe", "", nil, 0},
		{"trust by text", trust, 0, "Yes, I trust this folder", "Yes, I trust this folder", []string{"Down", "Enter"}, 0},
		{"trust by place", trust, 2, "", "Yes, I trust this folder", []string{"Down", "Enter"}, 0},
		{"trust's No by place is Esc", trust, 1, "", "No, exit", []string{"Escape"}, 0},
		{"upwards", mcp, 1, "", "Use this MCP server", []string{"Up", "Up", "Enter"}, 0},
		{"the selected", mcp, 3, "", "Continue without using this MCP server", []string{"Enter"}, 0},
		{"the footer's Esc by text", mcp, 0, "reject", "reject (Esc)", []string{"Escape"}, 0},
		{"a footer choice", gateway, 2, "", "leave for accept edits mode and stop (shift+Tab)", []string{"BTab"}, 0},
		{"a footer choice by text", gateway, 0, "stay in auto mode", "stay in auto mode (Enter)", []string{"Enter"}, 0},
		{"curly apostrophe", Dialog{Options: []Option{{Text: "Yes, don’t ask again"}, {Index: 1, Text: "No"}}}, 0, "yes, don't ask again", "Yes, don’t ask again", []string{"Enter"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o Option
			ok := false
			var candidates []Option
			if c.number > 0 {
				o, ok = c.d.Number(c.number)
			} else {
				o, candidates = c.d.Find(c.text)
				ok = len(candidates) == 1
			}
			if c.want == "" {
				if ok {
					t.Errorf("chose %q, want none", o)
				}
				if len(candidates) != c.several {
					t.Errorf("%d candidates, want %d", len(candidates), c.several)
				}
				return
			}
			if !ok || o.String() != c.want {
				t.Fatalf("chose %q (%v), want %q", o, ok, c.want)
			}
			if k := c.d.Keys(o); !slices.Equal(k, c.keys) {
				t.Errorf("keys %q, want %q", k, c.keys)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	d, _ := ReadDialog(screenFile(t, "claude-permission.txt"))
	if got, want := d.Describe(12), "1. Yes · 2. Yes, and al… · 3. Yes, and sw… · 4. No"; got != want {
		t.Errorf("Describe(12) = %q, want %q", got, want)
	}
}

func TestIsDialog(t *testing.T) {
	for name, want := range map[string]bool{"claude-trust": true, "claude-permission": true, "claude-dialog": true, "claude-auto-gateway": true, "yes-no": false, "press-key": false, "deploy": false} {
		if IsDialog(name) != want {
			t.Errorf("IsDialog(%q) = %v", name, !want)
		}
	}
}

func FuzzReadDialog(f *testing.F) {
	f.Add(" ❯ 1. Yes\n   2. No\n Esc to cancel")
	f.Add("Enter to go · Esc to cancel")
	f.Fuzz(func(t *testing.T, screen string) {
		d, ok := ReadDialog(screen)
		if !ok {
			return
		}
		if d.Selected < 0 || d.Selected >= len(d.Options) {
			t.Fatalf("selected %d of %d", d.Selected, len(d.Options))
		}
		for i, o := range d.Options {
			if o.Index != i {
				t.Fatalf("option %d has index %d", i, o.Index)
			}
			if len(d.Keys(o)) == 0 {
				t.Fatalf("no keys for %q", o)
			}
		}
	})
}

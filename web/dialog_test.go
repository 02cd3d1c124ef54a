package web

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../stallwatch/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadDialogView: on screens captured from the real Claude Code, what a
// dialog asks about (the command, file, folder; the question last) and its
// options by their labels, No the safe one.
func TestReadDialogView(t *testing.T) {
	for _, c := range []struct {
		file, pattern string
		asks          []string // each in Asks, in order
		options       string
		safe          string
	}{
		{"claude-permission.txt", "claude-permission", []string{"Bash command", "rm -rf build/", "Do you want to proceed?"},
			"1. Yes|2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project|3. Yes, and switch to auto mode · auto mode handles these prompts for you|4. No|cancel (Esc)", "4. No"},
		{"claude-2.1.332-permission-narrow.txt", "claude-permission", []string{"touch", "simple-marker-with-a-rather-long-name-to-see-how-it-wraps", "Do you want to proceed?"},
			"1. Yes|2. Yes, and always allow access to /tmp/tmp.d1a7og3/proj from this project|3. Yes, and switch to auto mode · auto mode handles these prompts for you|4. No|cancel (Esc)", "4. No"},
		{"claude-2.1.332-edit.txt", "claude-edit", []string{"Create file", "notes.txt", "1 notes", "Do you want to create notes.txt?"}, "", "3. No"},
		{"claude-2.1.332-trust.txt", "claude-trust", []string{"Accessing workspace:", "/tmp/tmp.x2p1s8/proj"}, "No, exit|Yes, I trust this folder|cancel (Esc)", "No, exit"},
		{"claude-2.1.332-apikey.txt", "claude-api-key", []string{"ANTHROPIC_API_KEY: sk-ant-...pproved-0123456789zz", "Do you want to use this API key?"}, "", "No (recommended)"},
	} {
		t.Run(c.file, func(t *testing.T) {
			v := readDialogView(fixture(t, c.file), c.pattern)
			if v == nil {
				t.Fatal("no dialog")
			}
			all := strings.Join(v.Asks, "\n")
			at := 0
			for _, a := range c.asks {
				i := strings.Index(all[at:], a)
				if i < 0 {
					t.Fatalf("asks lack %q (in order):\n%s", a, all)
				}
				at += i + len(a)
			}
			if strings.Contains(all, "❯") || strings.Contains(all, "╌") || strings.Contains(all, "Claude Code v") {
				t.Errorf("asks hold what is not the dialog's:\n%s", all)
			}
			var labels, safe []string
			for _, o := range v.Options {
				labels = append(labels, o.Label)
				if o.Safe {
					safe = append(safe, o.Label)
				}
			}
			if c.options != "" && strings.Join(labels, "|") != c.options {
				t.Errorf("options %q, want %q", strings.Join(labels, "|"), c.options)
			}
			if strings.Join(safe, "|") != c.safe {
				t.Errorf("safe %q, want %q", safe, c.safe)
			}
		})
	}
	if v := readDialogView("$ make\nOverwrite? (y/n)", "overwrite"); v != nil {
		t.Errorf("a shell prompt read as a dialog: %+v", v)
	}
	if v := readDialogView(" Do you want to proceed?\n Esc to cancel · Tab to amend", "claude-permission"); v == nil || len(v.Options) != 0 || !strings.Contains(strings.Join(v.Asks, "\n"), "proceed") {
		t.Errorf("a dialog whose options cannot be read: %+v", v)
	}
}

// TestAnswerOptionOnlyToTheDialogShown: an option chosen on the page is
// answered only while the member's screen shows what the page showed; a
// dialog that came in its place (another command) is not answered.
func TestAnswerOptionOnlyToTheDialogShown(t *testing.T) {
	st := fakeTeam()
	st.Members[1].Stall.Pattern = "claude-permission"
	w := newWorldOf(t, Options{}, st, map[string]string{"asker": fixture(t, "claude-permission.txt")})
	cookie, csrf := w.login("127.0.0.1:1")
	v := readDialogView(fixture(t, "claude-permission.txt"), "claude-permission")
	shown := strings.Join(v.Asks, "\n")
	other := strings.Replace(shown, "rm -rf build/", "rm -rf ~", 1)
	body := func(asks string) string {
		b, _ := json.Marshal(map[string]string{"team": "demo", "member": "asker", "option": "1. Yes", "asks": asks})
		return string(b)
	}
	if res := w.post("answer", cookie, csrf, body(other), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("an option for a dialog no longer shown: %s", res.Status)
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Fatalf("sent for another dialog: %v", got)
	}
	if res := w.post("answer", cookie, csrf, body(shown), nil); res.StatusCode != http.StatusOK {
		t.Errorf("an option of the dialog shown: %s", res.Status)
	}
	if got := w.f.actions(); len(got) != 1 || !strings.HasPrefix(got[0], "answer demo/asker 1. Yes[] by web") {
		t.Errorf("done: %v", got)
	}
}

package standin

import (
	"reflect"
	"testing"
	"time"
)

func TestParseScript(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []step
	}{
		{"", nil},
		{" , ", nil},
		{"work:2s", []step{{kind: "work", dur: 2 * time.Second}}},
		{"work:0s,sleep:150ms", []step{{kind: "work"}, {kind: "sleep", dur: 150 * time.Millisecond}}},
		{"ask", []step{{kind: "ask", text: "Overwrite? (y/n)"}}},
		{"ask:Continue? [y/n]", []step{{kind: "ask", text: "Continue? [y/n]"}}},
		{"ask:a:b", []step{{kind: "ask", text: "a:b"}}},
		{"permission, ignore-term", []step{{kind: "permission"}, {kind: "ignore-term"}}},
		{"ignore-shutdown,busy", []step{{kind: "ignore-shutdown"}, {kind: "busy"}}},
		{"plan", []step{{kind: "plan"}}},
		{"busy:1s,idle:2s,busy", []step{{kind: "busy", dur: time.Second}, {kind: "idle", dur: 2 * time.Second}, {kind: "busy"}}},
		{"idle", []step{{kind: "idle"}}},
		{"work:1s,exit:3", []step{{kind: "work", dur: time.Second}, {kind: "exit", code: 3}}},
		{"exit:0", []step{{kind: "exit"}}},
		{"spawn:helper", []step{{kind: "spawn", name: "helper"}}},
		{"spawn:re-search-2:work:1s;ask", []step{{kind: "spawn", name: "re-search-2", script: "work:1s,ask"}}},
		{"spawn:a:ask:Go on? [y/n];exit:0,idle", []step{{kind: "spawn", name: "a", script: "ask:Go on? [y/n],exit:0"}, {kind: "idle"}}},
		{"lines:50:30s,ask", []step{{kind: "lines", rate: 50, dur: 30 * time.Second}, {kind: "ask", text: "Overwrite? (y/n)"}}},
		{"lines:10000", []step{{kind: "lines", rate: 10000}}},
		{"prompt-at:/tmp/p.log", []step{{kind: "prompt-at", path: "/tmp/p.log", text: "Overwrite? (y/n)"}}},
		{"prompt-at:p.log:Proceed? [Y/n]:", []step{{kind: "prompt-at", path: "p.log", text: "Proceed? [Y/n]:"}}},
		{"bash:ls -l,bash:echo a:b > f", []step{{kind: "bash", text: "ls -l"}, {kind: "bash", text: "echo a:b > f"}}},
	} {
		got, err := parseScript(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseScript(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, in := range []string{
		"dance", "work", "work:", "work:fast", "work:-1s", "sleep", "busy:x", "busy:0s", "idle:0",
		"ask:", "exit", "exit:x", "exit:256", "exit:-1", "permission:x", "plan:x", "ignore-term:1", "ignore-shutdown:1",
		"exit:0,work:1s", "busy,ask", "idle,exit:0", "work:1s,,nope",
		// spawn: missing name, name not [a-z0-9-], empty or bad script
		"spawn", "spawn:", "spawn::ask", "spawn:Helper", "spawn:a_b", "spawn:a b", "spawn:a.b", "spawn:a@t", "spawn:ü",
		"spawn:a:", "spawn:a: ", "spawn:a:dance", "spawn:a:exit:0;ask",
		// lines: bad rate, bad duration, steps after an endless one
		"lines", "lines:", "lines:x", "lines:0", "lines:-5", "lines:1.5", "lines:10001", "lines: 5", "lines::1s",
		"lines:50:", "lines:50:x", "lines:50:0s", "lines:50:-1s", "lines:50,ask",
		// prompt-at: no file, empty question
		"prompt-at", "prompt-at:", "prompt-at::Sure?", "prompt-at:f:",
		// bash: no command
		"bash", "bash:", "bash: ",
	} {
		if got, err := parseScript(in); err == nil {
			t.Errorf("parseScript(%q) = %+v, want an error", in, got)
		}
	}
}

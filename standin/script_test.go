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
		{"busy:1s,idle:2s,busy", []step{{kind: "busy", dur: time.Second}, {kind: "idle", dur: 2 * time.Second}, {kind: "busy"}}},
		{"idle", []step{{kind: "idle"}}},
		{"work:1s,exit:3", []step{{kind: "work", dur: time.Second}, {kind: "exit", code: 3}}},
		{"exit:0", []step{{kind: "exit"}}},
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
		"ask:", "exit", "exit:x", "exit:256", "exit:-1", "permission:x", "ignore-term:1",
		"exit:0,work:1s", "busy,ask", "idle,exit:0", "work:1s,,nope",
	} {
		if got, err := parseScript(in); err == nil {
			t.Errorf("parseScript(%q) = %+v, want an error", in, got)
		}
	}
}

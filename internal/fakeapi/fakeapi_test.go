package fakeapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func start(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start(append([]Option{WithLog(t.Logf)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// post sends body as JSON to path and returns the response (closed by the caller).
func post(t *testing.T, s *Server, path string, body any, hdr map[string]string) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// event is one server-sent event.
type event struct {
	Name string
	Data map[string]any
}

// readSSE parses a whole event stream strictly: each event is exactly an
// "event:" line and a "data:" line followed by a blank line.
func readSSE(t *testing.T, r io.Reader) []event {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []event
	var lines []string
	for sc.Scan() {
		ln := sc.Text()
		if ln != "" {
			lines = append(lines, ln)
			continue
		}
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("bad SSE frame %q", lines)
		}
		ev := event{Name: strings.TrimPrefix(lines[0], "event: ")}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &ev.Data); err != nil {
			t.Fatalf("event %s: data is not JSON: %v", ev.Name, err)
		}
		if ev.Data["type"] != ev.Name {
			t.Errorf("event %s has data type %v", ev.Name, ev.Data["type"])
		}
		out = append(out, ev)
		lines = nil
	}
	if len(lines) != 0 {
		t.Fatalf("stream ends inside a frame: %q", lines)
	}
	return out
}

func names(evs []event) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.Name)
	}
	return strings.Join(n, ",")
}

func turn(text string, stream bool) map[string]any {
	return map[string]any{
		"model": "claude-test", "max_tokens": 100, "stream": stream,
		"system":   []any{map[string]any{"type": "text", "text": "You are a test."}},
		"tools":    []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Read"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}},
	}
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func TestStreamingTextDefault(t *testing.T) {
	s := start(t)
	resp := post(t, s, "/v1/messages?beta=true", turn("hello", true), nil)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readSSE(t, resp.Body)
	want := "message_start,ping,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop"
	if got := names(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	msg := evs[0].Data["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["model"] != "claude-test" || !strings.HasPrefix(msg["id"].(string), "msg_") {
		t.Errorf("message_start: %v", msg)
	}
	if get(msg, "usage", "input_tokens") == nil {
		t.Errorf("message_start has no usage: %v", msg)
	}
	if cb := evs[2].Data["content_block"].(map[string]any); cb["type"] != "text" || cb["text"] != "" {
		t.Errorf("content_block_start: %v", cb)
	}
	if d := evs[3].Data["delta"].(map[string]any); d["type"] != "text_delta" || d["text"] != "ok" {
		t.Errorf("delta: %v", d)
	}
	if get(evs[5].Data, "delta", "stop_reason") != "end_turn" || get(evs[5].Data, "usage", "output_tokens") == nil {
		t.Errorf("message_delta: %v", evs[5].Data)
	}
}

func TestStreamingToolUseInChunks(t *testing.T) {
	s := start(t, WithChunk(4), WithScript(func(Request) Reply {
		r := Text("Let me run it — ✓")
		r.Blocks = append(r.Blocks, Bash("echo héllo", "greet").Blocks...)
		return r
	}))
	resp := post(t, s, "/v1/messages", turn("run it", true), nil)
	defer resp.Body.Close()
	evs := readSSE(t, resp.Body)
	var text, js strings.Builder
	var starts []map[string]any
	stops := 0
	for _, e := range evs {
		switch e.Name {
		case "content_block_start":
			starts = append(starts, e.Data["content_block"].(map[string]any))
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			idx := int(e.Data["index"].(float64))
			switch {
			case idx == 0 && d["type"] == "text_delta":
				text.WriteString(d["text"].(string))
			case idx == 1 && d["type"] == "input_json_delta":
				js.WriteString(d["partial_json"].(string))
			default:
				t.Errorf("unexpected delta %v at index %d", d, idx)
			}
		case "content_block_stop":
			stops++
		case "message_delta":
			if get(e.Data, "delta", "stop_reason") != "tool_use" {
				t.Errorf("stop_reason %v, want tool_use", get(e.Data, "delta", "stop_reason"))
			}
		}
	}
	if len(starts) != 2 || stops != 2 {
		t.Fatalf("%d block starts, %d stops: %s", len(starts), stops, names(evs))
	}
	if strings.Count(names(evs), "content_block_delta") < 4 {
		t.Errorf("text and input not split into pieces: %s", names(evs))
	}
	if text.String() != "Let me run it — ✓" {
		t.Errorf("text reassembled as %q", text.String())
	}
	tu := starts[1]
	if tu["type"] != "tool_use" || tu["name"] != "Bash" || !strings.HasPrefix(tu["id"].(string), "toolu_") || len(tu["input"].(map[string]any)) != 0 {
		t.Errorf("tool_use start: %v", tu)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(js.String()), &in); err != nil || in["command"] != "echo héllo" || in["description"] != "greet" {
		t.Errorf("tool input %q: %v", js.String(), err)
	}
}

func TestNonStreaming(t *testing.T) {
	s := start(t, WithScript(func(Request) Reply { return Bash("ls", "") }))
	resp := post(t, s, "/v1/messages", turn("hi", false), nil)
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || m["type"] != "message" || m["role"] != "assistant" || m["stop_reason"] != "tool_use" {
		t.Fatalf("message: %d %v", resp.StatusCode, m)
	}
	c := m["content"].([]any)[0].(map[string]any)
	if c["type"] != "tool_use" || c["name"] != "Bash" || get(c, "input", "command") != "ls" {
		t.Errorf("content: %v", c)
	}
	if get(m, "usage", "output_tokens") == nil {
		t.Errorf("no usage: %v", m)
	}
}

func TestCountTokens(t *testing.T) {
	s := start(t)
	resp := post(t, s, "/v1/messages/count_tokens?beta=true", turn("count me", false), nil)
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	if n, _ := m["input_tokens"].(float64); resp.StatusCode != 200 || n < 1 || len(m) != 1 {
		t.Fatalf("count_tokens: %d %v", resp.StatusCode, m)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Kind != KindCountTokens || r[0].LastUserText() != "count me" {
		t.Errorf("recorded %+v", r)
	}
}

func TestUnknownPathIs404AndLogged(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	s := start(t, WithLog(func(f string, a ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(f, a...))
		mu.Unlock()
	}))
	resp := post(t, s, "/api/oauth/whatever", map[string]any{"x": 1}, nil)
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode != 404 || m["type"] != "error" || get(m, "error", "type") != "not_found_error" ||
		!strings.Contains(get(m, "error", "message").(string), "/api/oauth/whatever") {
		t.Errorf("answer: %d %v", resp.StatusCode, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp2, err := http.DefaultClient.Do(must(http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/messages", nil)))
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 404 {
		t.Errorf("GET /v1/messages: %d, want 404", resp2.StatusCode)
	}
	u := s.Unhandled()
	if len(u) != 2 || u[0].Path != "/api/oauth/whatever" || u[0].Status != 404 || u[1].Method != "GET" {
		t.Errorf("unhandled: %v", u)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 2 || !strings.Contains(logs[0], "UNHANDLED") || !strings.Contains(logs[0], "/api/oauth/whatever") {
		t.Errorf("log: %q", logs)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestRecordsRequests(t *testing.T) {
	s := start(t)
	body := map[string]any{
		"model": "m1", "stream": false, "system": "plain system",
		"messages": []any{
			map[string]any{"role": "user", "content": "first as a string"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "ls"}}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": "a.txt"}}},
				map[string]any{"type": "text", "text": "and more"},
			}},
			map[string]any{"role": "system", "content": "Today's date is 2026-01-01."},
		},
	}
	resp := post(t, s, "/v1/messages?beta=true", body, map[string]string{"X-Api-Key": "k-123", "Anthropic-Version": "2023-06-01", "X-Unrelated": "no"})
	resp.Body.Close()
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Time.IsZero() || r.Method != "POST" || r.Path != "/v1/messages" || r.RawQuery != "beta=true" || r.Kind != KindMessages || r.Status != 200 {
		t.Errorf("request: %v", r)
	}
	if r.Header.Get("X-Api-Key") != "k-123" || r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("X-Unrelated") != "" {
		t.Errorf("headers: %v", r.Header)
	}
	if r.Model != "m1" || r.Stream || r.System != "plain system" || r.Body["model"] != "m1" || len(r.Messages) != 4 {
		t.Errorf("parsed: %+v", r)
	}
	if r.Messages[0].Text() != "first as a string" || r.Messages[1].Content[0].Input["command"] != "ls" {
		t.Errorf("messages: %+v", r.Messages)
	}
	if !r.IsTurn() || !r.IsToolResult() || r.LastUserText() != "and more" {
		t.Errorf("IsTurn %v IsToolResult %v LastUserText %q", r.IsTurn(), r.IsToolResult(), r.LastUserText())
	}
	if tr := r.LastUser().ToolResults(); tr[0].ToolUseID != "toolu_1" || tr[0].Text != "a.txt" {
		t.Errorf("tool results: %+v", tr)
	}
	if !r.UserTextContains("first as") || r.UserTextContains("Today's date") {
		t.Errorf("UserTexts: %q", r.UserTexts())
	}
}

func TestGzipBody(t *testing.T) {
	s := start(t)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	json.NewEncoder(zw).Encode(turn("zipped", false))
	zw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := must(http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", &buf))
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := s.Requests()[0]; r.LastUserText() != "zipped" {
		t.Errorf("gzip body parsed as %q", r.LastUserText())
	}
}

func TestRulesScript(t *testing.T) {
	s := start(t, WithScript(Rules(
		Rule{When: AfterToolResult(), Reply: Always(Text("done after tool"))},
		Rule{When: LastUserContains("RUN"), Reply: Always(Bash("true", ""))},
		Rule{When: LastUserContains("echo"), Reply: func(r Request) Reply { return Text("you said: " + r.LastUserText()) }},
	)))
	ask := func(body map[string]any) map[string]any {
		resp := post(t, s, "/v1/messages", body, nil)
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return m
	}
	first := func(m map[string]any) map[string]any { return m["content"].([]any)[0].(map[string]any) }
	if c := first(ask(turn("please RUN it", false))); c["type"] != "tool_use" {
		t.Errorf("RUN: %v", c)
	}
	if c := first(ask(turn("echo this", false))); c["text"] != "you said: echo this" {
		t.Errorf("echo: %v", c)
	}
	if c := first(ask(turn("anything else", false))); c["text"] != "ok" {
		t.Errorf("fallback: %v", c)
	}
	tr := turn("", false)
	tr["messages"] = []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "out"}}}}
	if c := first(ask(tr)); c["text"] != "done after tool" {
		t.Errorf("after tool_result: %v", c)
	}
	s.SetScript(func(Request) Reply { return Error(529, "overloaded_error", "busy") })
	resp := post(t, s, "/v1/messages", turn("x", true), nil)
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode != 529 || get(m, "error", "type") != "overloaded_error" || get(m, "error", "message") != "busy" {
		t.Errorf("error reply: %d %v", resp.StatusCode, m)
	}
	if r := s.Requests(); r[len(r)-1].Status != 529 {
		t.Errorf("recorded status %d", r[len(r)-1].Status)
	}
	s.SetScript(nil)
	if c := first(ask(turn("default again", false))); c["text"] != "ok" {
		t.Errorf("SetScript(nil): %v", c)
	}
}

func TestWaitFor(t *testing.T) {
	s := start(t)
	resp := post(t, s, "/v1/messages", turn("early", false), nil)
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.WaitFor(ctx, func(r Request) bool { return r.LastUserText() == "early" })
	if err != nil || r.Seq != 1 {
		t.Fatalf("already recorded: %v %v", r, err)
	}

	got := make(chan Request, 1)
	errc := make(chan error, 1)
	go func() {
		r, err := s.WaitFor(ctx, func(r Request) bool { return r.LastUserText() == "late" })
		got <- r
		errc <- err
	}()
	resp = post(t, s, "/v1/messages", turn("other", false), nil)
	resp.Body.Close()
	resp = post(t, s, "/v1/messages", turn("late", false), nil)
	resp.Body.Close()
	if r := <-got; <-errc != nil || r.Seq != 3 {
		t.Fatalf("waited for: %v", r)
	}

	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = s.WaitFor(short, func(r Request) bool { return false })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "among 3") {
		t.Errorf("deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("WaitFor overran its deadline: %s", d)
	}

	done := make(chan error, 1)
	go func() {
		_, err := s.WaitFor(context.Background(), func(r Request) bool { return false })
		done <- err
	}()
	s.Close()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitFor still blocked after Close")
	}
}

func TestSplitKeepsRunes(t *testing.T) {
	for _, s := range []string{"", "abc", "héllo wörld ❯❯ ─── 🤖", strings.Repeat("x", 40)} {
		for n := 1; n < 6; n++ {
			parts := split(s, n)
			if strings.Join(parts, "") != s {
				t.Errorf("split(%q, %d) = %q", s, n, parts)
			}
			for _, p := range parts {
				if !utf8Valid(p) {
					t.Errorf("split(%q, %d) cut a rune: %q", s, n, parts)
				}
			}
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

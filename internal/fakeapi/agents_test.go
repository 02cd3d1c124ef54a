package fakeapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// codexTurn is a Responses API body as Codex 0.171.0 sends it (trimmed):
// developer instructions, the user's text, its tools.
func codexTurn(items ...any) map[string]any {
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "You are a coding agent running in the Codex CLI"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "make the file"}}},
	}
	return map[string]any{
		"model": "gpt-fake", "stream": true, "instructions": "be brief", "input": append(input, items...),
		"tools": []any{map[string]any{"type": "function", "name": "exec_command"}, map[string]any{"type": "web_search"}},
	}
}

func TestResponsesShellCallThenText(t *testing.T) {
	s := start(t, WithScript(Rules(
		Rule{When: AfterToolResult(), Reply: func(r Request) Reply { return Text("ran: " + r.LastUser().ToolResults()[0].Text) }},
		Rule{When: LastUserContains("make the file"), Reply: Always(CodexEscalatedShell("touch ran.txt", "Create ran.txt?"))},
	)))
	resp := post(t, s, "/v1/responses", codexTurn(), nil)
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	if got, want := names(evs), "response.created,response.output_item.added,response.output_item.done,response.completed"; got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	item := evs[2].Data["item"].(map[string]any)
	var args map[string]any
	if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil {
		t.Fatalf("arguments are not a JSON string: %v", item["arguments"])
	}
	if item["type"] != "function_call" || item["name"] != "exec_command" || args["cmd"] != "touch ran.txt" || args["sandbox_permissions"] != "require_escalated" || item["call_id"] == "" {
		t.Errorf("function call item %v", item)
	}
	if get(evs[3].Data, "response", "usage", "input_tokens") == nil || get(evs[3].Data, "response", "id") == nil {
		t.Errorf("completed without usage or id: %v", evs[3].Data)
	}
	r := s.Requests()[0]
	if r.Kind != KindResponses || !r.IsTurn() || r.Model != "gpt-fake" || r.System != "be brief" || r.LastUserText() != "make the file" || strings.Join(r.Tools, ",") != "exec_command,web_search" {
		t.Errorf("request parsed as %+v", r)
	}

	// The command's output comes back as a function_call_output.
	callID := item["call_id"].(string)
	resp = post(t, s, "/v1/responses", codexTurn(
		map[string]any{"type": "function_call", "call_id": callID, "name": "exec_command", "arguments": item["arguments"]},
		map[string]any{"type": "function_call_output", "call_id": callID, "output": "Process exited with code 0"},
	), nil)
	evs = readSSE(t, resp.Body)
	resp.Body.Close()
	var text strings.Builder
	for _, e := range evs {
		if e.Name == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
		}
	}
	if text.String() != "ran: Process exited with code 0" {
		t.Errorf("text %q (events %s)", text.String(), names(evs))
	}
	done := evs[len(evs)-2].Data["item"].(map[string]any)
	if get(done, "content") == nil || done["type"] != "message" {
		t.Errorf("last item %v", done)
	}
	r = s.Requests()[1]
	if !r.IsToolResult() || r.LastUser().ToolResults()[0].ToolUseID != callID {
		t.Errorf("tool result not parsed: %+v", r.Messages)
	}
}

func TestResponsesTitleRequestIsNoTurn(t *testing.T) {
	s := start(t)
	body := codexTurn()
	delete(body, "tools")
	resp := post(t, s, "/v1/responses", body, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if r := s.Requests()[0]; r.IsTurn() {
		t.Error("a request offering no tools (Codex's title) counts as a turn")
	}
}

func TestCodexUsageLimit(t *testing.T) {
	reset := time.Date(2026, 12, 5, 1, 30, 0, 0, time.UTC)
	s := start(t, WithScript(func(Request) Reply { return CodexUsageLimit(reset) }))
	resp := post(t, s, "/v1/responses", codexTurn(), nil)
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 429 || get(body, "error", "type") != "usage_limit_reached" || get(body, "error", "resets_at") != float64(reset.Unix()) {
		t.Errorf("status %d body %v", resp.StatusCode, body)
	}
	if r := s.Requests()[0]; r.Status != 429 {
		t.Errorf("recorded status %d", r.Status)
	}
}

func TestResponsesConfig(t *testing.T) {
	s := start(t)
	cfg := s.ResponsesConfig("gpt-fake", "/tmp/a \"b\"")
	for _, want := range []string{
		`model_provider = "fake"`, `base_url = "` + s.URL + `/v1"`, `wire_api = "responses"`,
		`requires_openai_auth = false`, `[projects."/tmp/a \"b\""]`, `trust_level = "trusted"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
}

// geminiTurn is a generateContent body as Gemini CLI 0.61.0 sends it (trimmed).
func geminiTurn(contents ...any) map[string]any {
	c := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>…</session_context>"}, map[string]any{"text": "make the file"}}}}
	return map[string]any{
		"contents":          append(c, contents...),
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are Gemini CLI"}}},
		"tools":             []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "run_shell_command"}, map[string]any{"name": "read_file"}}}},
		"generationConfig":  map[string]any{"temperature": 1},
	}
}

// readGeminiSSE reads "data: <json>" events.
func readGeminiSSE(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []map[string]any
	for sc.Scan() {
		ln := strings.TrimRight(sc.Text(), "\r")
		if ln == "" {
			continue
		}
		data, ok := strings.CutPrefix(ln, "data: ")
		if !ok {
			t.Fatalf("bad line %q", ln)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("chunk is not JSON: %v", err)
		}
		out = append(out, m)
	}
	return out
}

func TestGeminiShellCallThenText(t *testing.T) {
	s := start(t, WithChunk(4), WithScript(Rules(
		Rule{When: AfterToolResult(), Reply: func(r Request) Reply { return Text("ran: " + r.LastUser().ToolResults()[0].Text) }},
		Rule{When: LastUserContains("make the file"), Reply: Always(GeminiShell("touch ran.txt", "make a file"))},
	)))
	path := "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse"
	resp := post(t, s, path, geminiTurn(), nil)
	chunks := readGeminiSSE(t, resp.Body)
	resp.Body.Close()
	if len(chunks) != 1 {
		t.Fatalf("%d chunks, want 1: %v", len(chunks), chunks)
	}
	cand := chunks[0]["candidates"].([]any)[0].(map[string]any)
	fc := get(cand, "content", "parts").([]any)[0].(map[string]any)["functionCall"].(map[string]any)
	if fc["name"] != "run_shell_command" || get(fc, "args", "command") != "touch ran.txt" || cand["finishReason"] != "STOP" {
		t.Errorf("candidate %v", cand)
	}
	if get(chunks[0], "usageMetadata", "promptTokenCount") == nil {
		t.Errorf("no usage: %v", chunks[0])
	}
	r := s.Requests()[0]
	if r.Kind != KindGemini || !r.Stream || !r.IsTurn() || r.Model != "gemini-3.1-pro-preview" || r.System != "You are Gemini CLI" || !strings.Contains(r.LastUserText(), "make the file") || strings.Join(r.Tools, ",") != "run_shell_command,read_file" {
		t.Errorf("request parsed as %+v", r)
	}

	resp = post(t, s, path, geminiTurn(
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": fc}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": fc["id"], "name": "run_shell_command", "response": map[string]any{"output": "Output: (empty)"}}}}},
	), nil)
	chunks = readGeminiSSE(t, resp.Body)
	resp.Body.Close()
	var text strings.Builder
	for i, c := range chunks {
		cand := c["candidates"].([]any)[0].(map[string]any)
		text.WriteString(get(cand, "content", "parts").([]any)[0].(map[string]any)["text"].(string))
		if last := i == len(chunks)-1; (cand["finishReason"] == "STOP") != last || (c["usageMetadata"] != nil) != last {
			t.Errorf("chunk %d of %d: finish %v usage %v", i, len(chunks), cand["finishReason"], c["usageMetadata"])
		}
	}
	if len(chunks) < 2 || text.String() != "ran: Output: (empty)" {
		t.Errorf("%d chunks, text %q", len(chunks), text.String())
	}
	if r := s.Requests()[1]; !r.IsToolResult() || r.LastUser().ToolResults()[0].ToolUseID != fc["id"] {
		t.Errorf("tool result not parsed: %+v", r.Messages)
	}
}

func TestGeminiSideQuestionsAndCountTokens(t *testing.T) {
	s := start(t)
	router := geminiTurn()
	router["generationConfig"] = map[string]any{"responseMimeType": "application/json"}
	resp := post(t, s, "/v1beta/models/gemini-3.5-flash-lite:generateContent", router, nil)
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 200 || get(body, "usageMetadata", "totalTokenCount") == nil || body["candidates"] == nil {
		t.Errorf("generateContent: %d %v", resp.StatusCode, body)
	}
	resp = post(t, s, "/v1beta/models/gemini-3.5-flash-lite:generateContent", geminiTurn(), nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp = post(t, s, "/v1beta/models/gemini-3.5-flash-lite:countTokens", geminiTurn(), nil)
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if body["totalTokens"] == nil {
		t.Errorf("countTokens: %v", body)
	}
	rs := s.Requests()
	if !rs[0].JSONMode || rs[0].IsTurn() || rs[1].IsTurn() || rs[2].Kind != KindCountTokens {
		t.Errorf("side questions: json %v turn %v, summary turn %v, count kind %s", rs[0].JSONMode, rs[0].IsTurn(), rs[1].IsTurn(), rs[2].Kind)
	}
}

func TestGeminiQuota(t *testing.T) {
	s := start(t, WithScript(func(Request) Reply { return GeminiQuota(2*time.Hour, false) }))
	resp := post(t, s, "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse", geminiTurn(), nil)
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	details, _ := get(body, "error", "details").([]any)
	if resp.StatusCode != 429 || get(body, "error", "status") != "RESOURCE_EXHAUSTED" || len(details) != 2 || get(details[1].(map[string]any), "retryDelay") != "7200s" {
		t.Errorf("status %d body %v", resp.StatusCode, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.WaitFor(ctx, func(r Request) bool { return r.Status == 429 && r.Kind == KindGemini }); err != nil {
		t.Error(err)
	}
}

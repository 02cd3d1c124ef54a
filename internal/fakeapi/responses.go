package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The OpenAI Responses API as the Codex CLI streams it (POST /v1/responses,
// "stream": true, server-sent events), for a `[model_providers.<name>]` in
// $CODEX_HOME/config.toml with `base_url = "<URL>/v1"` and
// `wire_api = "responses"` (ResponsesConfig writes one). Read in
// codex-rs/codex-api/src/sse/responses.rs and confirmed on Codex 0.171.0
// (docs/codex.md): it reads response.created, response.output_item.added,
// response.output_text.delta, response.output_item.done (a "message" with
// "output_text" content, or a "function_call" with its arguments as a JSON
// string and a call_id) and response.completed (id, usage); a 429 whose
// error type is "usage_limit_reached" is its usage-limit screen.

// KindResponses is a Responses API request (POST /v1/responses).
const KindResponses = "responses"

// CodexShell answers a Codex turn with a call of its shell tool: the tool
// Codex 0.171.0 offers a model it does not know is "exec_command" with the
// command line in "cmd" (docs/codex.md).
func CodexShell(command string) Reply {
	return ToolUse("exec_command", map[string]any{"cmd": command})
}

// CodexEscalatedShell is CodexShell asking to run outside the sandbox
// ("sandbox_permissions": "require_escalated", with the question Codex
// shows): with `-a on-request` Codex asks the user first, whatever the
// sandbox — how a test makes its approval overlay appear.
func CodexEscalatedShell(command, justification string) Reply {
	in := map[string]any{"cmd": command, "sandbox_permissions": "require_escalated"}
	if justification != "" {
		in["justification"] = justification
	}
	return ToolUse("exec_command", in)
}

// CodexUsageLimit answers a Codex turn with the 429 its usage-limit screen
// comes from: an error of type "usage_limit_reached" resetting at reset.
func CodexUsageLimit(reset time.Time) Reply {
	return Reply{Status: http.StatusTooManyRequests, ErrorBody: map[string]any{"error": map[string]any{
		"type": "usage_limit_reached", "message": "The usage limit has been reached",
		"plan_type": "plus", "resets_at": reset.Unix(),
	}}}
}

// ResponsesConfig is the $CODEX_HOME/config.toml that points Codex at the
// fake as the model provider "fake" (no login: requires_openai_auth false;
// the key, any, from the env var FAKE_API_KEY), with model, and with each
// folder of trusted marked trusted so that Codex does not ask.
func (s *Server) ResponsesConfig(model string, trusted ...string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "model = %s\nmodel_provider = \"fake\"\n\n", tomlString(model))
	fmt.Fprintf(&b, "[model_providers.fake]\nname = \"fake\"\nbase_url = %s\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\nrequires_openai_auth = false\nsupports_websockets = false\nrequest_max_retries = 0\nstream_max_retries = 0\n", tomlString(s.URL+"/v1"))
	for _, dir := range trusted {
		fmt.Fprintf(&b, "\n[projects.%s]\ntrust_level = \"trusted\"\n", tomlString(dir))
	}
	return b.String()
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's for
// what a path or a model name holds).
func tomlString(s string) string {
	js, _ := json.Marshal(s)
	return string(js)
}

// parseResponses fills r from a Responses API body: instructions as the
// system prompt, input items as messages (a function_call an assistant
// tool_use, a function_call_output a user tool_result; developer messages
// count as system ones), tools by name (or type, for the built-in ones).
func parseResponses(r *Request, obj map[string]any) {
	r.Model, _ = obj["model"].(string)
	r.Stream, _ = obj["stream"].(bool)
	r.System, _ = obj["instructions"].(string)
	if tools, ok := obj["tools"].([]any); ok {
		for _, t := range tools {
			m, ok := t.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			if name == "" {
				name, _ = m["type"].(string)
			}
			r.Tools = append(r.Tools, name)
		}
	}
	items, _ := obj["input"].([]any)
	for _, iv := range items {
		it, ok := iv.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := it["type"].(string)
		switch typ {
		case "message", "":
			role, _ := it["role"].(string)
			if role == "developer" {
				role = "system"
			}
			var blocks []Block
			switch c := it["content"].(type) {
			case string:
				blocks = []Block{{Type: "text", Text: c}}
			case []any:
				for _, cv := range c {
					cm, _ := cv.(map[string]any)
					if t, ok := cm["text"].(string); ok {
						blocks = append(blocks, Block{Type: "text", Text: t})
					}
				}
			}
			r.Messages = append(r.Messages, Message{Role: role, Content: blocks})
		case "function_call", "custom_tool_call":
			b := Block{Type: "tool_use"}
			b.ID, _ = it["call_id"].(string)
			b.Name, _ = it["name"].(string)
			if args, ok := it["arguments"].(string); ok {
				json.Unmarshal([]byte(args), &b.Input)
			}
			if in, ok := it["input"].(string); ok && b.Input == nil {
				b.Input = map[string]any{"input": in}
			}
			r.Messages = append(r.Messages, Message{Role: "assistant", Content: []Block{b}})
		case "function_call_output", "custom_tool_call_output":
			b := Block{Type: "tool_result"}
			b.ToolUseID, _ = it["call_id"].(string)
			switch o := it["output"].(type) {
			case string:
				b.Text = o
			default:
				b.Text = textOf(o)
				if b.Text == "" {
					js, _ := json.Marshal(o)
					b.Text = string(js)
				}
			}
			r.Messages = append(r.Messages, Message{Role: "user", Content: []Block{b}})
		}
	}
}

// answerResponses writes rep for the Responses request r.
func (s *Server) answerResponses(w http.ResponseWriter, r *Request, rep Reply) {
	if s.answerError(w, r, rep, func(typ, msg string) any {
		return map[string]any{"error": map[string]any{"type": typ, "code": typ, "message": msg}}
	}) {
		return
	}
	id, blocks, u, chunk := s.prepare(r, rep, "resp_fake%04d", "call_fake%04d")
	r.Status, r.MsgID, r.Usage = http.StatusOK, id, u
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	WriteResponsesStream(w, id, blocks, u, chunk)
}

// WriteResponsesStream writes an answer as the Responses API streams it:
// response.created, then per block output_item.added, (for text)
// output_text.delta in pieces of chunk bytes, output_item.done, and last
// response.completed with u as its usage (input_tokens counting the cached
// ones, as OpenAI's do).
func WriteResponsesStream(w io.Writer, id string, blocks []Block, u Usage, chunk int) error {
	if chunk <= 0 {
		chunk = 16
	}
	fl, _ := w.(http.Flusher)
	var werr error
	event := func(name string, data map[string]any) {
		if werr != nil {
			return
		}
		data["type"] = name
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(data)
		_, werr = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, bytes.TrimRight(buf.Bytes(), "\n"))
		if fl != nil {
			fl.Flush()
		}
	}
	event("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}})
	for i, b := range blocks {
		itemID := fmt.Sprintf("%s_item%d", id, i)
		if b.Type == "tool_use" {
			args, _ := json.Marshal(b.Input)
			item := map[string]any{"type": "function_call", "id": itemID, "call_id": b.ID, "name": b.Name, "arguments": string(args)}
			event("response.output_item.added", map[string]any{"output_index": i, "item": item})
			event("response.output_item.done", map[string]any{"output_index": i, "item": item})
			continue
		}
		event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
			"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{},
		}})
		for _, part := range split(b.Text, chunk) {
			event("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "delta": part})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": map[string]any{
			"type": "message", "id": itemID, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": b.Text, "annotations": []any{}}},
		}})
	}
	event("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed", "usage": map[string]any{
		"input_tokens": u.Input + u.CacheRead, "input_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": u.Input + u.CacheRead + u.Output,
	}}})
	return werr
}

package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Google's Gemini API as the Gemini CLI calls it through @google/genai with
// GOOGLE_GEMINI_BASE_URL set to the fake's URL (plain HTTP is allowed on
// localhost) and GEMINI_API_KEY: POST /v1beta/models/<model>:
// streamGenerateContent?alt=sse (server-sent events, "data: <chunk>" each),
// :generateContent (one JSON answer; the CLI's side questions ask for JSON)
// and :countTokens. Read in the CLI's sources and its bundle, confirmed on
// Gemini CLI 0.61.0 (docs/gemini.md). A chunk is {"candidates": [{"content":
// {"role": "model", "parts": [{"text"} | {"functionCall": {"name", "args",
// "id"}}]}, "finishReason"}], "usageMetadata": {…}}.

// KindGemini is a generateContent or streamGenerateContent request.
const KindGemini = "gemini"

// GeminiShell answers a Gemini turn with a call of its shell tool,
// run_shell_command (Gemini CLI 0.61.0).
func GeminiShell(command, description string) Reply {
	in := map[string]any{"command": command}
	if description != "" {
		in["description"] = description
	}
	return ToolUse("run_shell_command", in)
}

// GeminiQuota answers a Gemini request with the 429 of an exhausted quota:
// RESOURCE_EXHAUSTED with a QuotaFailure and, when retry is not 0, a
// RetryInfo of that delay. daily names a per-day quota, which the CLI takes
// as terminal (no retry); else a per-minute one, which it retries.
func GeminiQuota(retry time.Duration, daily bool) Reply {
	quota := "GenerateRequestsPerMinutePerProjectPerModel"
	if daily {
		quota = "GenerateRequestsPerDayPerProjectPerModel"
	}
	details := []any{map[string]any{
		"@type":      "type.googleapis.com/google.rpc.QuotaFailure",
		"violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests", "quotaId": quota}},
	}}
	if retry > 0 {
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", int(retry.Seconds()))})
	}
	return Reply{Status: http.StatusTooManyRequests, ErrorBody: map[string]any{"error": map[string]any{
		"code": 429, "status": "RESOURCE_EXHAUSTED", "details": details,
		"message": "You exceeded your current quota, please check your plan and billing details.",
	}}}
}

// geminiPath splits "/v1beta/models/<model>:<method>".
func geminiPath(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		return "", "", false
	}
	model, method, ok = strings.Cut(rest, ":")
	return model, method, ok && model != ""
}

// parseGemini fills r from a generateContent body: systemInstruction as the
// system prompt, contents as messages (role "model" as "assistant"; a
// functionCall a tool_use, a functionResponse a tool_result whose text is
// its response's "output", else the response as JSON), the function
// declarations as tools.
func parseGemini(r *Request, obj map[string]any) {
	if si, ok := obj["systemInstruction"].(map[string]any); ok {
		r.System = partsText(si["parts"])
	} else if si, ok := obj["systemInstruction"].(string); ok {
		r.System = si
	}
	if gc, ok := obj["generationConfig"].(map[string]any); ok {
		mt, _ := gc["responseMimeType"].(string)
		r.JSONMode = strings.Contains(mt, "json")
	}
	if tools, ok := obj["tools"].([]any); ok {
		for _, t := range tools {
			tm, _ := t.(map[string]any)
			decls, _ := tm["functionDeclarations"].([]any)
			for _, d := range decls {
				dm, _ := d.(map[string]any)
				name, _ := dm["name"].(string)
				r.Tools = append(r.Tools, name)
			}
		}
	}
	contents, _ := obj["contents"].([]any)
	for _, cv := range contents {
		c, ok := cv.(map[string]any)
		if !ok {
			continue
		}
		msg := Message{}
		msg.Role, _ = c["role"].(string)
		if msg.Role == "model" {
			msg.Role = "assistant"
		}
		parts, _ := c["parts"].([]any)
		for _, pv := range parts {
			p, _ := pv.(map[string]any)
			switch {
			case p["functionCall"] != nil:
				fc, _ := p["functionCall"].(map[string]any)
				b := Block{Type: "tool_use"}
				b.ID, _ = fc["id"].(string)
				b.Name, _ = fc["name"].(string)
				b.Input, _ = fc["args"].(map[string]any)
				msg.Content = append(msg.Content, b)
			case p["functionResponse"] != nil:
				fr, _ := p["functionResponse"].(map[string]any)
				b := Block{Type: "tool_result"}
				b.ToolUseID, _ = fr["id"].(string)
				if b.ToolUseID == "" {
					b.ToolUseID, _ = fr["name"].(string)
				}
				resp, _ := fr["response"].(map[string]any)
				if out, ok := resp["output"].(string); ok {
					b.Text = out
				} else {
					js, _ := json.Marshal(fr["response"])
					b.Text = string(js)
				}
				_, b.IsError = resp["error"]
				msg.Content = append(msg.Content, b)
			default:
				if t, ok := p["text"].(string); ok {
					if th, _ := p["thought"].(bool); !th {
						msg.Content = append(msg.Content, Block{Type: "text", Text: t})
					}
				}
			}
		}
		r.Messages = append(r.Messages, msg)
	}
}

func partsText(v any) string {
	parts, _ := v.([]any)
	var out []string
	for _, pv := range parts {
		p, _ := pv.(map[string]any)
		if t, ok := p["text"].(string); ok {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// answerGemini writes rep for the Gemini request r: an event stream of
// chunks for streamGenerateContent, one JSON answer for generateContent.
func (s *Server) answerGemini(w http.ResponseWriter, r *Request, rep Reply) {
	if s.answerError(w, r, rep, func(typ, msg string) any {
		return map[string]any{"error": map[string]any{"code": rep.Status, "message": msg, "status": typ}}
	}) {
		return
	}
	id, blocks, u, chunk := s.prepare(r, rep, "resp_fake%04d", "call_fake%04d")
	r.Status, r.MsgID, r.Usage = http.StatusOK, id, u
	if !r.Stream {
		writeJSON(w, http.StatusOK, geminiChunk(id, r.Model, geminiParts(blocks), true, u))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	WriteGeminiStream(w, id, r.Model, blocks, u, chunk)
}

// geminiParts turns blocks into a candidate's parts.
func geminiParts(blocks []Block) []any {
	var parts []any
	for _, b := range blocks {
		if b.Type == "tool_use" {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": b.ID, "name": b.Name, "args": b.Input}})
		} else {
			parts = append(parts, map[string]any{"text": b.Text})
		}
	}
	return parts
}

// geminiChunk is one answer chunk; the last carries finishReason STOP and
// u as usageMetadata (promptTokenCount counting the cached tokens, as
// Google's do).
func geminiChunk(id, model string, parts []any, last bool, u Usage) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if last {
		cand["finishReason"] = "STOP"
	}
	out := map[string]any{"candidates": []any{cand}, "responseId": id, "modelVersion": model}
	if last {
		out["usageMetadata"] = map[string]any{
			"promptTokenCount": u.Input + u.CacheRead, "cachedContentTokenCount": u.CacheRead,
			"candidatesTokenCount": u.Output, "totalTokenCount": u.Input + u.CacheRead + u.Output,
		}
	}
	return out
}

// WriteGeminiStream writes an answer as streamGenerateContent?alt=sse does:
// "data: <chunk>" events, the text in pieces of chunk bytes, each function
// call in a chunk of its own, the last chunk with the finish reason and
// the usage.
func WriteGeminiStream(w io.Writer, id, model string, blocks []Block, u Usage, chunk int) error {
	if chunk <= 0 {
		chunk = 16
	}
	fl, _ := w.(http.Flusher)
	var werr error
	send := func(data map[string]any) {
		if werr != nil {
			return
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(data)
		_, werr = fmt.Fprintf(w, "data: %s\r\n\r\n", bytes.TrimRight(buf.Bytes(), "\n"))
		if fl != nil {
			fl.Flush()
		}
	}
	var pieces [][]any
	for _, b := range blocks {
		if b.Type == "tool_use" {
			pieces = append(pieces, geminiParts([]Block{b}))
			continue
		}
		for _, part := range split(b.Text, chunk) {
			pieces = append(pieces, []any{map[string]any{"text": part}})
		}
	}
	if len(pieces) == 0 {
		pieces = [][]any{{map[string]any{"text": ""}}}
	}
	for i, p := range pieces {
		send(geminiChunk(id, model, p, i == len(pieces)-1, u))
	}
	return werr
}

// Package fakeapi is a stand-in for the model APIs the agent CLIs call — the
// Anthropic Messages API, OpenAI's Responses API and Google's Gemini API —
// good enough for the real Claude Code, Codex and Gemini CLIs to start, reach
// their input box and take turns offline (ANTHROPIC_BASE_URL, a Codex model
// provider's base_url, GOOGLE_GEMINI_BASE_URL pointed at it).
//
// It answers
//   - POST /v1/messages (with or without ?beta=true): streaming (server-sent
//     events) when the body says "stream": true, else one JSON message;
//   - POST /v1/messages/count_tokens: {"input_tokens": N};
//   - POST /v1/responses: the Responses API's event stream (responses.go);
//   - POST /v1beta/models/<model>:streamGenerateContent (?alt=sse),
//     :generateContent and :countTokens (gemini.go);
//   - anything else: 404 with an API error body, logged and recorded.
//
// A Script decides each answer from the request, whichever API it came
// through (each request is parsed into the same Messages and Blocks; a Reply's
// tool_use becomes a Codex function_call or a Gemini functionCall); the
// default answers every turn with the text "ok". Every request is recorded (parsed body, headers of interest,
// time) and tests wait for one with WaitFor, which blocks on a condition variable,
// not a sleep.
package fakeapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Kinds of requests.
const (
	KindMessages    = "messages"
	KindCountTokens = "count_tokens"
	KindOther       = "other" // answered 404
)

// HeadersOfInterest are the request headers a Request keeps.
var HeadersOfInterest = []string{
	"Anthropic-Version", "Anthropic-Beta", "X-Api-Key", "Authorization",
	"User-Agent", "X-App", "Content-Type", "Accept", "X-Stainless-Retry-Count",
	"X-Claude-Code-Session-Id", "X-Claude-Code-Agent-Id",
}

// Request is one recorded request.
type Request struct {
	Seq      int // 1, 2, … in arrival order
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Kind     string
	Header   http.Header // only HeadersOfInterest
	RawBody  []byte
	Body     map[string]any // the body parsed as a JSON object; nil when it is not one
	Status   int            // the status the fake answered with

	// What the fake answered a messages request with (status 200): the
	// message's id and the usage it reported, so that a test knows the
	// tokens it handed out.
	MsgID string
	Usage Usage

	// Parsed from a messages or count_tokens body.
	Model    string
	Stream   bool
	System   string // the system prompt's text, blocks joined with "\n"
	Messages []Message
	Tools    []string // the names of the tools offered
	// JSONMode: a Gemini request that asks for JSON (generationConfig's
	// responseMimeType): the CLI's own side questions (which model, is the
	// turn over), not a turn of the conversation.
	JSONMode bool
}

// Message is one turn of a request's conversation.
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block. Text is the text of a text block; for a
// tool_result it is the text of its content.
type Block struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`          // tool_use
	Name      string         `json:"name,omitempty"`        // tool_use
	Input     map[string]any `json:"input,omitempty"`       // tool_use
	ToolUseID string         `json:"tool_use_id,omitempty"` // tool_result
	IsError   bool           `json:"is_error,omitempty"`    // tool_result
}

// LastUser returns the last message with role "user" (zero Message if none).
func (r Request) LastUser() Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	return Message{}
}

// Text joins the text of the message's text blocks.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResults returns the message's tool_result blocks.
func (m Message) ToolResults() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// LastUserText is the text of the last user turn (its text blocks only).
func (r Request) LastUserText() string { return r.LastUser().Text() }

// IsToolResult reports whether the last user turn carries a tool_result.
func (r Request) IsToolResult() bool { return len(r.LastUser().ToolResults()) > 0 }

// UserTexts returns the text blocks of every user turn, in order.
func (r Request) UserTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// UserTextContains reports whether the text of any user turn contains s.
func (r Request) UserTextContains(s string) bool {
	for _, t := range r.UserTexts() {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// IsTurn reports whether r is a messages request (of any of the three APIs;
// not a CLI's side question: a Codex request offering no tools, a Gemini
// one that does not stream or asks for JSON) whose conversation ends with a
// user turn: what a model answers. Messages with role "system" (Claude Code
// 2.1.328 appends one, e.g. "Today's date is …"; Codex's developer messages)
// do not count.
func (r Request) IsTurn() bool {
	switch r.Kind {
	case KindMessages:
	case KindResponses:
		// Codex 0.171.0 asks for a task title with no tools offered.
		if len(r.Tools) == 0 {
			return false
		}
	case KindGemini:
		// Gemini CLI 0.61.0's side questions (which model, a summary) are
		// generateContent calls; the conversation streams.
		if !r.Stream || r.JSONMode {
			return false
		}
	default:
		return false
	}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "system" {
			return r.Messages[i].Role == "user"
		}
	}
	return false
}

// String is a one-line summary for logs.
func (r Request) String() string {
	s := fmt.Sprintf("#%d %s %s", r.Seq, r.Method, r.Path)
	if r.RawQuery != "" {
		s += "?" + r.RawQuery
	}
	s += fmt.Sprintf(" → %d", r.Status)
	if r.Kind == KindMessages || r.Kind == KindCountTokens || r.Kind == KindResponses || r.Kind == KindGemini {
		s += fmt.Sprintf(" model=%s stream=%v msgs=%d tools=%d", r.Model, r.Stream, len(r.Messages), len(r.Tools))
		if t := r.LastUserText(); t != "" {
			s += fmt.Sprintf(" last-user=%q", clip(t, 160))
		}
		if r.IsToolResult() {
			s += fmt.Sprintf(" tool-result=%q", clip(r.LastUser().ToolResults()[0].Text, 80))
		}
	} else if len(r.RawBody) > 0 {
		s += fmt.Sprintf(" body=%q", clip(string(r.RawBody), 200))
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Reply is the fake's answer to a messages request.
type Reply struct {
	Blocks     []Block // text and tool_use blocks
	StopReason string  // "" = "tool_use" when a block is a tool_use, else "end_turn"

	// Status, when not 0 or 200, answers with this HTTP status and an API error
	// of ErrorType ("api_error" when empty) and ErrorMessage instead.
	Status       int
	ErrorType    string
	ErrorMessage string
	// ErrorBody, when not nil, is the error's JSON body as it is (the
	// forms Codex and Gemini read a usage limit from: CodexUsageLimit,
	// GeminiQuota).
	ErrorBody any

	// Header is added to the answer's headers (a rate limit's retry-after
	// and anthropic-ratelimit-* headers, say), error or not.
	Header http.Header

	// Usage, when not nil, is the usage the answer reports; else input is
	// about a quarter of the request's bytes, output a quarter of the
	// answer's text, no cache.
	Usage *Usage
}

// Usage is the token usage an answer reports, as the Messages API's usage
// object has it (cache writes split into 5-minute and 1-hour ones).
type Usage struct {
	Input, Output, CacheWrite5m, CacheWrite1h, CacheRead int
}

// json is u as the API writes it; output is the output tokens to report.
func (u Usage) json(output int) map[string]any {
	return map[string]any{
		"input_tokens": u.Input, "output_tokens": output,
		"cache_creation_input_tokens": u.CacheWrite5m + u.CacheWrite1h, "cache_read_input_tokens": u.CacheRead,
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": u.CacheWrite5m, "ephemeral_1h_input_tokens": u.CacheWrite1h},
		"service_tier":   "standard",
	}
}

// Text answers with one text block.
func Text(s string) Reply { return Reply{Blocks: []Block{{Type: "text", Text: s}}} }

// ToolUse answers with a tool_use block for tool name with input. The id is
// made up by the fake when the block's ID is empty.
func ToolUse(name string, input map[string]any) Reply {
	return Reply{Blocks: []Block{{Type: "tool_use", Name: name, Input: input}}}
}

// Bash answers with a tool_use of Claude Code's Bash tool.
func Bash(command, description string) Reply {
	in := map[string]any{"command": command}
	if description != "" {
		in["description"] = description
	}
	return ToolUse("Bash", in)
}

// Error answers with an HTTP error status and an API error body.
func Error(status int, typ, msg string) Reply {
	return Reply{Status: status, ErrorType: typ, ErrorMessage: msg}
}

// Script decides the reply to a messages request.
type Script func(Request) Reply

// Rule is one step of a Rules script.
type Rule struct {
	When  func(Request) bool
	Reply func(Request) Reply
}

// Rules is a script that answers with the first rule whose When holds (a nil When
// always holds), and with Text("ok") when none does.
func Rules(rules ...Rule) Script {
	return func(r Request) Reply {
		for _, ru := range rules {
			if ru.When == nil || ru.When(r) {
				return ru.Reply(r)
			}
		}
		return Text("ok")
	}
}

// Always makes a rule's reply a constant.
func Always(rep Reply) func(Request) Reply { return func(Request) Reply { return rep } }

// LastUserContains holds when the last user turn's text contains s.
func LastUserContains(s string) func(Request) bool {
	return func(r Request) bool { return strings.Contains(r.LastUserText(), s) }
}

// AfterToolResult holds when the last user turn carries a tool_result.
func AfterToolResult() func(Request) bool { return Request.IsToolResult }

// DefaultScript answers every request with the text "ok".
func DefaultScript(Request) Reply { return Text("ok") }

// Server is a running fake API.
type Server struct {
	URL string // http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL

	srv       *http.Server
	ln        net.Listener
	addr      string // where it listens (WithAddr)
	done      chan struct{}
	closeOnce sync.Once
	logf      func(format string, args ...any)

	mu       sync.Mutex
	cond     *sync.Cond
	script   Script
	reqs     []Request
	closed   bool
	toolSeq  int
	msgSeq   int
	chunkLen int
}

// Option configures a Server.
type Option func(*Server)

// WithLog logs one line per request (and the fake's own problems) through logf,
// e.g. t.Logf.
func WithLog(logf func(format string, args ...any)) Option {
	return func(s *Server) { s.logf = logf }
}

// WithScript sets the script from the start (nil: DefaultScript, as SetScript).
func WithScript(sc Script) Option {
	return func(s *Server) {
		if sc != nil {
			s.script = sc
		}
	}
}

// WithChunk splits streamed text and tool input into pieces of n bytes (default
// 16), as the real API sends several deltas per block.
func WithChunk(n int) Option { return func(s *Server) { s.chunkLen = n } }

// WithAddr has the fake listen on addr (host:port) instead of 127.0.0.1 on
// a free port: a test host (a network namespace) reaches it at its side of
// the host's link.
func WithAddr(addr string) Option { return func(s *Server) { s.addr = addr } }

// Start starts a fake on 127.0.0.1 on a free port (or WithAddr's).
func Start(opts ...Option) (*Server, error) {
	s := &Server{done: make(chan struct{}), script: DefaultScript, chunkLen: 16, addr: "127.0.0.1:0"}
	s.cond = sync.NewCond(&s.mu)
	for _, o := range opts {
		o(s)
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("fakeapi: listen: %w", err)
	}
	s.ln, s.URL = ln, "http://"+ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server (waiting at most 5s for requests in flight) and wakes
// every WaitFor.
func (s *Server) Close() { s.closeOnce.Do(s.close) }

func (s *Server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		s.srv.Close()
	}
	<-s.done
	s.mu.Lock()
	s.closed = true
	s.logf = nil
	s.cond.Broadcast()
	s.mu.Unlock()
}

// SetScript replaces the script for the requests that come next.
func (s *Server) SetScript(sc Script) {
	if sc == nil {
		sc = DefaultScript
	}
	s.mu.Lock()
	s.script = sc
	s.mu.Unlock()
}

// Requests returns a copy of every request recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Unhandled returns the requests answered with 404.
func (s *Server) Unhandled() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindOther {
			out = append(out, r)
		}
	}
	return out
}

// WaitFor returns the first recorded request (earlier ones included) for which
// match holds, waiting for more until ctx ends or the server closes.
func (s *Server) WaitFor(ctx context.Context, match func(Request) bool) (Request, error) {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := 0
	for {
		for ; seen < len(s.reqs); seen++ {
			if match(s.reqs[seen]) {
				return s.reqs[seen], nil
			}
		}
		if err := ctx.Err(); err != nil {
			return Request{}, fmt.Errorf("fakeapi: no matching request among %d: %w", len(s.reqs), err)
		}
		if s.closed {
			return Request{}, fmt.Errorf("fakeapi: server closed; no matching request among %d", len(s.reqs))
		}
		s.cond.Wait()
	}
}

func (s *Server) log(format string, args ...any) {
	s.mu.Lock()
	logf := s.logf
	s.mu.Unlock()
	if logf != nil {
		logf(format, args...)
	}
}

// record stores r (numbering it) and wakes waiters.
func (s *Server) record(r *Request) {
	s.mu.Lock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, *r)
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	r := Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.Path, RawQuery: hr.URL.RawQuery, Header: http.Header{}}
	for _, h := range HeadersOfInterest {
		if v := hr.Header.Values(h); len(v) > 0 {
			r.Header[h] = v
		}
	}
	body, err := readBody(w, hr)
	if err != nil {
		s.log("fakeapi: %s %s: read body: %v", hr.Method, hr.URL.Path, err)
	}
	r.RawBody = body
	gemModel, gemMethod, isGemini := geminiPath(hr.URL.Path)
	isGemini = isGemini && hr.Method == http.MethodPost
	if len(body) > 0 {
		var obj map[string]any
		if json.Unmarshal(body, &obj) == nil {
			r.Body = obj
			switch {
			case hr.URL.Path == "/v1/responses":
				parseResponses(&r, obj)
			case isGemini:
				parseGemini(&r, obj)
			default:
				parseBody(&r, obj)
			}
		}
	}
	script := func() Script {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.script
	}

	switch {
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages":
		r.Kind = KindMessages
		s.answer(w, &r, script()(r))
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
		r.Kind = KindCountTokens
		r.Status = http.StatusOK
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": estimateTokens(body)})
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/responses":
		r.Kind = KindResponses
		s.answerResponses(w, &r, script()(r))
	case isGemini && gemMethod == "countTokens":
		r.Kind = KindCountTokens
		r.Model = gemModel
		r.Status = http.StatusOK
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": estimateTokens(body)})
	case isGemini && (gemMethod == "generateContent" || gemMethod == "streamGenerateContent"):
		r.Kind = KindGemini
		r.Model = gemModel
		r.Stream = gemMethod == "streamGenerateContent"
		s.answerGemini(w, &r, script()(r))
	default:
		r.Kind = KindOther
		r.Status = http.StatusNotFound
		writeJSON(w, http.StatusNotFound, apiError("not_found_error",
			fmt.Sprintf("fakeapi: nothing answers %s %s", hr.Method, hr.URL.Path)))
	}
	s.record(&r)
	if r.Kind == KindOther {
		s.log("fakeapi: UNHANDLED %s", r)
	} else {
		s.log("fakeapi: %s", r)
	}
}

func readBody(w http.ResponseWriter, hr *http.Request) ([]byte, error) {
	var rd io.Reader = http.MaxBytesReader(w, hr.Body, 64<<20)
	if strings.EqualFold(hr.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		rd = zr
	}
	return io.ReadAll(rd)
}

// parseBody fills the parsed fields of r from a messages-like body.
func parseBody(r *Request, obj map[string]any) {
	r.Model, _ = obj["model"].(string)
	r.Stream, _ = obj["stream"].(bool)
	r.System = textOf(obj["system"])
	if tools, ok := obj["tools"].([]any); ok {
		for _, t := range tools {
			if m, ok := t.(map[string]any); ok {
				name, _ := m["name"].(string)
				r.Tools = append(r.Tools, name)
			}
		}
	}
	msgs, _ := obj["messages"].([]any)
	for _, mv := range msgs {
		m, ok := mv.(map[string]any)
		if !ok {
			continue
		}
		msg := Message{}
		msg.Role, _ = m["role"].(string)
		msg.Content = blocksOf(m["content"])
		r.Messages = append(r.Messages, msg)
	}
}

// blocksOf turns a content value (a string or a list of blocks) into blocks.
func blocksOf(v any) []Block {
	switch c := v.(type) {
	case string:
		return []Block{{Type: "text", Text: c}}
	case []any:
		var out []Block
		for _, bv := range c {
			bm, ok := bv.(map[string]any)
			if !ok {
				continue
			}
			b := Block{}
			b.Type, _ = bm["type"].(string)
			switch b.Type {
			case "text":
				b.Text, _ = bm["text"].(string)
			case "tool_use":
				b.ID, _ = bm["id"].(string)
				b.Name, _ = bm["name"].(string)
				b.Input, _ = bm["input"].(map[string]any)
			case "tool_result":
				b.ToolUseID, _ = bm["tool_use_id"].(string)
				b.IsError, _ = bm["is_error"].(bool)
				b.Text = textOf(bm["content"])
			}
			out = append(out, b)
		}
		return out
	}
	return nil
}

// textOf joins the text in a string or a list of text blocks.
func textOf(v any) string {
	var parts []string
	for _, b := range blocksOf(v) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func estimateTokens(body []byte) int { return len(body)/4 + 1 }

func apiError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_fake")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// answer writes rep for the messages request r and sets r.Status.
func (s *Server) answer(w http.ResponseWriter, r *Request, rep Reply) {
	if s.answerError(w, r, rep, func(typ, msg string) any { return apiError(typ, msg) }) {
		return
	}
	msgID, blocks, u, chunk := s.prepare(r, rep, "msg_fake%04d", "toolu_fake%04d")
	stop := rep.StopReason
	if stop == "" {
		stop = "end_turn"
		for _, b := range blocks {
			if b.Type == "tool_use" {
				stop = "tool_use"
			}
		}
	}
	model := r.Model
	if model == "" {
		model = "claude-fake"
	}
	r.Status, r.MsgID, r.Usage = http.StatusOK, msgID, u
	if !r.Stream {
		content := make([]map[string]any, len(blocks))
		for i, b := range blocks {
			content[i] = blockJSON(b, true)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": u.json(u.Output),
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", "req_fake")
	w.WriteHeader(http.StatusOK)
	WriteStream(w, msgID, model, blocks, stop, u, chunk)
}

// answerError adds rep's headers and, when rep is an error, writes it (its
// ErrorBody, else body(type, message) in the API's own form), sets r.Status
// and reports true.
func (s *Server) answerError(w http.ResponseWriter, r *Request, rep Reply, body func(typ, msg string) any) bool {
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if rep.Status == 0 || rep.Status == http.StatusOK {
		return false
	}
	typ := rep.ErrorType
	if typ == "" {
		typ = "api_error"
	}
	r.Status = rep.Status
	if rep.ErrorBody != nil {
		writeJSON(w, rep.Status, rep.ErrorBody)
	} else {
		writeJSON(w, rep.Status, body(typ, rep.ErrorMessage))
	}
	return true
}

// prepare numbers an answer (its id from idFormat) and its tool calls (ids
// from toolFormat where the block has none) and works out the usage it
// reports: rep.Usage, else input about a quarter of the request's bytes and
// output a quarter of the answer's text.
func (s *Server) prepare(r *Request, rep Reply, idFormat, toolFormat string) (id string, blocks []Block, u Usage, chunk int) {
	s.mu.Lock()
	s.msgSeq++
	id = fmt.Sprintf(idFormat, s.msgSeq)
	blocks = make([]Block, len(rep.Blocks))
	for i, b := range rep.Blocks {
		if b.Type == "tool_use" {
			if b.ID == "" {
				s.toolSeq++
				b.ID = fmt.Sprintf(toolFormat, s.toolSeq)
			}
			if b.Input == nil {
				b.Input = map[string]any{}
			}
		}
		blocks[i] = b
	}
	chunk = s.chunkLen
	s.mu.Unlock()
	u = Usage{Input: estimateTokens(r.RawBody)}
	for _, b := range blocks {
		u.Output += len(b.Text)/4 + 1
	}
	if rep.Usage != nil {
		u = *rep.Usage
	}
	return id, blocks, u, chunk
}

// blockJSON is a block as the API sends it: complete (full) or as it opens in
// content_block_start (empty text, empty input).
func blockJSON(b Block, full bool) map[string]any {
	switch b.Type {
	case "tool_use":
		in := any(map[string]any{})
		if full {
			in = b.Input
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": in}
	default:
		t := ""
		if full {
			t = b.Text
		}
		return map[string]any{"type": "text", "text": t}
	}
}

// WriteStream writes a streamed message as server-sent events: message_start, a
// ping, per block content_block_start, content_block_delta (text_delta, or
// input_json_delta for a tool_use; the text or JSON split into pieces of chunk
// bytes) and content_block_stop, then message_delta (stop reason, usage) and
// message_stop. It flushes after every event. As the API does, message_start
// reports the input side of u with 1 output token, and message_delta the
// whole of u.
func WriteStream(w io.Writer, msgID, model string, blocks []Block, stop string, u Usage, chunk int) error {
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
	startUsage := u.json(1)
	event("message_start", map[string]any{"message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
	}})
	event("ping", map[string]any{})
	for i, b := range blocks {
		event("content_block_start", map[string]any{"index": i, "content_block": blockJSON(b, false)})
		if b.Type == "tool_use" {
			js, _ := json.Marshal(b.Input)
			for _, part := range split(string(js), chunk) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		} else {
			for _, part := range split(b.Text, chunk) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": u.json(u.Output),
	})
	event("message_stop", map[string]any{})
	return werr
}

// split cuts s into pieces of about n bytes without splitting a UTF-8 sequence.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && !utf8Start(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

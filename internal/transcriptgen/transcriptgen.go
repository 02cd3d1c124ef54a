// Package transcriptgen writes realistic Claude Code transcripts for tests
// and benchmarks: compact JSON lines shaped as Claude Code 2.1.328 and
// 2.1.332 write them (copied from real transcripts; docs/claude-code.md),
// with the other line types interleaved (user prompts, attachments, API
// request records, tool results, queue operations), several models, a
// response with several content blocks written on one line per block (the
// same message.id and usage on each), subagents' files beside a session's
// (isSidechain), and optionally a last line cut short. It knows what it wrote:
// each session's totals, counted once per response, for tests to compare
// readers against.
package transcriptgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Tokens are the totals of one kind of token, as usage sums them.
type Tokens struct {
	Input, Output, CacheWrite, CacheWrite1h, CacheRead int64
}

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheWrite += u.CacheWrite
	t.CacheWrite1h += u.CacheWrite1h
	t.CacheRead += u.CacheRead
}

// Session is one session written: its id, files, and what its responses
// used (each counted once), in total and per model.
type Session struct {
	ID        string
	Main      string   // its transcript
	Subagents []string // its subagents' transcripts
	Responses int      // distinct responses, subagents' included
	Total     Tokens
	ByModel   map[string]Tokens
}

// Options says what to write.
type Options struct {
	Seed     uint64
	Sessions int      // how many sessions
	Turns    int      // responses per session (the main thread's), at least 1
	Models   []string // picked per response; default claude-sonnet-4-5, claude-opus-4-5, claude-haiku-4-5
	Cwd      string   // the sessions' working folder (its escaped name is the project folder)
	Version  string   // Claude Code's version on each line; default 2.1.332

	Subagents     int  // subagent files per session, each with Turns/2+1 responses
	TruncateLast  bool // cut each main transcript's last line (a response) in the middle
	NoRequestID   bool // write responses without requestId (what a gateway sending no request-id header gives)
	PaddingBytes  int  // about this many bytes of tool output per turn (most of a real transcript's bytes); default 2000
	Start         time.Time
	TimeStep      time.Duration // between turns; default 7 s
	TeamName      string        // with AgentName: lines of a teammate
	AgentName     string
	FixedSessions []string // session ids to use, in order, before random ones
}

// Write writes the transcripts under configDir/projects and returns what it
// wrote, session by session.
func Write(configDir string, o Options) ([]Session, error) {
	if len(o.Models) == 0 {
		o.Models = []string{"claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"}
	}
	if o.Cwd == "" {
		o.Cwd = "/work/project"
	}
	if o.Version == "" {
		o.Version = "2.1.332"
	}
	if o.Turns < 1 {
		o.Turns = 1
	}
	if o.PaddingBytes == 0 {
		o.PaddingBytes = 2000
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	}
	if o.TimeStep == 0 {
		o.TimeStep = 7 * time.Second
	}
	g := &gen{o: o, rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	dir := filepath.Join(configDir, "projects", EscapeCwd(o.Cwd))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transcriptgen: %w", err)
	}
	var out []Session
	for i := range o.Sessions {
		id := g.uuid()
		if i < len(o.FixedSessions) {
			id = o.FixedSessions[i]
		}
		s, err := g.session(dir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// EscapeCwd is the project folder name Claude Code makes of a cwd: every
// character but a letter or digit becomes "-". (For writing test files only:
// readers find transcripts by session id.)
func EscapeCwd(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

type gen struct {
	o    Options
	rnd  *rand.Rand
	msg  int
	tool int
	now  time.Time
}

func (g *gen) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rnd.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rnd.IntN(16)]
	}
	return string(b)
}

func (g *gen) ts() string {
	g.now = g.now.Add(time.Duration(1+g.rnd.IntN(900)) * time.Millisecond)
	return g.now.UTC().Format("2006-01-02T15:04:05.000Z")
}

// file is one transcript being written.
type file struct {
	buf       bytes.Buffer
	session   string
	agentID   string // a subagent's id; "" for a session's own file
	parent    string // the last line's uuid
	sidechain bool
}

// line writes one compact JSON object (keys in the order given).
func (f *file) line(kv ...any) {
	f.buf.WriteString(obj(kv...))
	f.buf.WriteByte('\n')
}

// obj is a compact JSON object of key, value pairs, in that order; a value
// of type raw is written as it is.
func obj(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		b.Write(k)
		b.WriteByte(':')
		if r, ok := kv[i+1].(raw); ok {
			b.WriteString(string(r))
			continue
		}
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		enc.Encode(kv[i+1])
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.String()
}

type raw string

func (g *gen) common(f *file, kv ...any) []any {
	out := []any{"parentUuid", nullOr(f.parent), "isSidechain", f.sidechain}
	if f.agentID != "" {
		out = append(out, "agentId", f.agentID)
	}
	if g.o.TeamName != "" && !f.sidechain {
		out = append(out, "teamName", g.o.TeamName, "agentName", g.o.AgentName)
	}
	return append(out, kv...)
}

func (g *gen) tail(f *file, uuid string) []any {
	return []any{"uuid", uuid, "timestamp", g.ts(), "userType", "external", "entrypoint", "cli", "cwd", g.o.Cwd,
		"sessionId", f.session, "version", g.o.Version, "gitBranch", "HEAD"}
}

func nullOr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// session writes one session's transcript and its subagents'.
func (g *gen) session(dir, id string) (Session, error) {
	s := Session{ID: id, ByModel: map[string]Tokens{}, Main: filepath.Join(dir, id+".jsonl")}
	g.now = g.o.Start.Add(time.Duration(g.rnd.IntN(3600)) * time.Second)
	f := &file{session: id}
	f.line("type", "mode", "mode", "normal", "sessionId", id)
	f.line("type", "permission-mode", "permissionMode", "acceptEdits", "sessionId", id)
	for t := range g.o.Turns {
		g.turn(f, &s, t)
	}
	if g.o.TruncateLast {
		// Claude Code killed while it wrote a response: the line is cut
		// short, with no newline; the response is not counted.
		model := g.o.Models[g.rnd.IntN(len(g.o.Models))]
		lines := g.response(f, model, 1, Tokens{Input: 5, Output: 50, CacheRead: 1000})
		cut := lines[0][:len(lines[0])/2]
		f.buf.WriteString(cut)
	}
	if err := os.WriteFile(s.Main, f.buf.Bytes(), 0o600); err != nil {
		return s, fmt.Errorf("transcriptgen: %w", err)
	}
	for range g.o.Subagents {
		agent := g.hex(17)
		sub := &file{session: id, agentID: agent, sidechain: true}
		for t := range g.o.Turns/2 + 1 {
			g.turn(sub, &s, t)
		}
		sdir := filepath.Join(dir, id, "subagents")
		if err := os.MkdirAll(sdir, 0o700); err != nil {
			return s, fmt.Errorf("transcriptgen: %w", err)
		}
		p := filepath.Join(sdir, "agent-"+agent+".jsonl")
		if err := os.WriteFile(p, sub.buf.Bytes(), 0o600); err != nil {
			return s, fmt.Errorf("transcriptgen: %w", err)
		}
		meta := obj("agentType", "general-purpose", "isBuiltIn", true, "description", "Dig", "toolUseId", fmt.Sprintf("toolu_gen%06d", g.tool),
			"spawnDepth", 1, "model", g.o.Models[0], "finished", true)
		if err := os.WriteFile(filepath.Join(sdir, "agent-"+agent+".meta.json"), []byte(meta), 0o600); err != nil {
			return s, fmt.Errorf("transcriptgen: %w", err)
		}
		s.Subagents = append(s.Subagents, p)
	}
	return s, nil
}

// turn writes a prompt, the records Claude Code keeps of its request, the
// response (on one line per content block) and, when it used a tool, the
// tool's result.
func (g *gen) turn(f *file, s *Session, t int) {
	prompt := g.uuid()
	f.line(append(g.common(f, "promptId", prompt, "type", "user", "message", map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d: look at the code and report.", t)}), g.tail(f, g.uuid())...)...)
	f.line(append(g.common(f, "attachment", map[string]any{"type": "session_context", "context": map[string]any{}}, "type", "attachment"), g.tail(f, g.uuid())...)...)
	f.line("type", "atis-latch", "atis", "", "sessionId", f.session)
	reqID := g.uuid()
	f.line("type", "api-request", "sessionId", f.session, "id", reqID, "timestamp", g.ts(), "version", g.o.Version, "querySource", "repl_main_thread",
		"shapeHash", g.hex(64), "params", map[string]any{"model": g.o.Models[0], "max_tokens": 64000, "betas": []string{"claude-code-20250219", "interleaved-thinking-2025-05-14"}})
	f.line("type", "api-request-blob", "sessionId", f.session, "hash", g.hex(64), "message", map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>\nA reminder the session carries. It mentions \"type\":\"assistant\" in passing.\n</system-reminder>\n"}}})
	model := g.o.Models[g.rnd.IntN(len(g.o.Models))]
	u := Tokens{Input: int64(1 + g.rnd.IntN(40)), Output: int64(5 + g.rnd.IntN(1500)), CacheRead: int64(g.rnd.IntN(150_000))}
	if g.rnd.IntN(3) > 0 {
		u.CacheWrite = int64(g.rnd.IntN(20_000))
		if g.rnd.IntN(2) == 0 {
			u.CacheWrite1h = int64(g.rnd.IntN(int(u.CacheWrite) + 1))
		}
	}
	blocks := 1 + g.rnd.IntN(3)
	for _, ln := range g.response(f, model, blocks, u) {
		f.buf.WriteString(ln)
		f.buf.WriteByte('\n')
	}
	s.Responses++
	s.Total.Add(u)
	m := s.ByModel[model]
	m.Add(u)
	s.ByModel[model] = m
	// The tool's result: most of a transcript's bytes.
	pad := strings.Repeat("func main() { fmt.Println(\"hello\") } // \u00e9\\ ", g.o.PaddingBytes/44+1)
	tool := fmt.Sprintf("toolu_gen%06d", g.tool)
	f.line(append(g.common(f, "promptId", prompt, "type", "user", "message", map[string]any{"role": "user", "content": []any{
		map[string]any{"tool_use_id": tool, "type": "tool_result", "content": pad}}},
		"toolUseResult", map[string]any{"stdout": pad, "stderr": "", "interrupted": false, "nested": map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_not_a_response"}}}), g.tail(f, g.uuid())...)...)
	if t%3 == 2 {
		f.line("type", "queue-operation", "operation", "enqueue", "timestamp", g.ts(), "sessionId", f.session, "content", "<task-notification>\n<result>done</result>\n</task-notification>")
		f.line("type", "last-prompt", "lastPrompt", "look at the code", "leafUuid", g.uuid(), "sessionId", f.session)
	}
}

// response returns the lines of one response: one per content block, each
// with the same message (id, model, usage) and its block.
func (g *gen) response(f *file, model string, blocks int, u Tokens) []string {
	g.msg++
	id := fmt.Sprintf("msg_gen%s%06d", g.hex(6), g.msg)
	reqRef, reqID := g.uuid(), "req_"+g.hex(24)
	usage := raw(obj("input_tokens", u.Input, "cache_creation_input_tokens", u.CacheWrite, "cache_read_input_tokens", u.CacheRead,
		"output_tokens", u.Output, "output_tokens_details", raw(`{"thinking_tokens":0}`),
		"server_tool_use", raw(`{"web_search_requests":0,"web_fetch_requests":0}`), "service_tier", "standard",
		"cache_creation", raw(obj("ephemeral_1h_input_tokens", u.CacheWrite1h, "ephemeral_5m_input_tokens", u.CacheWrite-u.CacheWrite1h)),
		"inference_geo", "", "iterations", raw("[]"), "speed", "standard", "fallback_credit", nil))
	var out []string
	for b := range blocks {
		var content raw
		stop := "end_turn"
		if b == blocks-1 && blocks > 1 {
			g.tool++
			content = raw(obj("type", "tool_use", "id", fmt.Sprintf("toolu_gen%06d", g.tool), "name", "Bash",
				"input", map[string]any{"command": "go test ./...", "description": "Run the tests"}))
			stop = "tool_use"
		} else {
			content = raw(obj("text", fmt.Sprintf("Looking at block %d of the work; \"quoted\" and \\ escaped.", b), "type", "text"))
		}
		msg := raw(obj("content", raw("["+string(content)+"]"), "id", id, "model", model, "role", "assistant",
			"stop_reason", stop, "stop_sequence", nil, "type", "message", "usage", usage, "stop_details", nil))
		uuid := g.uuid()
		kv := g.common(f, "message", msg, "apiBlockIndex", b)
		if !g.o.NoRequestID {
			kv = append(kv, "requestId", reqID)
		}
		kv = append(kv, "requestRef", reqRef, "requestedModel", model, "promptCacheRequested", "5m", "type", "assistant")
		kv = append(kv, g.tail(f, uuid)...)
		out = append(out, obj(kv...))
		f.parent = uuid
	}
	return out
}

package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A response line as Claude Code 2.1.332 writes it (from a real transcript,
// content shortened).
const realLine = `{"parentUuid":"962877aa-6ccd-44cc-bfd7-bb6fd42081c9","isSidechain":false,"message":{"content":[{"text":"Spawning helper and a subagent.","type":"text"}],"id":"msg_fake0001","model":"claude-opus-5-5","role":"assistant","stop_reason":"tool_use","stop_sequence":null,"type":"message","usage":{"input_tokens":1001,"cache_creation_input_tokens":342,"cache_read_input_tokens":5001,"output_tokens":21,"output_tokens_details":{"thinking_tokens":0},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":41,"ephemeral_5m_input_tokens":301},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null},"stop_details":null},"apiBlockIndex":0,"requestId":"req_fake","requestRef":"23e7b04a-0d9f-44e3-b0ff-4ed014a1363f","requestedModel":"claude-opus-5-5","promptCacheRequested":"5m","type":"assistant","uuid":"03e5ca0e-7fbe-4edd-a48a-3f1e627f9360","timestamp":"2026-12-02T04:06:37.311Z","effort":"medium","session_id":"517be5a1-5e35-427f-9497-8adf0e89d3df","userType":"external","entrypoint":"cli","cwd":"/tmp/w","sessionId":"517be5a1-5e35-427f-9497-8adf0e89d3df","version":"2.1.332","gitBranch":"HEAD"}`

func TestParseRealLine(t *testing.T) {
	r, kind, capped := parseLine([]byte(realLine))
	if kind != lineResponse || capped != "" {
		t.Fatalf("kind %v capped %q", kind, capped)
	}
	want := Response{MessageID: "msg_fake0001", RequestID: "req_fake", Model: "claude-opus-5-5",
		Time: time.Date(2026, 12, 2, 4, 6, 37, 311e6, time.UTC), SessionID: "517be5a1-5e35-427f-9497-8adf0e89d3df",
		Usage: Usage{Input: 1001, Output: 21, CacheWrite: 342, CacheRead: 5001, Split: true, CacheWrite5m: 301, CacheWrite1h: 41}}
	if r != want {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
}

// spaced is line as a JSON writer that puts spaces after colons and commas
// writes it (Python's json.dumps, jq -c with --indent 0 aside): the same
// JSON.
func spaced(t *testing.T, line string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(line), "", ""); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// TestParseLineSpaced (issue 31: usage read a transcript written with spaces
// after the colons as zero): the decoder reads each line as the fast walk
// does, and a line spaced out reads as its compact self.
func TestParseLineSpaced(t *testing.T) {
	lines := []string{realLine, rateLimitLine,
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-5,"output_tokens":3}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"cache_read_input_tokens":99999999999}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":"many"}}}`,
		`{"type":"assistant","isSidechain":true,"agentName":"alice","teamName":"t","message":{"id":"m2","model":"x","usage":{"input_tokens":1e3,"cache_creation":null}}}`,
		`{"type":"assistant","message":"not an object"}`,
		`{"type":"assistant","message":{"id":"m"}}`,
		`{"type":"user","message":{"role":"assistant","content":"hi"}}`,
	}
	for _, line := range lines {
		want, wk, wc := parseLine([]byte(line))
		f, err := decodeLine([]byte(line))
		var got Response
		var gk lineKind
		var gc string
		if err != nil {
			gk = lineMalformed
		} else {
			got, gk, gc = f.response()
		}
		if !sameResponse(got, want) || gk != wk || gc != wc {
			t.Errorf("decoded %+v %v %q\nwalked  %+v %v %q\nof %s", got, gk, gc, want, wk, wc, line)
		}
		sp := spaced(t, line)
		got, gk, gc = parseLine([]byte(sp))
		if !sameResponse(got, want) || gk != wk || gc != wc {
			t.Errorf("spaced  %+v %v %q\ncompact %+v %v %q\nof %s", got, gk, gc, want, wk, wc, sp)
		}
	}
}

func sameResponse(a, b Response) bool {
	if (a.APIError == nil) != (b.APIError == nil) || (a.APIError != nil && *a.APIError != *b.APIError) {
		return false
	}
	a.APIError, b.APIError = nil, nil
	return a == b
}

func TestParseLineKinds(t *testing.T) {
	for _, c := range []struct {
		name, line string
		kind       lineKind
		capped     string
	}{
		{"user line", `{"type":"user","message":{"role":"user","content":"hi"}}`, lineOther, ""},
		{"nested assistant in a tool result", `{"type":"user","toolUseResult":{"type":"assistant","message":{"id":"x","usage":{"input_tokens":5}}}}`, lineOther, ""},
		{"nested assistant after the user's type, its tail not walked", `{"type":"user","toolUseResult":{"type":"assistant"}, broken}`, lineOther, ""},
		{"nested assistant before the user's type", `{"toolUseResult":{"type":"assistant","message":{"id":"x","usage":{"input_tokens":5}}},"type":"user"}`, lineOther, ""},
		{"a second top-level type: the first, not a response's, decides", `{"type":"user","type":"assistant","message":{"id":"m","usage":{"input_tokens":5}}}`, lineOther, ""},
		{"a second top-level type after a response's: the last decides", `{"type":"assistant","message":{"id":"m","usage":{"input_tokens":5}},"type":"user"}`, lineOther, ""},
		{"a response's, broken after its type", `{"type":"assistant","message":{"id":"m"},"x":[}`, lineMalformed, ""},
		{"spaced, a second top-level type: the first, not a response's, decides", `{"type": "user", "n": 1, "type": "assistant", "message": {"id": "m"}}`, lineOther, ""},
		{"spaced, a user's, its tail not read", `{"isSidechain": false, "type": "user", "message": {"role": "assistant"}, broken}`, lineOther, ""},
		{"a nested user's type before the top-level one", `{"a":{"type":"user"},"type":"assistant","message":{"id":"m"}}`, lineResponse, ""},
		{"mark in a string", `{"type":"user","message":{"content":"say \"type\":\"assistant\" please"}}`, lineOther, ""},
		{"unknown fields", `{"zzz":[1,{"a":"}"}],"type":"assistant","message":{"id":"m","model":"x","new":{"deep":[]},"usage":{"input_tokens":1,"future_tokens":9}}}`, lineResponse, ""},
		{"cut short", realLine[:400], lineMalformed, ""},
		{"two objects glued", realLine + realLine, lineMalformed, ""},
		{"not an object", `["type","assistant"]`, lineMalformed, ""},
		{"usage not numbers", `{"type":"assistant","message":{"id":"m","usage":{"input_tokens":"many"}}}`, lineMalformed, ""},
		{"negative", `{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-5,"output_tokens":3}}}`, lineResponse, "input_tokens -5 taken as 0"},
		{"absurd", `{"type":"assistant","message":{"id":"m","usage":{"cache_read_input_tokens":99999999999}}}`, lineResponse, "cache_read_input_tokens 99999999999 capped at 10000000"},
		{"empty", ``, lineOther, ""},
		{"spaces (not compact): valid JSON all the same", `{"type": "assistant", "message": {"id": "m"}}`, lineResponse, ""},
		{"spaces, and a user's", `{"type": "user", "message": {"role": "assistant"}}`, lineOther, ""},
		{"spaces, not valid JSON", `{"type": "assistant", "message": {"id": "m",}}`, lineMalformed, ""},
		{"spaces, usage not numbers", `{"type": "assistant", "message": {"id": "m", "usage": {"input_tokens": "many"}}}`, lineMalformed, ""},
		{"spaces around it", "  " + realLine + " \r", lineResponse, ""},
	} {
		_, kind, capped := parseLine([]byte(c.line))
		if kind != c.kind || capped != c.capped {
			t.Errorf("%s: kind %v capped %q, want %v %q", c.name, kind, capped, c.kind, c.capped)
		}
	}
	r, _, _ := parseLine([]byte(`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-5,"output_tokens":3}}}`))
	if r.Usage.Input != 0 || r.Usage.Output != 3 {
		t.Errorf("negative count not capped: %+v", r.Usage)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(s)
}

func resp(id string, in int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":"m","usage":{"input_tokens":%d}},"timestamp":"2026-12-02T04:06:37.311Z"}`, id, in)
}

func readAll(t *testing.T, f *Follower) ([]Response, Stats) {
	t.Helper()
	var got []Response
	st, err := f.Read(func(r Response) { got = append(got, r) })
	if err != nil {
		t.Fatal(err)
	}
	return got, st
}

// TestFollowerIncremental: each Read takes the lines added since the last;
// a partial last line waits for its end; malformed lines are skipped and
// counted, with their line numbers.
func TestFollowerIncremental(t *testing.T) {
	p := filepath.Join(t.TempDir(), "projects", "-w", "s.jsonl")
	write(t, p, resp("a", 1)+"\n"+`{"type":"user"}`+"\n"+"garbage\n"+resp("b", 2)[:20])
	f := NewFollower(p)
	got, st := readAll(t, f)
	if len(got) != 1 || got[0].MessageID != "a" || st.Malformed != 1 || st.Lines != 3 || len(st.Problems) != 1 || !strings.HasPrefix(st.Problems[0], "line 3: malformed") {
		t.Fatalf("first read: %+v %+v", got, st)
	}
	appendTo(t, p, resp("b", 2)[20:]+"\n")
	got, st = readAll(t, f)
	if len(got) != 1 || got[0].MessageID != "b" || got[0].Usage.Input != 2 || st.Lines != 1 {
		t.Fatalf("second read: %+v %+v", got, st)
	}
	if got, st = readAll(t, f); len(got) != 0 || st.Bytes != 0 {
		t.Fatalf("third read, nothing new: %+v %+v", got, st)
	}
}

// TestFollowerReplacedOrTruncated: a file replaced (another inode) or
// truncated is read again from the start, OnRestart first.
func TestFollowerReplacedOrTruncated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "projects", "-w")
	p := filepath.Join(dir, "s.jsonl")
	write(t, p, resp("a", 1)+"\n"+resp("b", 2)+"\n")
	f := NewFollower(p)
	restarts := 0
	f.OnRestart = func() { restarts++ }
	readAll(t, f)
	// Replaced while being followed: a new file renamed over it, longer.
	tmp := filepath.Join(dir, "new")
	write(t, tmp, resp("c", 3)+"\n"+resp("d", 4)+"\n"+resp("e", 5)+"\n")
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	got, st := readAll(t, f)
	if !st.Restarted || restarts != 1 || len(got) != 3 || got[0].MessageID != "c" {
		t.Fatalf("after replace: %+v %+v restarts %d", got, st, restarts)
	}
	// Truncated in place, then written again shorter.
	write(t, p, resp("z", 9)+"\n")
	got, st = readAll(t, f)
	if !st.Restarted || restarts != 2 || len(got) != 1 || got[0].MessageID != "z" {
		t.Fatalf("after truncate: %+v %+v", got, st)
	}
}

// TestFollowerLongLine: a line over the cap is skipped and said, and the
// lines after it are read; it is streamed past, not held.
func TestFollowerLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB line")
	}
	p := filepath.Join(t.TempDir(), "projects", "-w", "s.jsonl")
	long := `{"type":"user","message":{"content":"` + strings.Repeat("x", 50<<20) + `"}}`
	write(t, p, resp("a", 1)+"\n"+long+"\n"+resp("b", 2)+"\n")
	f := NewFollower(p)
	got, st := readAll(t, f)
	if len(got) != 2 || st.TooLong != 1 || st.Lines != 3 || len(st.Problems) != 1 || !strings.Contains(st.Problems[0], "line 2: 52428840 bytes, over the 33554432-byte cap") {
		t.Fatalf("%+v %+v", got, st)
	}
	if b := chunks.Get().(*[]byte); cap(*b) > readChunk {
		t.Errorf("kept a buffer of %d bytes after the read", cap(*b))
	}
	// A long line still being written (no newline yet) waits, then is
	// skipped once complete.
	f2 := NewFollower(p + "2")
	write(t, p+"2", long[:40<<20])
	if got, st = readAll(t, f2); len(got) != 0 || st.TooLong != 0 || f2.Offset() != 0 {
		t.Fatalf("unfinished long line: %+v %+v offset %d", got, st, f2.Offset())
	}
	appendTo(t, p+"2", long[40<<20:]+"\n"+resp("c", 3)+"\n")
	if got, st = readAll(t, f2); len(got) != 1 || st.TooLong != 1 {
		t.Fatalf("finished long line: %+v %+v", got, st)
	}
}

// TestFollowerRefusesLinksAndFIFOs: a transcript that is a symlink, lies
// under a symlinked folder, or is a FIFO is refused, not followed (and a
// FIFO does not hold the read).
func TestFollowerRefusesLinksAndFIFOs(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "elsewhere.jsonl")
	write(t, real, resp("a", 1)+"\n")
	dir := filepath.Join(root, "projects", "-w")
	os.MkdirAll(dir, 0o700)
	link := filepath.Join(dir, "l.jsonl")
	os.Symlink(real, link)
	fifo := filepath.Join(dir, "f.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(root, "projects", "-w"), filepath.Join(root, "projects", "-linked"))
	under := filepath.Join(root, "projects", "-linked", "x", "subagents", "a.jsonl")
	write(t, filepath.Join(dir, "x", "subagents", "a.jsonl"), resp("b", 1)+"\n")
	for _, p := range []string{link, fifo, under} {
		_, err := NewFollower(p).Read(func(Response) { t.Errorf("%s: read a response", p) })
		if !IsRefused(err) {
			t.Errorf("%s: %v, want refused", p, err)
		}
	}
	if _, err := NewFollower(filepath.Join(dir, "missing.jsonl")).Read(func(Response) {}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestFind(t *testing.T) {
	cfg := t.TempDir()
	id := "0123abcd-0000-4000-8000-000000000000"
	write(t, filepath.Join(cfg, "projects", "-w", id+".jsonl"), "")
	write(t, filepath.Join(cfg, "projects", "-w", id, "subagents", "agent-a1.jsonl"), "")
	write(t, filepath.Join(cfg, "projects", "-w", id, "subagents", "agent-a1.meta.json"), "{}")
	write(t, filepath.Join(cfg, "projects", "-w", "1123abcd-0000-4000-8000-000000000000.jsonl"), "")
	f, err := Find(cfg, id)
	if err != nil || len(f.Main) != 1 || len(f.Subagents) != 1 || !strings.HasSuffix(f.Subagents[0], "agent-a1.jsonl") {
		t.Fatalf("%+v %v", f, err)
	}
	// In a second project folder too (a session resumed elsewhere), beside
	// a file in projects/ that is no folder.
	write(t, filepath.Join(cfg, "projects", "-v", id+".jsonl"), "")
	write(t, filepath.Join(cfg, "projects", "-v", id, "subagents", "agent-b2.jsonl"), "")
	write(t, filepath.Join(cfg, "projects", "stray"), "")
	f, err = Find(cfg, id)
	want := Files{
		Main:      []string{filepath.Join(cfg, "projects", "-v", id+".jsonl"), filepath.Join(cfg, "projects", "-w", id+".jsonl")},
		Subagents: []string{filepath.Join(cfg, "projects", "-v", id, "subagents", "agent-b2.jsonl"), filepath.Join(cfg, "projects", "-w", id, "subagents", "agent-a1.jsonl")},
	}
	if err != nil || !slices.Equal(f.Main, want.Main) || !slices.Equal(f.Subagents, want.Subagents) {
		t.Fatalf("two project folders: %+v %v, want %+v", f, err, want)
	}
	// Subagents: those beside the main transcripts Find found, what Find
	// finds of them (a Meter's look between two Finds).
	if subs, err := Subagents(f.Main, id); err != nil || !slices.Equal(subs, want.Subagents) {
		t.Errorf("subagents: %q %v, want %q", subs, err, want.Subagents)
	}
	if subs, err := Subagents([]string{filepath.Join(cfg, "projects", "-x", id+".jsonl")}, id); err != nil || len(subs) != 0 {
		t.Errorf("subagents of no folder: %q %v", subs, err)
	}
	if _, err := Subagents(f.Main, "../x"); !errors.Is(err, ErrInvalidSession) {
		t.Errorf("subagents of a bad id: %v", err)
	}
	if f, err := Find(filepath.Join(cfg, "none"), id); err != nil || len(f.All()) != 0 {
		t.Errorf("no projects folder: %+v %v", f, err)
	}
	for _, bad := range []string{"../x", "*", "0123ABCD-0000-4000-8000-000000000000", ""} {
		if _, err := Find(cfg, bad); !errors.Is(err, ErrInvalidSession) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestFindTeam(t *testing.T) {
	cfg := t.TempDir()
	a, b := "0123abcd-0000-4000-8000-000000000000", "1123abcd-0000-4000-8000-000000000000"
	write(t, filepath.Join(cfg, "projects", "-w", a+".jsonl"), `{"type":"mode"}`+"\n"+`{"parentUuid":null,"isSidechain":false,"teamName":"session-517be5a1","agentName":"helper","type":"user"}`+"\n")
	write(t, filepath.Join(cfg, "projects", "-w", b+".jsonl"), `{"isSidechain":false,"teamName":"session-00000000","agentName":"other","type":"user"}`+"\n")
	got, err := FindTeam(cfg, []string{"session-517be5a1"}, time.Time{})
	if err != nil || len(got) != 1 || len(got["helper"]) != 1 || got["helper"][0] != a {
		t.Fatalf("%v %v", got, err)
	}
}

// The message Claude Code 2.1.332 writes when it gives up on a 429 (from a
// real transcript against the fake Messages API; 2.1.328 writes the same
// fields).
const rateLimitLine = `{"parentUuid":"a409ccdb-6842-4c3f-8978-92c91f6fd368","isSidechain":false,"type":"assistant","uuid":"70c01970-2097-451a-b461-42b7e1e6117e","timestamp":"2026-12-02T04:58:00.456Z","message":{"diagnostics":null,"id":"4b9eab7e-d068-453d-93d9-99b284c79a4e","container":null,"model":"<synthetic>","role":"assistant","stop_details":null,"stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{"output_tokens_details":null,"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":null,"cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":null,"iterations":null,"speed":null,"fallback_credit":null},"content":[{"type":"text","text":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}],"context_management":null},"requestId":"req_fake","apiErrorIsTransient":false,"error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"apiErrorType":"rate_limit_error","perTurnEffort":"medium","failedResponseHadNoToolCall":true,"madeBy":"model","session_id":"5d7294e7-1521-4ffa-87f3-fbd36a2cfbaf","userType":"external","entrypoint":"cli","cwd":"/tmp/w","sessionId":"5d7294e7-1521-4ffa-87f3-fbd36a2cfbaf","version":"2.1.332","gitBranch":"HEAD"}`

func TestParseAPIError(t *testing.T) {
	r, kind, _ := parseLine([]byte(rateLimitLine))
	if kind != lineResponse || r.Model != "<synthetic>" {
		t.Fatalf("kind %v model %q", kind, r.Model)
	}
	if r.APIError == nil || *r.APIError != (APIError{Status: 429, Type: "rate_limit_error", Kind: "rate_limit"}) || !r.APIError.RateLimit() {
		t.Errorf("api error %+v", r.APIError)
	}
	auth, _, _ := parseLine([]byte(`{"type":"assistant","isApiErrorMessage":true,"apiErrorStatus":401,"apiErrorType":"authentication_error","error":"authentication_failed","message":{"id":"m","model":"<synthetic>"}}`))
	if auth.APIError == nil || auth.APIError.RateLimit() {
		t.Errorf("401 taken for a limit: %+v", auth.APIError)
	}
	if ok, _, _ := parseLine([]byte(realLine)); ok.APIError != nil || ok.APIError.RateLimit() {
		t.Errorf("a response taken for an error: %+v", ok.APIError)
	}
}

// TestFollowerSaysEverySkippedLine: a transcript written with spaces after
// its colons counts as the compact one (issue 31), and past the first few
// problems described, the rest are counted in a last line: no skipped line
// goes unsaid.
func TestFollowerSaysEverySkippedLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "projects", "-w", "s.jsonl")
	content := spaced(t, resp("a", 7)) + "\n" + strings.Repeat("garbage\n", maxProblems+3)
	write(t, p, content)
	got, st := readAll(t, NewFollower(p))
	if len(got) != 1 || got[0].Usage.Input != 7 {
		t.Errorf("the spaced response: %+v", got)
	}
	if st.Malformed != maxProblems+3 || len(st.Problems) != maxProblems+1 || st.Problems[maxProblems] != "3 more lines skipped or capped" {
		t.Errorf("malformed %d, problems %q", st.Malformed, st.Problems)
	}
}

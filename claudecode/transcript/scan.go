package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// assistantMark is in every line of a model's response, compact as Claude
// Code writes it; a line without it is skipped unparsed, which is most of a
// transcript's bytes (requests, tool results, attachments).
var assistantMark = []byte(`"type":"assistant"`)

// markTail is the end of assistantMark, what a line is searched for: found
// four times faster (seen: 9 GB/s against 2.2 on a 16 KB line), as the
// search starts at each ':' and not at each '"', of which JSON is full. A
// line that has it is parsed, and the parse says whether it is a response.
var markTail = assistantMark[len(`"type"`):]

// MaxTokens is the most of one kind a single response is taken to have used
// (10 M: a context window is 1 M); a count above it, or below 0, is capped
// and said, so that one corrupt line cannot make a bill of millions.
const MaxTokens = 10_000_000

// lineKind is what parseLine made of a line.
type lineKind int

const (
	lineOther     lineKind = iota // not a response: skipped
	lineResponse                  // a response with its usage
	lineMalformed                 // not one JSON object, or a response whose usage is not numbers
)

var errSyntax = errors.New("not one JSON object")

// errOther ends a line's walk once it is known not to be a response.
var errOther = errors.New("not a response")

// assistantWord is in every response line however it is spaced: a line
// without markTail but with it may be a response written with spaces after
// its colons (valid JSON all the same), which the decoder reads.
var assistantWord = []byte(`"assistant"`)

// fields are what a line's parse found of the keys teamctl uses, before
// they are made a Response.
type fields struct {
	r                       Response
	typ, message, ts, usage []byte
	isAPIError              bool
	apiErr                  APIError
}

// top takes one top-level key of a line.
func (f *fields) top(key, val []byte) {
	switch string(key) {
	case "type":
		f.typ = val
	case "timestamp":
		f.ts = val
	case "isSidechain":
		f.r.Sidechain = string(val) == "true"
	case "requestId":
		f.r.RequestID = unquote(val)
	case "sessionId":
		f.r.SessionID = unquote(val)
	case "agentName":
		f.r.AgentName = unquote(val)
	case "teamName":
		f.r.TeamName = unquote(val)
	case "isApiErrorMessage":
		f.isAPIError = string(val) == "true"
	case "apiErrorStatus":
		f.apiErr.Status, _ = strconv.Atoi(string(val))
	case "apiErrorType":
		f.apiErr.Type = unquote(val)
	case "error":
		f.apiErr.Kind = unquote(val)
	}
}

// inMessage takes one key of a line's message.
func (f *fields) inMessage(key, val []byte) {
	switch string(key) {
	case "id":
		f.r.MessageID = unquote(val)
	case "model":
		f.r.Model = unquote(val)
	case "usage":
		f.usage = val
	}
}

// parseLine reads one line (without its newline). A line's first top-level
// type decides when it is not "assistant": the line is not a response, and
// the rest of it is not read (leadingType, walkLine). A compact line (as
// Claude Code writes them) holding assistantMark is walked, and of it only
// the top-level keys teamctl uses and message's id, model and usage are read;
// everything else is skipped over, not decoded. A line spaced otherwise that
// may be a response is decoded (encoding/json) into the same fields: any
// valid JSON line counts. capped says which counts were out of range.
func parseLine(line []byte) (r Response, kind lineKind, capped string) {
	line = bytes.Trim(line, " \t\r")
	if len(line) == 0 {
		return r, lineOther, ""
	}
	if line[0] != '{' || line[len(line)-1] != '}' {
		return r, lineMalformed, ""
	}
	if typ, ok := leadingType(line); ok && string(typ) != `"assistant"` {
		// A user's line (most of a transcript's bytes) says so in its first
		// keys: the rest of it is not searched for the mark.
		return r, lineOther, ""
	}
	// fields by value: a line's parse allocates nothing but the strings a
	// response keeps.
	var f fields
	var err error
	switch {
	case bytes.Contains(line, markTail):
		f, err = walkLine(line)
	case bytes.Contains(line, assistantWord):
		f, err = decodeLine(line)
	default:
		return r, lineOther, ""
	}
	switch {
	case errors.Is(err, errOther):
		return r, lineOther, ""
	case err != nil:
		return r, lineMalformed, ""
	}
	return f.response()
}

// walkLine is the fast path: the line's keys walked, not decoded. It ends
// at the line's first top-level type that is not "assistant" (errOther):
// a user's line carrying a tool's result, most of a transcript's bytes, may
// hold "type":"assistant" deep in it (an agent's progress, a subagent's
// answer), and walking the rest of it only to skip it cost half of a first
// read. So such a line's tail is not checked (it is skipped, as a line
// without the mark is), and a line with a second top-level type (which
// Claude Code never writes) is taken by its first when that is not
// "assistant" (but for a line spaced otherwise whose first comes after an
// object or an array, past leadingType: decodeLine takes the last).
func walkLine(line []byte) (fields, error) {
	var f fields
	// message's keys are read as it is walked: its content, most of a
	// response's bytes, is scanned once.
	err := eachKeyIn(line, func(key []byte, at int) (int, error) {
		switch {
		case string(key) == "message" && at < len(line) && line[at] == '{':
			end, err := objectAt(line, at, f.inMessage)
			f.message = line[at:max(end, at)]
			return end, err
		case string(key) == "type" && f.typ == nil:
			end, err := skipValue(line, at)
			if err == nil && string(line[at:end]) != `"assistant"` {
				return 0, errOther
			}
		}
		return -1, nil
	}, f.top)
	if err != nil {
		return fields{}, err
	}
	return f, nil
}

// leadingType is the value of the object line's top-level "type" when
// only short values come before it (strings, numbers, true, false, null:
// Claude Code writes a user's line's type after its parentUuid, isSidechain
// and promptId, before its message), ok false when an object or an array
// comes first, or what is read is not JSON.
func leadingType(line []byte) (typ []byte, ok bool) {
	i := skipSpace(line, 1)
	for i < len(line) && line[i] == '"' {
		end, err := skipString(line, i)
		if err != nil {
			return nil, false
		}
		key := line[i+1 : end-1]
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return nil, false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) || line[i] == '{' || line[i] == '[' {
			return nil, false
		}
		vend, err := skipValue(line, i)
		if err != nil {
			return nil, false
		}
		if string(key) == "type" {
			return line[i:vend], true
		}
		i = skipSpace(line, vend)
		if i >= len(line) || line[i] != ',' {
			return nil, false
		}
		i = skipSpace(line, i+1)
	}
	return nil, false
}

// decodeLine is the path for a line not written compact: decoded by
// encoding/json, which also refuses what is not valid JSON.
func decodeLine(line []byte) (fields, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return fields{}, err
	}
	var f fields
	for k, v := range top {
		if k != "message" {
			f.top([]byte(k), v)
			continue
		}
		if len(v) == 0 || v[0] != '{' {
			continue // not an object: as the walk, which does not take it
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(v, &msg); err != nil {
			return fields{}, err
		}
		for mk, mv := range msg {
			f.inMessage([]byte(mk), mv)
		}
		f.message = v
	}
	return f, nil
}

// response makes the fields a Response.
func (f *fields) response() (r Response, kind lineKind, capped string) {
	r = f.r
	typ, message, ts, usage := f.typ, f.message, f.ts, f.usage
	if string(typ) != `"assistant"` {
		return r, lineOther, ""
	}
	if f.isAPIError {
		apiErr := f.apiErr // a copy made only for an error's line
		r.APIError = &apiErr
	}
	if len(message) == 0 || message[0] != '{' {
		return r, lineMalformed, ""
	}
	if t, err := time.Parse(time.RFC3339Nano, unquote(ts)); err == nil {
		r.Time = t
	}
	if len(usage) == 0 || usage[0] != '{' {
		// A response without usage (none seen; an error Claude Code makes up
		// itself has zeros) counts as a turn of no tokens.
		return r, lineResponse, ""
	}
	u, ok := parseUsage(usage)
	if !ok {
		return r, lineMalformed, ""
	}
	var bad []string
	clamp := func(name string, v int64) int64 {
		switch {
		case v < 0:
			bad = append(bad, fmt.Sprintf("%s %d taken as 0", name, v))
			return 0
		case v > MaxTokens:
			bad = append(bad, fmt.Sprintf("%s %d capped at %d", name, v, MaxTokens))
			return MaxTokens
		}
		return v
	}
	r.Usage = Usage{
		Input:      clamp("input_tokens", u.Input),
		Output:     clamp("output_tokens", u.Output),
		CacheWrite: clamp("cache_creation_input_tokens", u.CacheCreation),
		CacheRead:  clamp("cache_read_input_tokens", u.CacheRead),
	}
	if u.Split {
		r.Usage.Split = true
		r.Usage.CacheWrite5m = clamp("ephemeral_5m_input_tokens", u.M5)
		r.Usage.CacheWrite1h = clamp("ephemeral_1h_input_tokens", u.H1)
	}
	if len(bad) > 0 {
		capped = joinComma(bad)
	}
	return r, lineResponse, capped
}

func joinComma(s []string) string {
	out := s[0]
	for _, x := range s[1:] {
		out += ", " + x
	}
	return out
}

// unquote is a JSON string value's text ("" for anything else). The values
// teamctl keeps (ids, model names, times) have no escapes; one that has is
// decoded properly.
func unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return string(in)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// eachKey calls fn with each key (unquoted, raw) and value (raw bytes) of the
// JSON object obj, which must be the whole of obj. It checks the structure it
// walks (quotes, brackets, commas, colons), not what is inside strings and
// numbers.
func eachKey(obj []byte, fn func(key, val []byte)) error {
	return eachKeyIn(obj, nil, fn)
}

// eachKeyIn is eachKey, where walk may read a value itself (at is where it
// starts): it returns the index just past it, or -1 to have it skipped over
// and given to fn; an error of walk ends the walk with it.
func eachKeyIn(obj []byte, walk func(key []byte, at int) (int, error), fn func(key, val []byte)) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errSyntax
	}
	end, err := objectIn(obj, i, walk, fn)
	if err != nil {
		return err
	}
	if skipSpace(obj, end) != len(obj) {
		return errSyntax
	}
	return nil
}

// objectAt walks the object at b[i] ('{'), calling fn with each key and
// value, and returns the index just past it.
func objectAt(b []byte, i int, fn func(key, val []byte)) (int, error) {
	return objectIn(b, i, nil, fn)
}

func objectIn(obj []byte, i int, walk func(key []byte, at int) (int, error), fn func(key, val []byte)) (int, error) {
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(obj, i)
		if err != nil {
			return 0, err
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return 0, errSyntax
		}
		i = skipSpace(obj, i+1)
		vend := -1
		if walk != nil {
			if vend, err = walk(key, i); err != nil {
				return 0, err
			}
		}
		if vend < 0 {
			if vend, err = skipValue(obj, i); err != nil {
				return 0, err
			}
			fn(key, obj[i:vend])
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return 0, errSyntax
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// usageCounts is a response's usage object.
type usageCounts struct {
	Input, Output, CacheCreation, CacheRead int64
	Split                                   bool // cache_creation given: its two lifetimes
	M5, H1                                  int64
}

// parseUsage reads a usage object: its counts, numbers (or null, taken as
// 0), every other key skipped. A count that is no integer is malformed.
func parseUsage(b []byte) (usageCounts, bool) {
	var u usageCounts
	ok := true
	num := func(v []byte) int64 {
		if string(v) == "null" {
			return 0
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			// 1e3, 12.0: numbers JSON allows; a string or an object is not.
			f, ferr := strconv.ParseFloat(string(v), 64)
			if ferr != nil || f != float64(int64(f)) {
				ok = false
			}
			return int64(f)
		}
		return n
	}
	err := eachKey(b, func(key, val []byte) {
		switch string(key) {
		case "input_tokens":
			u.Input = num(val)
		case "output_tokens":
			u.Output = num(val)
		case "cache_creation_input_tokens":
			u.CacheCreation = num(val)
		case "cache_read_input_tokens":
			u.CacheRead = num(val)
		case "cache_creation":
			if string(val) == "null" {
				return
			}
			u.Split = true
			if eachKey(val, func(k, v []byte) {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					u.M5 = num(v)
				case "ephemeral_1h_input_tokens":
					u.H1 = num(v)
				}
			}) != nil {
				ok = false
			}
		}
	})
	return u, ok && err == nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] ('"').
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		// The quote ends the string unless an odd number of backslashes
		// comes right before it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
			j++
		}
		return 0, errSyntax
	default:
		// A number, true, false or null: up to the next delimiter.
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

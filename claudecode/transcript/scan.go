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

// parseLine reads one line (without its newline). Only a line holding
// assistantMark is parsed, and of it only the top-level keys teamctl uses and
// message's id, model and usage; everything else is skipped over, not
// decoded. capped says which counts were out of range.
func parseLine(line []byte) (r Response, kind lineKind, capped string) {
	line = bytes.TrimRight(line, " \t\r")
	if len(line) == 0 {
		return r, lineOther, ""
	}
	if line[0] != '{' || line[len(line)-1] != '}' {
		return r, lineMalformed, ""
	}
	if !bytes.Contains(line, assistantMark) {
		return r, lineOther, ""
	}
	var typ, message, ts []byte
	var apiErr APIError
	isAPIError := false
	err := eachKey(line, func(key, val []byte) {
		switch string(key) {
		case "type":
			typ = val
		case "message":
			message = val
		case "timestamp":
			ts = val
		case "isSidechain":
			r.Sidechain = string(val) == "true"
		case "requestId":
			r.RequestID = unquote(val)
		case "sessionId":
			r.SessionID = unquote(val)
		case "agentName":
			r.AgentName = unquote(val)
		case "teamName":
			r.TeamName = unquote(val)
		case "isApiErrorMessage":
			isAPIError = string(val) == "true"
		case "apiErrorStatus":
			apiErr.Status, _ = strconv.Atoi(string(val))
		case "apiErrorType":
			apiErr.Type = unquote(val)
		case "error":
			apiErr.Kind = unquote(val)
		}
	})
	if err != nil {
		return r, lineMalformed, ""
	}
	if string(typ) != `"assistant"` {
		return r, lineOther, ""
	}
	if isAPIError {
		r.APIError = &apiErr
	}
	if len(message) == 0 || message[0] != '{' {
		return r, lineMalformed, ""
	}
	var usage []byte
	err = eachKey(message, func(key, val []byte) {
		switch string(key) {
		case "id":
			r.MessageID = unquote(val)
		case "model":
			r.Model = unquote(val)
		case "usage":
			usage = val
		}
	})
	if err != nil {
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
	var u struct {
		Input         int64 `json:"input_tokens"`
		Output        int64 `json:"output_tokens"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
		Split         *struct {
			M5 int64 `json:"ephemeral_5m_input_tokens"`
			H1 int64 `json:"ephemeral_1h_input_tokens"`
		} `json:"cache_creation"`
	}
	if err := json.Unmarshal(usage, &u); err != nil {
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
	if u.Split != nil {
		r.Usage.Split = true
		r.Usage.CacheWrite5m = clamp("ephemeral_5m_input_tokens", u.Split.M5)
		r.Usage.CacheWrite1h = clamp("ephemeral_1h_input_tokens", u.Split.H1)
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
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		if skipSpace(obj, i+1) != len(obj) {
			return errSyntax
		}
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return errSyntax
		}
		end, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errSyntax
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		fn(key, obj[i:vend])
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return errSyntax
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			if skipSpace(obj, i+1) != len(obj) {
				return errSyntax
			}
			return nil
		default:
			return errSyntax
		}
	}
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

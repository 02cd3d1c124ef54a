package geminicli

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Response is one model response as a Gemini CLI chat records it (a
// "gemini" message with its tokens), in Gemini's own counts: Input is the
// prompt's, cached tokens included; Thoughts and Tool are counted apart from
// Input and Output, as the Gemini API counts them.
type Response struct {
	ID    string // the message's id
	Model string
	Time  time.Time

	// Tokens, as the CLI counts them.
	Input, Output, Cached, Thoughts, Tool int64
}

// ChatFiles are the chats under a Gemini CLI home
// (.gemini/tmp/<project>/chats/*.jsonl), sorted.
func ChatFiles(home string) []string {
	m, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	sort.Strings(m)
	return m
}

// chatMessage is a message as a chat line writes it.
type chatMessage struct {
	ID     string    `json:"id"`
	Time   time.Time `json:"timestamp"`
	Type   string    `json:"type"`
	Model  string    `json:"model"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
}

func (m chatMessage) response() (Response, bool) {
	if m.Type != "gemini" || m.Tokens == nil || m.ID == "" {
		return Response{}, false
	}
	t := m.Tokens
	return Response{ID: m.ID, Model: m.Model, Time: m.Time, Input: t.Input, Output: t.Output, Cached: t.Cached, Thoughts: t.Thoughts, Tool: t.Tool}, true
}

// ChatLine reads one line of a chat: the responses it records. Seen on
// 0.61.0 (docs/gemini.md): a message a line (a response may be written
// twice, the second time with its tool calls), and `{"$set":{"messages":
// […]}}` lines that write the whole history again (at the start, and when
// a session is resumed): the same response is found several times, by the
// same id. Gemini CLI's side requests (its router, its summaries) are not
// recorded in it, so not counted.
func ChatLine(line []byte) []Response {
	s := string(line)
	if !strings.Contains(s, `"tokens"`) {
		return nil
	}
	var l struct {
		chatMessage
		Set *struct {
			Messages []chatMessage `json:"messages"`
		} `json:"$set"`
	}
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	var out []Response
	if r, ok := l.chatMessage.response(); ok {
		out = append(out, r)
	}
	if l.Set != nil {
		for _, m := range l.Set.Messages {
			if r, ok := m.response(); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

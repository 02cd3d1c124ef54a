package codexcli

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Response is one model response as a Codex rollout records it (its
// token_usage_record), in Codex's own counts: Input includes CachedInput
// and CacheWrite, and Output includes Reasoning, as the Responses API
// counts them.
type Response struct {
	ID    string // response_id: the API's id of the response
	Model string // the model of its turn (turn_context)
	Time  time.Time

	// Tokens, as the CLI counts them.
	Input, CachedInput, CacheWrite, Output, Reasoning int64
}

// SessionFiles are the rollouts under a Codex home
// (sessions/YYYY/MM/DD/rollout-*.jsonl), sorted; regular files only, no
// symlinked folder followed.
func SessionFiles(home string) []string {
	var out []string
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// RolloutReader reads a rollout's lines in order: it remembers each turn's
// model (turn_context) for the responses of the turn. One per file.
type RolloutReader struct {
	models map[string]string // turn_id → model
	last   string            // the last model named
}

// codexUsage is a token usage as a rollout writes it.
type codexUsage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
}

// Line reads one line of a rollout: a response's usage (ok), or what it
// says of the turns' models. Seen on 0.171.0: `{"type":"turn_context",
// "payload":{"turn_id","model",…}}` before a turn's responses, and one
// `{"type":"token_usage_record","payload":{"turn_id","response_id",
// "usage":{…}}}` a response (docs/codex.md). Codex's side request for a
// session's title is not recorded in it, so not counted.
func (r *RolloutReader) Line(line []byte) (Response, bool) {
	if !strings.Contains(string(line), `"type":"t`) { // turn_context, token_usage_record: most lines are neither
		return Response{}, false
	}
	var l struct {
		Time    time.Time `json:"timestamp"`
		Type    string    `json:"type"`
		Payload struct {
			TurnID     string     `json:"turn_id"`
			Model      string     `json:"model"`
			ResponseID string     `json:"response_id"`
			Usage      codexUsage `json:"usage"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil {
		return Response{}, false
	}
	p := l.Payload
	switch l.Type {
	case "turn_context":
		if p.Model != "" {
			if r.models == nil {
				r.models = map[string]string{}
			}
			if len(r.models) < 100000 {
				r.models[p.TurnID] = p.Model
			}
			r.last = p.Model
		}
	case "token_usage_record":
		if p.ResponseID == "" {
			return Response{}, false
		}
		model, ok := r.models[p.TurnID]
		if !ok {
			model = r.last
		}
		u := p.Usage
		return Response{ID: p.ResponseID, Model: model, Time: l.Time, Input: u.Input, CachedInput: u.Cached,
			CacheWrite: u.CacheWrite, Output: u.Output, Reasoning: u.Reasoning}, true
	}
	return Response{}, false
}

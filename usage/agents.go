package usage

import (
	"fmt"

	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/codexcli"
	"github.com/teamctl/teamctl/geminicli"
)

// What a member running another vendor's agent CLI spent is read from that
// CLI's own records in the member's home (state.AgentHome), a home of its
// own, so what is in it counts for that member alone: Codex's rollouts
// (codexcli: a token_usage_record a response) and Gemini CLI's chats
// (geminicli: a message's tokens). Each response becomes a
// transcript.Response in Claude Code's terms, counted and priced as
// Claude Code's are, once however often its CLI wrote it:
//   - Codex (the Responses API's counts): input_tokens includes the cached
//     and the cache-written ones; output_tokens includes reasoning.
//   - Gemini: input is the prompt's, cached included; thoughts are billed as
//     output, a tool's prompt as input.
//
// Neither CLI records its side requests (Codex's session title, Gemini
// CLI's router and summaries): they are not counted (docs/agents.md).

// The agent kinds whose records are read (layouts.AgentCodex, AgentGemini).
const (
	kindCodex  = "codex"
	kindGemini = "gemini"
)

// AddAgent follows the records of an agent CLI of kind ("codex", "gemini")
// in the member's home (its own: state.AgentHome). Files that appear later
// are found by Update.
func (m *Meter) AddAgent(kind, home string) error {
	if kind != kindCodex && kind != kindGemini {
		return fmt.Errorf("usage of a %q member: teamctl reads codex's and gemini's records", kind)
	}
	for _, a := range m.agents {
		if a == [2]string{kind, home} {
			return nil
		}
	}
	m.agents = append(m.agents, [2]string{kind, home})
	return nil
}

// agentFiles are the record files of an agent home, as found now.
func agentFiles(kind, home string) []string {
	if kind == kindCodex {
		return codexcli.SessionFiles(home)
	}
	return geminicli.ChatFiles(home)
}

// agentLines is the line reader of a record file of kind: each response it
// records, in Claude Code's terms (keys of their own: "codex:", "gemini:").
func agentLines(kind string) func(line []byte, emit func(transcript.Response)) {
	if kind == kindCodex {
		var rr codexcli.RolloutReader
		return func(line []byte, emit func(transcript.Response)) {
			if r, ok := rr.Line(line); ok {
				emit(fromCodex(r))
			}
		}
	}
	return func(line []byte, emit func(transcript.Response)) {
		for _, r := range geminicli.ChatLine(line) {
			emit(fromGemini(r))
		}
	}
}

func fromCodex(r codexcli.Response) transcript.Response {
	return transcript.Response{MessageID: "codex:" + r.ID, Model: r.Model, Time: r.Time, Usage: transcript.Usage{
		Input:      max(0, r.Input-r.CachedInput-r.CacheWrite),
		Output:     r.Output,
		CacheWrite: r.CacheWrite,
		CacheRead:  r.CachedInput,
	}}
}

func fromGemini(r geminicli.Response) transcript.Response {
	return transcript.Response{MessageID: "gemini:" + r.ID, Model: r.Model, Time: r.Time, Usage: transcript.Usage{
		Input:     max(0, r.Input-r.Cached) + r.Tool,
		Output:    r.Output + r.Thoughts,
		CacheRead: r.Cached,
	}}
}

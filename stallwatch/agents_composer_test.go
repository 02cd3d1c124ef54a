package stallwatch

import (
	"os"
	"strings"
	"testing"
)

// TestComposerHolds: the input line of Codex's and Gemini's screens (the
// last line with the CLI's prompt mark) holds typed text, not what was sent
// before (the same mark, above it) nor the placeholder.
func TestComposerHolds(t *testing.T) {
	for _, c := range []struct {
		agent, file, placeholder, sent string
	}{
		{"codex", "codex-0.171.0-declined.txt", "Ask Codex to do anything", "make the file"},
		{"gemini", "gemini-0.61.0-declined.txt", "Type your message or @path/to/file", "make the file"},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		screen := string(b)
		if ComposerHolds(c.agent, screen, c.sent) || ComposerHolds(c.agent, screen, "hello again") {
			t.Errorf("%s: an empty input line holds text", c.agent)
		}
		typed := strings.Replace(screen, c.placeholder, "hello again, a long line that goes on past thirty", 1)
		if !ComposerHolds(c.agent, typed, "hello again, a long line that goes on past thirty and wraps") {
			t.Errorf("%s: the typed text is not seen in:\n%s", c.agent, typed)
		}
		if ComposerHolds("claude", typed, "hello again") {
			t.Errorf("a kind with no known input line holds text")
		}
	}
}

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

// TestComposerShown: Codex's and Gemini's input line among their bottom
// lines, idle or after a turn, is shown; a screen still being drawn (the
// banner alone, or a resumed session's history with no input line under it),
// a folder-trust screen, or another kind's are not.
func TestComposerShown(t *testing.T) {
	for file, want := range map[string]bool{
		"codex-0.171.0-idle.txt": true, "codex-0.171.0-declined.txt": true, "codex-0.171.0-trust.txt": false,
		"gemini-0.61.0-idle.txt": true, "gemini-0.61.0-declined.txt": true, "gemini-0.61.0-trust.txt": false,
	} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		agent, _, _ := strings.Cut(file, "-")
		if got := ComposerShown(agent, string(b)); got != want {
			t.Errorf("%s: %v, want %v", file, got, want)
		}
	}
	loading := "  ▗▟▀    Authenticated with gemini-api-key /auth\n\n > please make the file\n\n ✦ made it\n\n\n\n\n\n\n\n Loading the session…\n"
	if ComposerShown("gemini", loading) {
		t.Error("a resumed session's history, no input line under it, taken for one")
	}
	if ComposerShown("claude", " > hi\n") {
		t.Error("a kind with no known input line")
	}
}

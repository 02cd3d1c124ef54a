// Package stallwatch decides whether a terminal screen (or a program's output
// stream) shows a program waiting for a human: a shell-style question on its
// last line, one of Claude Code's full-screen dialogs anywhere on it, or one
// of Codex's or Gemini CLI's at its bottom (agents.go); and, for a dialog,
// what its options are and which keys choose one (dialog.go); and whether the
// agent is held back by a usage or rate limit, with its reset time (limit.go,
// agents_limit.go). It is pure: no tmux, no clocks, so it can be tested
// on captured screens and fuzzed.
package stallwatch

import (
	"fmt"
	"regexp"
	"strings"
)

// Scope says where a pattern looks.
type Scope string

const (
	// LastLine patterns match the last non-blank line (shell prompts).
	LastLine Scope = "lastline"
	// Screen patterns match anywhere on the screen (full-screen dialogs).
	Screen Scope = "screen"
)

// Pattern is one named question.
type Pattern struct {
	Name  string
	Regex *regexp.Regexp
	Scope Scope
	// Dialog: one of Claude Code's dialogs (or Codex's, Gemini's),
	// answered by choosing an option (ReadDialog), never by typing y or n.
	Dialog bool
	// CLI is the agent CLI whose dialog this is (CLICodex, CLIGemini);
	// "" for Claude Code's and the shell prompts.
	CLI string
}

// Compile builds a pattern; matching is case-insensitive unless the expression
// says otherwise with (?-i).
func Compile(name, expr string, scope Scope) (Pattern, error) {
	if scope == "" {
		scope = LastLine
	}
	if scope != LastLine && scope != Screen {
		return Pattern{}, fmt.Errorf("scope %q: want %q or %q", scope, LastLine, Screen)
	}
	re, err := regexp.Compile("(?i)" + expr)
	if err != nil {
		return Pattern{}, err
	}
	return Pattern{Name: name, Regex: re, Scope: scope}, nil
}

func must(name, expr string, scope Scope) Pattern {
	p, err := Compile(name, expr, scope)
	if err != nil {
		panic(err)
	}
	return p
}

// dialog is a default pattern for one of Claude Code's dialogs.
func dialog(name, expr string) Pattern {
	p := must(name, expr, Screen)
	p.Dialog = true
	return p
}

// IsDialog reports whether name is one of Claude Code's dialogs among the
// default patterns (a layout's pattern of that name replaces it, and is
// still that dialog), or one of Codex's or Gemini's.
func IsDialog(name string) bool {
	for _, p := range append(DefaultPatterns(), AgentPatterns()...) {
		if p.Name == name {
			return p.Dialog
		}
	}
	return false
}

// DefaultPatterns are the seed watchdog's five shell prompts (last line) and the
// dialogs of Claude Code 2.1.328 and 2.1.332 (anywhere on the screen). Those
// of Codex and Gemini are not among them: every Detector knows them
// (AgentPatterns).
func DefaultPatterns() []Pattern {
	return []Pattern{
		must("yes-no", `\(y/n\)`, LastLine),
		must("yes-no-brackets", `\[y/n\]`, LastLine),
		must("press-key", `Press (any key|Enter)`, LastLine),
		must("continue", `Continue\?`, LastLine),
		must("overwrite", `Overwrite\?`, LastLine),

		dialog("claude-trust", `Is this a project you created or one you trust\?|Do you trust the files in this folder\?|Yes, I trust this folder`),
		dialog("claude-api-key", `Do you want to use this API key\?`),
		dialog("claude-permission", `Do you want to proceed\?`),
		dialog("claude-edit", `Do you want to (make this edit to|create) `),
		dialog("claude-plan", `Would you like to proceed\?`),
		dialog("claude-bypass", `running in Bypass Permissions mode`),
		dialog("claude-mcp", `New MCP server found in`),
		dialog("claude-login", `Select login method:`),
		dialog("claude-theme", `Choose the text style that looks best with your terminal`),
		dialog("claude-auto-gateway", `Auto mode can.t check actions in this session`),
		dialog("claude-tell-differently", `No, and tell Claude what to do differently`),
		// Every permission dialog of 2.1.328 ends with this footer; it catches the
		// ones whose question is not listed above.
		dialog("claude-dialog", `Esc to cancel · Tab to amend`),
	}
}

// Kind is what a screen shows.
type Kind int

const (
	// Busy: nothing asked, not at an idle prompt (working, or just quiet).
	Busy Kind = iota
	// Idle: Claude Code's input box (or Codex's, Gemini's composer) with
	// nothing asked.
	Idle
	// Stalled: a pattern matched: waiting for a human.
	Stalled
)

func (k Kind) String() string {
	switch k {
	case Idle:
		return "idle"
	case Stalled:
		return "stalled"
	}
	return "busy"
}

// Verdict is what Check found.
type Verdict struct {
	Kind    Kind
	Pattern string // the pattern's name, when stalled
	Line    string // the matched line, trimmed
	Excerpt string // up to excerptLines lines around the match
}

const excerptLines = 8

// Detector checks screens against its patterns.
type Detector struct {
	patterns []Pattern
}

// New returns a detector with the given patterns, in order of precedence.
func New(patterns []Pattern) *Detector { return &Detector{patterns: patterns} }

// working is in Claude Code's footer while a turn runs.
var working = regexp.MustCompile(`esc to interrupt`)

// tailLines is how far above the last non-blank line screen patterns look:
// Claude Code draws its dialogs at the bottom (or, at start-up, on an otherwise
// empty screen), and older conversation text above must not count.
const tailLines = 24

// Check looks at a screen as text (escape sequences are stripped first, so raw
// output works too). A Codex or Gemini dialog at the bottom of the screen (its
// question over a menu of theirs) wins; then a shell question on the last
// line; then Claude Code's idle input box (its dialogs replace that box, so a
// question quoted in the conversation above it is not a stall); then the
// dialogs.
func (d *Detector) Check(screen string) Verdict {
	if strings.ContainsRune(screen, 0x1b) || strings.ContainsRune(screen, '\r') {
		screen = Strip([]byte(screen))
	}
	lines := strings.Split(screen, "\n")
	last := lastNonBlank(lines)
	if last < 0 {
		return Verdict{Kind: Busy}
	}
	if v, ok := d.checkAgentDialogs(lines, last); ok {
		return v
	}
	for _, p := range d.patterns {
		if p.Scope == LastLine && p.Regex.MatchString(lines[last]) {
			return stalled(p, lines, last)
		}
	}
	if isIdleBox(lines, last) {
		return Verdict{Kind: Idle}
	}
	from := max(0, last-tailLines)
	tail := strings.Join(lines[from:last+1], "\n")
	for _, p := range d.patterns {
		if p.Scope != Screen || p.CLI != "" {
			continue // Codex's and Gemini's only over their menus (checkAgentDialogs)
		}
		if loc := p.Regex.FindStringIndex(tail); loc != nil {
			return stalled(p, lines, from+strings.Count(tail[:loc[0]], "\n"))
		}
	}
	if isAgentIdle(lines, last) {
		return Verdict{Kind: Idle}
	}
	return Verdict{Kind: Busy}
}

func stalled(p Pattern, lines []string, at int) Verdict {
	from := max(0, at-excerptLines/2)
	to := min(len(lines), from+excerptLines)
	var ex []string
	for _, l := range lines[from:to] {
		if strings.TrimSpace(l) != "" {
			ex = append(ex, strings.TrimRight(l, " "))
		}
	}
	return Verdict{Kind: Stalled, Pattern: p.Name, Line: strings.TrimSpace(lines[at]), Excerpt: strings.Join(ex, "\n")}
}

func lastNonBlank(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return i
		}
	}
	return -1
}

// isIdleBox reports Claude Code's idle input box near the bottom of the screen:
// a rule, a line starting with "❯", a rule, and no "esc to interrupt" below.
func isIdleBox(lines []string, last int) bool {
	from := max(0, last-6)
	for i := last; i >= from; i-- {
		if working.MatchString(lines[i]) {
			return false
		}
	}
	for i := last; i >= from+2; i-- {
		if isRule(lines[i]) && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "❯") && isRule(lines[i-2]) {
			return true
		}
	}
	return false
}

// isRule: a line drawn with "─" (a teammate's rule carries its name, "── @x ──").
func isRule(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "──") && strings.HasSuffix(t, "──")
}

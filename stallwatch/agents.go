package stallwatch

import (
	"regexp"
	"strconv"
	"strings"
)

// The dialogs of the Codex CLI and the Gemini CLI, as seen on Codex 0.171.0
// and Gemini CLI 0.61.0 (docs/codex.md, docs/gemini.md; captures in
// testdata/codex-* and testdata/gemini-*). Each is answered by choosing one
// of its options, by its meaning, so that "no" never approves:
//
//   - Codex draws a numbered menu whose selected row starts with "›" at the
//     left edge ("› 1. Yes, proceed (y)", "  2. …", "  3. No, and tell Codex
//     what to do differently (esc)") over the footer "Press enter to confirm
//     or esc to cancel": Enter confirms the selected row, which starts on
//     Yes; each row's key in brackets chooses it at once (y ran the command;
//     esc and n cancelled it: not run, the turn interrupted). Its folder
//     trust screen ("› 1. Trust and continue", "2. Back to Agent Command
//     Center", footer "enter continue · esc back"): Enter trusts (saved in
//     config.toml), Esc goes back to the agent list with nothing trusted.
//   - Gemini draws its menus in a box ("│ ● 1. Allow once │"), numbered, the
//     selection marked "●"; a digit chooses at once (1 ran the command). Which
//     options it shows depends on trust and settings, so the digit of its No
//     moves: its No is Esc ("No, suggest changes (esc)": not run, "Request
//     cancelled."). Its folder trust dialog has no Esc row: Esc there exits
//     the CLI ("Exiting since escape was pressed."), nothing trusted. Its
//     quota dialog ("Usage limit reached for …", "1. Keep trying" or "1.
//     Switch to <model>", "2. Stop") ignores Esc: its no is Stop, by digit.

// CLI names for Dialog.CLI.
const (
	CLIClaude = "claude"
	CLICodex  = "codex"
	CLIGemini = "gemini"
)

// AgentPatterns are Codex's and Gemini's dialogs. Every Detector looks for
// them, whatever its patterns (a layout's watchdog names none of them yet:
// members of those kinds come with the layout's agent: field), and before
// the shell prompts of the last line: Codex's footer "Press enter to
// confirm or esc to cancel" is one of those prompts' forms ("Press Enter"),
// and typing y or n plus Enter into that overlay chooses by Codex's own
// keys. Each counts only over a menu of its CLI's at the bottom of the
// screen, so that the question quoted in a conversation is none.
func AgentPatterns() []Pattern { return agentPatterns }

var agentPatterns = agentDialogs()

func agentDialogs() []Pattern {
	return []Pattern{
		agentDialog("codex-approval", CLICodex, `Would you like to (run the following command|make the following edits)\?|Do you want to approve network access to|Would you like to grant these permissions\?|needs your approval\.`),
		agentDialog("codex-trust", CLICodex, `Trust this folder\? Codex can|Do you trust the contents of this directory\?`),
		agentDialog("gemini-approval", CLIGemini, `Allow execution of (\[|MCP tool)|Apply this change\?`),
		agentDialog("gemini-trust", CLIGemini, `Do you trust the files in this folder\?`),
		agentDialog(GeminiQuota, CLIGemini, `Usage limit reached for |We are currently experiencing high demand for `),
	}
}

func agentDialog(name, cli, expr string) Pattern {
	p := dialog(name, expr)
	p.CLI = cli
	return p
}

// agentDialogReach is how many lines a Codex or Gemini dialog's question
// may stand above the last non-blank line (its menu, footer and box below
// it): a question further up is the conversation's.
const agentDialogReach = 14

// checkAgentDialogs finds a Codex or Gemini dialog at the bottom of the
// screen: one of their patterns matching within agentDialogReach lines of
// the last one, over a menu of that CLI's (a question quoted in the
// conversation has none).
func (d *Detector) checkAgentDialogs(lines []string, last int) (Verdict, bool) {
	from := max(0, last-agentDialogReach)
	trimmed := make([]string, len(lines))
	for i, l := range lines {
		trimmed[i] = strings.TrimRight(l, " \t")
	}
	menu := map[string]bool{}
	if _, ok := readCodexMenu(trimmed, max(0, last-tailLines), last); ok {
		menu[CLICodex] = true
	}
	if _, ok := readGeminiMenu(trimmed, max(0, last-tailLines), last); ok {
		menu[CLIGemini] = true
	}
	for _, p := range agentPatterns {
		if !menu[p.CLI] {
			continue
		}
		for i := from; i <= last; i++ {
			if p.Regex.MatchString(unbox(lines[i])) {
				v := stalled(p, lines, i)
				v.Line = unbox(lines[i])
				return v, true
			}
		}
	}
	return Verdict{}, false
}

// unbox takes the box borders off a line of Gemini's ("│ ● 1. Allow once │",
// nested boxes too) and trims it.
func unbox(ln string) string {
	t := strings.TrimSpace(ln)
	for {
		inner, ok := strings.CutPrefix(t, "│")
		if !ok {
			return t
		}
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(inner), "│"))
	}
}

var (
	// shortcut is a row's own key, in brackets at its end: "(y)", "(esc)".
	shortcut     = regexp.MustCompile(`\s\((y|n|a|p|d|esc)\)$`)
	shortcutKeys = map[string]string{"esc": "Escape"}
)

// readCodexMenu reads Codex's menu: the lowest line starting "› N. " at the
// screen's left edge, with the rows numbered in order around it ("  N. ")
// at its text's column, at least two; its footer's Esc ("esc to cancel",
// "esc back") as the Cancel.
func readCodexMenu(lines []string, from, last int) (Dialog, bool) {
	sel := -1
	for i := last; i >= from; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "› "); ok && numbered.MatchString(rest) {
			sel = i
			break
		}
	}
	if sel < 0 {
		return Dialog{}, false
	}
	row := func(i int) (string, bool) {
		if i == sel {
			return strings.TrimPrefix(lines[i], "› "), true
		}
		rest, ok := strings.CutPrefix(lines[i], "  ")
		if !ok || strings.HasPrefix(rest, " ") || !numbered.MatchString(rest) {
			return "", false
		}
		return rest, true
	}
	top, bottom, texts := rowsAround(sel, from, last, row)
	d, ok := numberedDialog(texts, sel-top, CLICodex)
	if !ok || nonBlankBetween(lines, bottom+1, last) > menuBottom {
		return Dialog{}, false
	}
	if m := codexEsc.FindStringSubmatch(lines[last]); m != nil {
		d.Cancel = &Option{Key: "Escape", Text: m[1]}
	}
	return d, true
}

// rowsAround is the run of lines around sel (within from..last) that row
// reads as menu rows, and their texts, top to bottom.
func rowsAround(sel, from, last int, row func(int) (string, bool)) (top, bottom int, texts []string) {
	top, bottom = sel, sel
	for top > from {
		if _, ok := row(top - 1); !ok {
			break
		}
		top--
	}
	for bottom < last {
		if _, ok := row(bottom + 1); !ok {
			break
		}
		bottom++
	}
	for i := top; i <= bottom; i++ {
		t, _ := row(i)
		texts = append(texts, t)
	}
	return top, bottom, texts
}

// codexEsc is the Esc choice of Codex's footers: "Press enter to confirm
// or esc to cancel", "enter continue · esc back".
var codexEsc = regexp.MustCompile(`(?i)\besc (?:to )?(\w+)\s*$`)

// readGeminiMenu reads Gemini's boxed menu: the lowest row "● N. " inside
// its box, with the rows numbered in order around it at the same column.
// Its trust dialog, which has no Esc row, gets Esc as its Cancel ("exit",
// what Esc did there on 0.61.0).
func readGeminiMenu(lines []string, from, last int) (Dialog, bool) {
	un := make([]string, len(lines))
	for i := from; i <= last; i++ {
		un[i] = unbox(lines[i])
	}
	sel := -1
	for i := last; i >= from; i-- {
		if rest, ok := strings.CutPrefix(un[i], "● "); ok && numbered.MatchString(rest) {
			sel = i
			break
		}
	}
	if sel < 0 {
		return Dialog{}, false
	}
	row := func(i int) (string, bool) {
		if i == sel {
			return strings.TrimPrefix(un[i], "● "), true
		}
		if !numbered.MatchString(un[i]) {
			return "", false
		}
		return un[i], true
	}
	top, _, texts := rowsAround(sel, from, last, row)
	d, ok := numberedDialog(texts, sel-top, CLIGemini)
	if !ok {
		return Dialog{}, false
	}
	for i := max(from, top-agentDialogReach); i < top; i++ {
		if strings.Contains(un[i], "Do you trust the files in this folder?") {
			d.Cancel = &Option{Key: "Escape", Text: "exit"}
		}
	}
	return d, true
}

// numberedDialog builds a dialog of rows "1. text", "2. text", … (each
// numbered in order, at least two), selected the row at sel, each row's
// bracketed key taken off its text into Shortcut.
func numberedDialog(texts []string, sel int, cli string) (Dialog, bool) {
	if len(texts) < 2 {
		return Dialog{}, false
	}
	d := Dialog{Selected: sel, Numbered: true, CLI: cli}
	for i, t := range texts {
		m := numbered.FindStringSubmatch(t)
		if m == nil || m[1] != strconv.Itoa(i+1) {
			return Dialog{}, false
		}
		o := Option{Index: i, Number: i + 1, Text: m[2]}
		if sm := shortcut.FindStringSubmatch(o.Text); sm != nil {
			o.Shortcut = sm[1]
			o.Text = strings.TrimSpace(o.Text[:len(o.Text)-len(sm[0])])
		}
		d.Options = append(d.Options, o)
	}
	return d, true
}

// agentYes and agentNo are what an option of Codex or Gemini says when it
// means yes or no once: the whole text, or its start.
var (
	agentYes = []string{"yes, proceed", "allow once", "trust and continue", "trust folder ("}
	agentNo  = []string{"don't trust", "stop"}
)

// agentMeaning finds the one option whose text is or starts with one of
// words (normalised); none when none or several do.
func (d Dialog) agentMeaning(words []string) (Option, bool) {
	var found []Option
	for _, o := range d.Options {
		t := normalise(o.Text)
		for _, w := range words {
			if t == strings.TrimSuffix(w, " (") || strings.HasPrefix(t, w) {
				found = append(found, o)
				break
			}
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Option{}, false
}

// isAgentIdle reports Codex's or Gemini's idle composer at the bottom of the
// screen, nothing asked and no turn running: Codex's "› " line at the left
// edge over its footer "… · ? for shortcuts", Gemini's "? for shortcuts"
// over its " > " line; neither with its working line ("esc to interrupt",
// "esc to cancel") among the bottom lines.
func isAgentIdle(lines []string, last int) bool {
	from := max(0, last-8)
	for i := from; i <= last; i++ {
		if strings.Contains(lines[i], "esc to interrupt") || strings.Contains(lines[i], "esc to cancel") {
			return false
		}
	}
	for i := from; i <= last; i++ {
		if !strings.Contains(lines[i], "? for shortcuts") {
			continue
		}
		for j := max(from, i-3); j < i; j++ {
			if strings.HasPrefix(lines[j], "› ") {
				return true // Codex
			}
		}
		for j := i + 1; j <= min(last, i+4); j++ {
			if t := strings.TrimSpace(lines[j]); t == ">" || strings.HasPrefix(t, "> ") {
				return true // Gemini
			}
		}
	}
	return false
}

// ComposerShown reports whether an agent CLI's screen (agent: "codex",
// "gemini") shows its input line among its bottom lines, idle or working
// (both take text then): not while it is still drawing its screen or loading
// a resumed session, when what is typed is lost.
func ComposerShown(agent, screen string) bool {
	mark := map[string]string{CLIClaude: "❯", CLICodex: "›", CLIGemini: ">"}[agent]
	lines := strings.Split(screen, "\n")
	last := lastNonBlank(lines)
	if mark == "" || last < 0 {
		return false
	}
	for _, l := range lines[max(0, last-5) : last+1] {
		t, ok := strings.CutPrefix(strings.TrimLeft(l, " │"), mark)
		if ok && !menuRow.MatchString(t) {
			return true
		}
	}
	return false
}

// menuRow is the rest of a menu's selected row after the mark ("› 1. Trust
// and continue"): a dialog, not an input line.
var menuRow = regexp.MustCompile(`^\s*[0-9]+\.\s`)

// ComposerHolds reports whether the input line of an agent CLI's screen
// (agent: "claude", "codex", "gemini") holds text (its start, for one that
// wraps): the last line that begins with the CLI's prompt mark, Claude
// Code's "❯", Codex's "›" and Gemini's ">" (above it, what was sent before
// carries the same mark).
func ComposerHolds(agent, screen, text string) bool {
	mark := map[string]string{CLIClaude: "❯", CLICodex: "›", CLIGemini: ">"}[agent]
	if mark == "" {
		return false
	}
	composer := ""
	for _, l := range strings.Split(screen, "\n") {
		if t := strings.TrimLeft(l, " │"); strings.HasPrefix(t, mark) {
			composer = strings.TrimSpace(strings.TrimPrefix(t, mark))
		}
	}
	head := strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(text))
	if r := []rune(head); len(r) > 30 {
		head = string(r[:30])
	}
	return head != "" && strings.HasPrefix(composer, head)
}

// GeminiQuota is the pattern of Gemini CLI's quota dialog, which is its
// usage limit too (ReadLimit reads it): the supervisor calls its member
// limited while it is up, and `teamctl answer` answers it.
const GeminiQuota = "gemini-quota"

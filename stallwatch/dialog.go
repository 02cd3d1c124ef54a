package stallwatch

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Claude Code dialog is answered by choosing one of its options, never by
// typing y or n: its menus ignore letters, and Enter picks whatever is
// selected ("1. Yes" in a permission dialog). What follows reads a dialog's
// options from its screen and says which keys choose one. Seen on Claude
// Code 2.1.328 and 2.1.332 (docs/claude-code.md): a numbered menu ("❯ 1. Yes"
// … "4. No") takes the option's digit and acts on it at once; an unnumbered
// one ("❯ No, exit" / "Yes, I trust this folder") ignores digits and takes
// arrows, then Enter; Esc cancels, which in every dialog seen means "no" (the
// command is not run, the folder not trusted, the key not used). A dialog
// without a menu (auto mode behind a gateway) lists its keys in its footer:
// "Enter to stay in auto mode · shift+Tab to leave … · Esc to cancel".

// Option is one choice of a dialog.
type Option struct {
	Index  int    // its place in Dialog.Options, from 0
	Number int    // its number as the dialog shows it ("4. No" is 4); 0 when unnumbered
	Text   string // its text without the number, wrapped lines joined: "No"
	Key    string // for a choice from the footer, the tmux key that makes it (Escape); "" for a menu's option
	// Shortcut is a Codex or Gemini row's own key as it shows it at the
	// row's end, "(y)", "(esc)" (taken off Text): "y", "esc".
	Shortcut string
}

// String is the option as a person reads it: "4. No", "Yes, I trust this
// folder", or a footer's "cancel (Esc)".
func (o Option) String() string {
	switch {
	case o.Key != "":
		return o.Text + " (" + keyNames[o.Key] + ")"
	case o.Number > 0 && o.Shortcut != "":
		return strconv.Itoa(o.Number) + ". " + o.Text + " (" + o.Shortcut + ")"
	case o.Number > 0:
		return strconv.Itoa(o.Number) + ". " + o.Text
	}
	return o.Text
}

// Dialog is a Claude Code dialog as its screen shows it.
type Dialog struct {
	// Options are the menu's, top to bottom; for a dialog without a menu,
	// the footer's keys, in its order.
	Options []Option
	// Selected is the index of the option marked "❯" (for a footer dialog,
	// the one Enter makes).
	Selected int
	// Numbered: every option carries its number, 1, 2, … in order, and the
	// dialog takes that digit as the choice.
	Numbered bool
	// Cancel is the footer's Esc choice ("Esc to cancel", "Esc to reject"),
	// when it has one and it is not among Options already.
	Cancel *Option
	// CLI is whose dialog it is: CLICodex, CLIGemini, or "" for Claude
	// Code's (agents.go).
	CLI string
}

// Footer keys as the dialogs name them, and as tmux does.
var (
	footerKeys = map[string]string{"enter": "Enter", "esc": "Escape", "shift+tab": "BTab", "tab": "Tab"}
	keyNames   = map[string]string{"Enter": "Enter", "Escape": "Esc", "BTab": "shift+Tab", "Tab": "Tab"}
)

var (
	numbered    = regexp.MustCompile(`^(\d{1,2})\.\s+(\S.*)$`)
	footerEntry = regexp.MustCompile(`(?i)^(enter|esc|shift\+tab|tab) to (\S.*)$`)
)

// menuBottom is how many non-blank lines may follow a menu's last option
// (its footer and hints): a dialog is drawn at the bottom of the screen, and
// a "❯" further up is the conversation (a prompt typed earlier).
const menuBottom = 4

// ReadDialog reads the Claude Code dialog at the bottom of a screen: its menu
// (a line starting "❯ ", indented, and the lines beside it at the same
// indentation), or, with no menu, the keys its footer offers. ok is false
// when the screen shows no such dialog (an idle input box, a shell prompt,
// a menu of a single line).
func ReadDialog(screen string) (d Dialog, ok bool) {
	if strings.ContainsRune(screen, 0x1b) || strings.ContainsRune(screen, '\r') {
		screen = Strip([]byte(screen))
	}
	lines := strings.Split(screen, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	last := lastNonBlank(lines)
	if last < 0 || isIdleBox(lines, last) {
		return Dialog{}, false
	}
	from := max(0, last-tailLines)
	if d, ok := readMenu(lines, from, last); ok {
		return d, true
	}
	if d, ok := readCodexMenu(lines, from, last); ok {
		return d, true
	}
	if d, ok := readGeminiMenu(lines, from, last); ok {
		return d, true
	}
	return footerDialog(lines[last])
}

// readMenu finds the menu whose selected line is the lowest "❯ " line in
// lines[from:last+1].
func readMenu(lines []string, from, last int) (Dialog, bool) {
	sel := -1
	for i := last; i >= from; i-- {
		if indent, rest, ok := selectedLine(lines[i]); ok && indent > 0 && rest != "" {
			sel = i
			break
		}
	}
	if sel < 0 {
		return Dialog{}, false
	}
	indent, _, _ := selectedLine(lines[sel])
	col := indent + 2 // where every option's text starts
	top := sel
	for top > from && isOptionLine(lines[top-1], col) {
		top--
	}
	for top < sel && indentOf(lines[top]) > col {
		top++ // a line deeper than the options above the first is no option's
	}
	var opts []Option
	bottom, selected := sel, 0
	for i := top; i <= last; i++ {
		ln := lines[i]
		switch {
		case i == sel:
			_, rest, _ := selectedLine(ln)
			selected = len(opts)
			opts = append(opts, Option{Text: rest})
		case strings.TrimSpace(ln) == "" || indentOf(ln) < col:
			i = last // the menu ends
			continue
		case indentOf(ln) > col && len(opts) > 0:
			// A wrapped option (Claude Code wraps its text itself) or a
			// hint under one: either way, part of that option.
			opts[len(opts)-1].Text += " " + strings.TrimSpace(ln)
		default:
			opts = append(opts, Option{Text: strings.TrimSpace(ln)})
		}
		bottom = i
	}
	if len(opts) < 2 || nonBlankBetween(lines, bottom+1, last) > menuBottom {
		return Dialog{}, false
	}
	d := Dialog{Options: opts, Selected: selected, Numbered: true}
	for i := range d.Options {
		o := &d.Options[i]
		o.Index = i
		m := numbered.FindStringSubmatch(o.Text)
		if m == nil || m[1] != strconv.Itoa(i+1) {
			d.Numbered = false
		}
	}
	if d.Numbered {
		for i := range d.Options {
			m := numbered.FindStringSubmatch(d.Options[i].Text)
			d.Options[i].Number, d.Options[i].Text = i+1, m[2]
		}
	}
	for _, f := range footer(lines[last]) {
		if f.Key == "Escape" {
			d.Cancel = &f
		}
	}
	return d, true
}

// selectedLine splits a menu's selected line, "  ❯ 1. Yes": the columns
// before the marker and the text after it. The idle input box's "❯" is
// followed by a no-break space, never by text of an option.
func selectedLine(ln string) (indent int, rest string, ok bool) {
	t := strings.TrimLeft(ln, " ")
	after, found := strings.CutPrefix(t, "❯ ")
	if !found {
		return 0, "", false
	}
	return len(ln) - len(t), strings.TrimSpace(after), true
}

func isOptionLine(ln string, col int) bool {
	return strings.TrimSpace(ln) != "" && indentOf(ln) >= col
}

// indentOf counts the spaces a line starts with.
func indentOf(ln string) int { return len(ln) - len(strings.TrimLeft(ln, " ")) }

func nonBlankBetween(lines []string, from, to int) int {
	n := 0
	for i := from; i <= to && i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			n++
		}
	}
	return n
}

// footer reads a dialog's footer, "Enter to confirm · Esc to cancel", as
// choices by key; entries that name no key ("ctrl+g to edit in Vim") are
// skipped.
func footer(ln string) []Option {
	var out []Option
	for _, part := range strings.Split(ln, "·") {
		m := footerEntry.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			continue
		}
		out = append(out, Option{Key: footerKeys[strings.ToLower(m[1])], Text: strings.TrimSpace(m[2])})
	}
	return out
}

// footerDialog is a dialog without a menu whose footer offers choices by key
// (auto mode behind a gateway): at least two, and an Enter that does more
// than confirm a menu's choice.
func footerDialog(ln string) (Dialog, bool) {
	opts := footer(ln)
	d := Dialog{Selected: -1}
	for i, o := range opts {
		o.Index = i
		if o.Key == "Enter" {
			if strings.EqualFold(o.Text, "confirm") {
				return Dialog{}, false
			}
			d.Selected = i
		}
		d.Options = append(d.Options, o)
	}
	if len(d.Options) < 2 || d.Selected < 0 {
		return Dialog{}, false
	}
	return d, true
}

// Yes is the dialog's "yes": its option reading just "Yes", else its only
// option starting with "Yes" ("Yes, I trust this folder"). ok is false when
// there is none, or several and none plain (a plan approval's "Yes, and use
// auto mode" / "Yes, manually approve edits"): a person must choose.
// For Codex and Gemini, it is the option that approves once ("Yes,
// proceed", "Allow once", "Trust and continue", "Trust folder (…)").
func (d Dialog) Yes() (Option, bool) {
	if d.CLI != "" {
		return d.agentMeaning(agentYes)
	}
	return d.plain("yes")
}

// No is the dialog's "no": its option reading just "No", else its only option
// starting with "No" ("No, exit", "No (recommended)"), else the footer's Esc
// choice ("Esc to cancel", as in a dialog with no No option). ok is false when
// the dialog offers none of these. For Codex and Gemini, after those, the
// option that declines without an Esc ("Don't trust", a quota's "Stop").
func (d Dialog) No() (Option, bool) {
	if o, ok := d.plain("no"); ok {
		return o, true
	}
	if d.Cancel != nil {
		return *d.Cancel, true
	}
	if d.CLI != "" {
		return d.agentMeaning(agentNo)
	}
	for _, o := range d.Options {
		if o.Key == "Escape" {
			return o, true
		}
	}
	return Option{}, false
}

func (d Dialog) plain(word string) (Option, bool) {
	var starts []Option
	for _, o := range d.Options {
		if o.Key != "" {
			continue
		}
		w := firstWord(o.Text)
		if w == word && normalise(o.Text) == word {
			return o, true
		}
		if w == word {
			starts = append(starts, o)
		}
	}
	if len(starts) == 1 {
		return starts[0], true
	}
	return Option{}, false
}

// firstWord is a text's first word, lower case, without what follows it
// ("Yes, and …" → "yes", "No (recommended)" → "no").
func firstWord(s string) string {
	s = normalise(s)
	if i := strings.IndexAny(s, " ,.;:()"); i >= 0 {
		s = s[:i]
	}
	return s
}

// normalise is text as options are compared: lower case, single spaces,
// straight apostrophes (Claude Code draws "don’t" with U+2019 at times).
func normalise(s string) string {
	s = strings.ReplaceAll(s, "’", "'")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Number is the option a person means by n: the one numbered n in a numbered
// menu, else the nth, counting from 1.
func (d Dialog) Number(n int) (Option, bool) {
	if n < 1 || n > len(d.Options) {
		return Option{}, false
	}
	return d.Options[n-1], true
}

// Find is the option whose text is text (as compared by normalise; "4. No"
// and "cancel (Esc)" as String writes them count too), else the only one
// whose text starts with it. It returns every option that starts with text
// when there are several, and none when nothing matches.
func (d Dialog) Find(text string) (o Option, candidates []Option) {
	want := normalise(text)
	if want == "" {
		return Option{}, nil
	}
	for _, o := range d.all() {
		if normalise(o.Text) == want || normalise(o.String()) == want {
			return o, []Option{o}
		}
	}
	for _, o := range d.all() {
		if strings.HasPrefix(normalise(o.Text), want) || strings.HasPrefix(normalise(o.String()), want) {
			candidates = append(candidates, o)
		}
	}
	if len(candidates) == 1 {
		return candidates[0], candidates
	}
	return Option{}, candidates
}

// all is the options and the footer's Esc choice.
func (d Dialog) all() []Option {
	if d.Cancel == nil {
		return d.Options
	}
	return append(d.Options[:len(d.Options):len(d.Options)], *d.Cancel)
}

// Keys are the tmux keys that choose o: its key for a footer choice; its
// digit in a numbered menu (Claude Code acts on it at once, no Enter); the
// No of an unnumbered menu whose footer says Esc cancels, Esc (one key, so
// nothing sent in part can pick another option; Claude Code takes it as that
// No: the folder not trusted, the key not used); else arrows from the
// selected option to it, then Enter.
//
// A Codex or Gemini row with its own key ("(y)", "(esc)") is chosen by that
// key alone; Codex's other rows by arrows and Enter (its digits were not
// tried); Gemini's by their digit (it acts at once).
func (d Dialog) Keys(o Option) []string {
	if o.Key != "" {
		return []string{o.Key}
	}
	if o.Shortcut != "" {
		if k, ok := shortcutKeys[o.Shortcut]; ok {
			return []string{k}
		}
		return []string{o.Shortcut}
	}
	if d.Numbered && o.Number >= 1 && o.Number <= 9 && d.CLI != CLICodex {
		return []string{strconv.Itoa(o.Number)}
	}
	if no, ok := d.plain("no"); ok && no.Index == o.Index && d.Cancel != nil {
		return []string{d.Cancel.Key}
	}
	var keys []string
	for i := d.Selected; i < o.Index; i++ {
		keys = append(keys, "Down")
	}
	for i := d.Selected; i > o.Index; i-- {
		keys = append(keys, "Up")
	}
	return append(keys, "Enter")
}

// Describe lists the options on one line, as a person would choose them:
// "1. Yes · 2. Yes, and always allow access to … · 4. No", an unnumbered
// menu's by their place ("1: No, exit · 2: Yes, I trust this folder"), each
// text cut to width runes (0: whole).
func (d Dialog) Describe(width int) string {
	parts := make([]string, 0, len(d.Options))
	for i, o := range d.Options {
		o.Text = cut(o.Text, width)
		s := o.String()
		if !d.Numbered {
			s = strconv.Itoa(i+1) + ": " + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func cut(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:max(1, width-1)]) + "…"
}

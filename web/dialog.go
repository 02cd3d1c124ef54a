package web

import (
	"slices"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/stallwatch"
)

// DialogView is a Claude Code dialog a member is stalled at, as its screen
// shows it, for a person to answer from a phone: what it asks about (its
// lines above its options: the tool, the command, file or URL, the
// question) and its options by their own labels. Read with the function
// `teamctl answer` and top choose options by (stallwatch.ReadDialog); the
// page draws it as it is.
type DialogView struct {
	Asks    []string     `json:"asks"`
	Options []OptionView `json:"options"` // none when they cannot be read: keys, or attach
}

// OptionView is one of a dialog's options: its label as `teamctl answer
// --option` takes it ("4. No", "cancel (Esc)"); Safe for its No (or its
// cancel), which runs nothing.
type OptionView struct {
	Label string `json:"label"`
	Safe  bool   `json:"safe,omitempty"`
}

const (
	// asksLines bounds what a dialog asks about, as the page shows it.
	asksLines = 24
	// asksWidth bounds each of its lines.
	asksWidth = 400
)

// readDialogView is the dialog on screen, for a member stalled at pattern:
// nil when the screen shows no dialog and pattern is none of Claude Code's.
func readDialogView(screen, pattern string) *DialogView {
	if strings.ContainsRune(screen, 0x1b) || strings.ContainsRune(screen, '\r') {
		screen = stallwatch.Strip([]byte(screen))
	}
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	d, ok := stallwatch.ReadDialog(screen)
	if !ok {
		if !stallwatch.IsDialog(pattern) {
			return nil
		}
		return &DialogView{Asks: asks(lines, len(lines)), Options: []OptionView{}}
	}
	v := &DialogView{Asks: asks(lines, menuTop(lines, d)), Options: []OptionView{}}
	no, hasNo := d.No()
	all := d.Options
	if d.Cancel != nil {
		all = append(slices.Clone(all), *d.Cancel)
	}
	for _, o := range all {
		v.Options = append(v.Options, OptionView{Label: textsafe.Visible(o.String()), Safe: hasNo && o.String() == no.String()})
	}
	return v
}

// menuTop is the line where d's options begin on the screen: the lowest
// from which ReadDialog still reads every one of them (the very function
// that read d, so the two never disagree on where the menu is).
func menuTop(lines []string, d stallwatch.Dialog) int {
	for k := len(lines) - 1; k >= 0; k-- {
		if e, ok := stallwatch.ReadDialog(strings.Join(lines[k:], "\n")); ok && slices.Equal(e.Options, d.Options) {
			return k
		}
	}
	return len(lines)
}

// asks are the lines above top up to the dialog's border (a rule of ─, as
// Claude Code draws one above every dialog), at most asksLines of them, its
// dashed rules and blank runs left out, every line trimmed and made visible.
func asks(lines []string, top int) []string {
	from := top
	for from > 0 && top-from < asksLines {
		t := strings.TrimSpace(lines[from-1])
		if t != "" && strings.Trim(t, "─▔") == "" {
			break
		}
		from--
	}
	var out []string
	for _, l := range lines[from:top] {
		t := strings.TrimSpace(l)
		if t != "" && strings.Trim(t, "╌") == "" {
			continue
		}
		if t == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, textsafe.Visible(textsafe.Short(t, asksWidth)))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if out == nil {
		out = []string{}
	}
	return out
}

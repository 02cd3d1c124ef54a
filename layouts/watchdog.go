package layouts

import (
	"errors"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/teamctl/teamctl/stallwatch"
)

// The watchdog's limits and defaults.
const (
	defaultQuiet = 2 * time.Second
	minQuiet     = 100 * time.Millisecond
	maxQuiet     = time.Hour
)

// watchScopes are the values of a pattern's scope:, the default first.
var watchScopes = []string{string(stallwatch.LastLine), string(stallwatch.Screen)}

// defaultPatternNames are the names of stallwatch's default patterns, in order.
var defaultPatternNames = sync.OnceValue(func() []string {
	var names []string
	for _, p := range stallwatch.DefaultPatterns() {
		names = append(names, p.Name)
	}
	return names
})

// watchdog reads the watchdog: mapping, which may be absent.
func (w *walker) watchdog(n *yaml.Node) Watchdog {
	wd := Watchdog{Quiet: defaultQuiet, Defaults: true}
	if n == nil || !w.isMapping(n, "watchdog") {
		return wd
	}
	f := w.fields(n, "watchdog", watchdogKeys)
	wd.Quiet = w.quiet(f.get("quiet"), "watchdog.quiet")
	wd.Defaults = w.flag(f.get("defaults"), "watchdog.defaults", true)
	var known patternNames
	wd.Patterns, known = w.watchPatterns(f.get("patterns"), "watchdog.patterns")
	for _, p := range wd.Patterns {
		known.lastLine[p.Name] = p.Scope == string(stallwatch.LastLine)
	}
	if wd.Defaults {
		for _, p := range stallwatch.DefaultPatterns() {
			if !slices.Contains(known.valid, p.Name) {
				known.valid = append(known.valid, p.Name) // a layout pattern of the same name replaces it
				known.lastLine[p.Name] = p.Scope == stallwatch.LastLine
			}
		}
	}
	wd.Notify = w.notify(f.get("notify"), "watchdog.notify")
	wd.Answer = w.answers(f.get("answer"), "watchdog.answer", known)
	return wd
}

// quiet returns the duration n holds, or the default when n is nil or invalid.
func (w *walker) quiet(n *yaml.Node, path string) time.Duration {
	s, ok := w.text(n, path)
	if !ok {
		return defaultQuiet
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < minQuiet || d > maxQuiet {
		w.add(n, path, "must be a duration like 2s or 500ms, between 100ms and 1h (got %q)", s)
		return defaultQuiet
	}
	return d
}

// patternNames are the pattern names an answer may refer to.
type patternNames struct {
	valid    []string        // in file order, then the defaults' (when on)
	invalid  map[string]bool // names already reported as invalid, so answers naming them are not reported again
	lastLine map[string]bool // the valid ones that look at the last line: prompts, never a dialog
}

// watchPatterns reads the patterns: list.
func (w *walker) watchPatterns(n *yaml.Node, path string) ([]WatchPattern, patternNames) {
	known := patternNames{invalid: map[string]bool{}, lastLine: map[string]bool{}}
	if n == nil {
		return nil, known
	}
	if n.Kind != yaml.SequenceNode {
		w.add(n, path, "must be a list of patterns")
		return nil, known
	}
	var patterns []WatchPattern
	first := map[string]*yaml.Node{} // name -> where it was first set
	for i, item := range n.Content {
		p := index(path, i)
		if item = w.resolve(item); !w.isMapping(item, p) {
			continue
		}
		wp, nameNode, ok := w.watchPattern(item, p)
		switch {
		case nameNode == nil:
		case wp.Name == "":
			known.invalid[nameNode.Value] = true
		case first[wp.Name] != nil:
			w.add(nameNode, join(p, "name"), "duplicate name %q (first at line %d)", wp.Name, first[wp.Name].Line)
			ok = false
		default:
			first[wp.Name] = nameNode
			known.valid = append(known.valid, wp.Name)
		}
		if ok {
			patterns = append(patterns, wp)
		}
	}
	return patterns, known
}

// watchPattern reads one patterns: entry m at path. It returns the pattern,
// the node of its name (nil when it has none) and whether it is valid.
func (w *walker) watchPattern(m *yaml.Node, path string) (wp WatchPattern, nameNode *yaml.Node, ok bool) {
	wp = WatchPattern{Line: m.Line, Column: m.Column}
	f := w.fields(m, path, watchPatternKeys)
	before := len(w.problems)
	if nameNode = w.required(f, "name", m, path); nameNode != nil {
		wp.Name = w.name(nameNode, join(path, "name"))
	}
	wp.Scope = w.choice(f.get("scope"), join(path, "scope"), watchScopes, watchScopes[0])
	if v := w.required(f, "regex", m, path); v != nil {
		if s, valid := w.text(v, join(path, "regex")); valid && s == "" {
			w.add(v, join(path, "regex"), "must not be empty: it would match every line")
		} else if valid {
			wp.Regex = s
			if _, err := stallwatch.Compile(wp.Name, s, stallwatch.Scope(wp.Scope)); err != nil {
				w.add(v, join(path, "regex"), "%s", regexError(err))
			}
		}
	}
	return wp, nameNode, len(w.problems) == before
}

// regexError is err's text without the (?i) that stallwatch.Compile puts in
// front of every expression, so the message quotes what the file says.
func regexError(err error) string {
	var serr *syntax.Error
	if errors.As(err, &serr) {
		e := *serr
		e.Expr = strings.TrimPrefix(e.Expr, "(?i)")
		return e.Error()
	}
	return err.Error()
}

// notify reads the notify: mapping.
func (w *walker) notify(n *yaml.Node, path string) Notify {
	var nt Notify
	if n == nil || !w.isMapping(n, path) {
		return nt
	}
	f := w.fields(n, path, notifyKeys)
	if v := f.get("command"); v != nil {
		nt.Command = w.command(v, join(path, "command"), "[notify-send, teamctl]")
	}
	nt.Lead = w.boolean(f.get("lead"), join(path, "lead"))
	return nt
}

// answers reads the answer: list; known are the patterns it may name.
func (w *walker) answers(n *yaml.Node, path string, known patternNames) []Answer {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		w.add(n, path, "must be a list of answers")
		return nil
	}
	var answers []Answer
	first := map[string]*yaml.Node{} // pattern -> where its first answer names it
	for i, item := range n.Content {
		p := index(path, i)
		if item = w.resolve(item); !w.isMapping(item, p) {
			continue
		}
		f := w.fields(item, p, answerKeys)
		before := len(w.problems)
		var a Answer
		if v := w.required(f, "pattern", item, p); v != nil {
			a.Pattern = w.answerPattern(v, join(p, "pattern"), known)
			if prev := first[a.Pattern]; a.Pattern != "" && prev != nil {
				w.add(v, join(p, "pattern"), "duplicate answer for pattern %q (first at line %d)", a.Pattern, prev.Line)
			} else if a.Pattern != "" {
				first[a.Pattern] = v
			}
		}
		w.answerWith(&a, f, item, p, known)
		if len(w.problems) == before {
			answers = append(answers, a)
		}
	}
	return answers
}

// answerWith reads what an answer sends: keys for a prompt, an option for
// one of Claude Code's dialogs, whose menus ignore keys such as y and n (and
// whose Enter picks whatever is selected). a.Pattern is "" when the answer
// names no valid pattern.
func (w *walker) answerWith(a *Answer, f fields, item *yaml.Node, path string, known patternNames) {
	keysEntry, hasKeys := f["keys"]
	optEntry, hasOption := f["option"]
	dialog := a.Pattern != "" && stallwatch.IsDialog(a.Pattern)
	switch {
	case hasKeys && hasOption:
		w.add(optEntry.value, join(path, "option"), "give keys or option, not both: keys for a prompt, option for a Claude Code dialog")
	case hasKeys && dialog:
		w.add(keysEntry.value, join(path, "keys"), "%s is a Claude Code dialog: answer it with option: (the text of the option to choose, e.g. %q), not keys: its menu ignores y and n, and Enter picks whatever is selected", a.Pattern, exampleOption(a.Pattern))
	case hasOption && a.Pattern != "" && known.lastLine[a.Pattern]:
		w.add(optEntry.value, join(path, "option"), "%s is a prompt on the last line, not a dialog with options: give keys: instead, e.g. keys: [y, Enter]", a.Pattern)
	case hasOption:
		if v := w.required(f, "option", item, path); v != nil {
			if s, ok := w.text(v, join(path, "option")); ok && strings.TrimSpace(s) == "" {
				w.add(v, join(path, "option"), "must not be empty: the text of the option to choose, e.g. %q", exampleOption(a.Pattern))
			} else if ok {
				a.Option = s
			}
		}
	case dialog:
		w.add(item, join(path, "option"), "required key is missing: %s is a Claude Code dialog, answered by choosing one of its options, e.g. option: %q", a.Pattern, exampleOption(a.Pattern))
	default:
		if v := w.required(f, "keys", item, path); v != nil {
			a.Keys = w.keys(v, join(path, "keys"))
		}
	}
}

// exampleOption is an option of the dialog pattern names, for messages.
func exampleOption(pattern string) string {
	if pattern == "claude-trust" {
		return "Yes, I trust this folder"
	}
	return "No"
}

// answerPattern returns n's text if it names a known pattern, or "".
func (w *walker) answerPattern(n *yaml.Node, path string, known patternNames) string {
	s, ok := w.text(n, path)
	switch {
	case !ok:
		return ""
	case slices.Contains(known.valid, s):
		return s
	case known.invalid[s]:
		return "" // its pattern's name is reported already
	case len(known.valid) == 0:
		w.add(n, path, "names pattern %q, but there are no patterns: watchdog.defaults is false and watchdog.patterns lists none", s)
	default:
		w.add(n, path, "must name a pattern: one of %s (got %q)%s", strings.Join(known.valid, ", "), s, didYouMean(s, known.valid))
	}
	return ""
}

// keys returns the keys of an answer: tmux key names such as Enter, or text.
func (w *walker) keys(n *yaml.Node, path string) []string {
	if n.Kind != yaml.SequenceNode {
		w.add(n, path, "must be a list of keys, e.g. [y, Enter]")
		return nil
	}
	keys, ok := w.stringList(n, path)
	if len(n.Content) == 0 {
		w.add(n, path, "must not be empty: list the keys to send, e.g. [y, Enter]")
		return nil
	}
	// An empty key sends nothing, so it is a mistake; each is reported
	// alongside whatever else is wrong with the list.
	for i, item := range n.Content {
		if item = w.resolve(item); item.Kind == yaml.ScalarNode && !isNull(item) && item.Value == "" {
			w.add(item, index(path, i), "must not be empty")
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return keys
}

package layouts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// walker walks a layout's yaml.Node tree and collects every problem it finds,
// so that a person sees all of them at once rather than one per run.
type walker struct {
	file     string // the file name for messages
	base     string // absolute folder that a relative root is resolved against
	problems []Problem

	// budget is how much more of the tree the walk may visit (see resolve);
	// over is set once it ran out, lastAlias is the alias followed last.
	budget    int
	limit     int // the budget it started with, for the message
	over      bool
	lastAlias *yaml.Node

	reported map[problemKey]bool
}

// problemKey is a problem without its path: the same mistake inside an anchor
// is reported once, not once for every alias of it.
type problemKey struct {
	line, col int
	msg       string
}

// maxProblems is how many problems one file gets; past that, fixing the
// first ones is the next step anyway.
const maxProblems = 1000

// add records a problem at n's position. Once the budget ran out nothing more
// is recorded: what the walk sees from then on is not the file's content.
func (w *walker) add(n *yaml.Node, path, format string, args ...any) {
	if w.over || len(w.problems) > maxProblems {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if len(w.problems) == maxProblems {
		msg = fmt.Sprintf("more than %d problems: fix these first", maxProblems)
	}
	key := problemKey{n.Line, n.Column, msg}
	if w.reported[key] {
		return
	}
	if w.reported == nil {
		w.reported = map[problemKey]bool{}
	}
	w.reported[key] = true
	w.problems = append(w.problems, Problem{File: w.file, Line: n.Line, Col: n.Column, Path: path, Msg: msg})
}

// join appends a key to a path: join("lead", "env") is "lead.env".
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index appends a list index to a path: index("members", 1) is "members[1]".
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// MaxSize is the largest layout file accepted. Layouts are a few kilobytes;
// the limit keeps a stray or hostile file from costing more than a moment.
const MaxSize = 1 << 20

// budgetFor is how much of the tree the walk of a document of size bytes may
// visit. A file without aliases visits each node about once, and a node takes
// at least two bytes, so the budget never binds it; aliases can make a small
// file expand exponentially (each level of `<<: [*a, *a, …]` multiplies the
// merged entries), and that is what the budget stops. The floor leaves room
// for any sensible reuse of anchors.
func budgetFor(size int) int { return 100_000 + 2*size }

// empty is what resolve hands out once the budget ran out: a null, on which
// every reader of the tree stops at once.
var empty = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}

// resolve follows an alias (*name) to the node its anchor (&name) marks, and
// charges the visit to the walk's budget: one per alias and node, plus the
// length of a scalar's text (which is checked and copied). Every node the
// walk reads goes through here, so the budget bounds the walk's work whatever
// the aliases expand to; when it runs out, the layout is refused with one
// problem at the alias followed last.
func (w *walker) resolve(n *yaml.Node) *yaml.Node {
	if w.over {
		return empty
	}
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		w.lastAlias = n
		w.budget--
		n = n.Alias
	}
	if n != nil {
		w.budget -= 1 + len(n.Value)/8
	}
	if w.budget < 0 {
		at := n
		if w.lastAlias != nil {
			at = w.lastAlias
		}
		w.add(at, "", "aliases expand the layout to more than %d nodes, the limit for a file of this size: is an anchor merged or repeated many times over?", w.limit)
		w.over = true
		return empty
	}
	return n
}

// isNull reports whether n is YAML's null (`~`, `null` or nothing at all).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// entry is one key: value pair of a mapping, with the value's alias resolved.
type entry struct{ key, value *yaml.Node }

// fields are a mapping's known entries by key.
type fields map[string]entry

// get returns key's value, or nil when the key is absent or null: an optional
// key set to null means "not set".
func (f fields) get(key string) *yaml.Node {
	e, ok := f[key]
	if !ok || isNull(e.value) {
		return nil
	}
	return e.value
}

// fields returns the entries of mapping m, reporting each key that is not in
// known at the key's position.
func (w *walker) fields(m *yaml.Node, path string, known []string) fields {
	f := fields{}
	for _, e := range w.entries(m, path, map[*yaml.Node]bool{}) {
		k := e.key.Value
		if !slices.Contains(known, k) {
			w.add(e.key, path, "unknown key %q%s", k, didYouMean(k, known))
			continue
		}
		f[k] = e
	}
	return f
}

// entries lists the pairs of mapping m in file order, reporting non-string and
// duplicate keys (which yaml.v3 accepts in a Node tree). Merge keys (<<: *x)
// are expanded; keys set in m itself win over merged ones, as YAML specifies.
// seen holds the mappings being expanded, so a mapping that merges itself
// is reported rather than followed forever.
func (w *walker) entries(m *yaml.Node, path string, seen map[*yaml.Node]bool) []entry {
	if w.over {
		return nil
	}
	seen[m] = true
	defer delete(seen, m)
	var own, merged []entry
	first := map[string]*yaml.Node{} // key -> its first key node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := w.resolve(m.Content[i]), w.resolve(m.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, w.merge(v, path, seen)...)
			continue
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			w.add(k, path, "keys must be strings")
			continue
		}
		if prev, dup := first[k.Value]; dup {
			w.add(k, join(path, k.Value), "duplicate key %q (first at line %d)", k.Value, prev.Line)
			continue
		}
		first[k.Value] = k
		own = append(own, entry{k, v})
	}
	for _, e := range merged {
		if _, set := first[e.key.Value]; !set {
			first[e.key.Value] = e.key
			own = append(own, e)
		}
	}
	return own
}

// merge returns the entries that a merge key's value v brings in: a mapping,
// or a list of mappings where the earlier ones win.
func (w *walker) merge(v *yaml.Node, path string, seen map[*yaml.Node]bool) []entry {
	switch v.Kind {
	case yaml.MappingNode:
		if seen[v] {
			w.add(v, path, "<< merges a mapping into itself")
			return nil
		}
		return w.entries(v, path, seen)
	case yaml.SequenceNode:
		var all []entry
		for _, item := range v.Content {
			if item = w.resolve(item); item.Kind != yaml.MappingNode {
				w.add(item, path, "<< must be a mapping or a list of mappings")
				continue
			}
			all = append(all, w.merge(item, path, seen)...)
		}
		return all
	}
	w.add(v, path, "<< must be a mapping or a list of mappings")
	return nil
}

// isMapping reports whether n is a mapping, reporting a problem if it is not.
func (w *walker) isMapping(n *yaml.Node, path string) bool {
	if n.Kind != yaml.MappingNode {
		w.add(n, path, "must be a mapping")
		return false
	}
	return true
}

// text returns the text of scalar n; ok is false when n is nil (not set) or
// not a valid string. Any scalar is a string, as written: `model: 4` is "4".
// No string may hold a NUL byte, since most of them end up in argv or the
// environment, where C strings cannot carry one.
func (w *walker) text(n *yaml.Node, path string) (s string, ok bool) {
	if n == nil {
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		w.add(n, path, "must be a string")
		return "", false
	}
	if strings.ContainsRune(n.Value, 0) {
		w.add(n, path, "must not contain a NUL byte")
		return "", false
	}
	return n.Value, true
}

// stringList returns the strings of list n; ok is false when n is not a list of strings.
func (w *walker) stringList(n *yaml.Node, path string) (list []string, ok bool) {
	if n == nil {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		w.add(n, path, "must be a list of strings")
		return nil, false
	}
	ok = true
	list = make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = w.resolve(item)
		if isNull(item) {
			w.add(item, index(path, i), "must be a string")
			ok = false
			continue
		}
		s, valid := w.text(item, index(path, i))
		if valid && w.tooLongArg(item, index(path, i), "this argument", s, fileHint) {
			valid = false
		}
		ok = ok && valid
		list = append(list, s)
	}
	return list, ok
}

// boolean returns the value of true/false n; false when n is nil (not set).
func (w *walker) boolean(n *yaml.Node, path string) bool { return w.flag(n, path, false) }

// flag returns the value of true/false n, or def when n is nil or invalid.
func (w *walker) flag(n *yaml.Node, path string, def bool) bool {
	if n == nil {
		return def
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		w.add(n, path, "must be true or false")
		return def
	}
	return b
}

// choice returns n's text if it is one of choices, or def when n is nil or invalid.
func (w *walker) choice(n *yaml.Node, path string, choices []string, def string) string {
	s, ok := w.text(n, path)
	if !ok {
		return def
	}
	if !slices.Contains(choices, s) {
		w.add(n, path, "must be one of %s (got %q)%s", strings.Join(choices, ", "), s, didYouMean(s, choices))
		return def
	}
	return s
}

// nameRE is what team and member names may be: they end up in tmux names,
// file names and Claude Code agent names, so they must be safe in all of them.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// name returns n's text if it is a valid team or member name, or "".
func (w *walker) name(n *yaml.Node, path string) string {
	s, ok := w.text(n, path)
	if !ok {
		return ""
	}
	if !nameRE.MatchString(s) {
		w.add(n, path, `must be 1-40 characters of a-z, 0-9 and "-", starting with a letter or digit (got %q)`, s)
		return ""
	}
	return s
}

// required returns key's value, reporting a missing key at mapping m and a null value where it is.
func (w *walker) required(f fields, key string, m *yaml.Node, path string) *yaml.Node {
	e, ok := f[key]
	switch {
	case !ok:
		w.add(m, join(path, key), "required key is missing")
		return nil
	case isNull(e.value):
		w.add(e.value, join(path, key), "must not be empty")
		return nil
	}
	return e.value
}

// envNameRE is a portable environment variable name (POSIX, plus lowercase).
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env returns the NAME: value pairs of mapping n in file order. Values are any
// scalar, kept as written (`1`, `true`); a null value sets the variable to "".
func (w *walker) env(n *yaml.Node, path string) []EnvVar {
	if n == nil || !w.isMapping(n, path) {
		return nil
	}
	var vars []EnvVar
	for _, e := range w.entries(n, path, map[*yaml.Node]bool{}) {
		name, p := e.key.Value, join(path, e.key.Value)
		if !envNameRE.MatchString(name) {
			w.add(e.key, p, "invalid variable name: must be letters, digits and _, not starting with a digit")
			continue
		}
		value := ""
		if !isNull(e.value) {
			if e.value.Kind != yaml.ScalarNode {
				w.add(e.value, p, "must be a string, number or true/false, not a %s", kindName(e.value))
				continue
			}
			var ok bool
			if value, ok = w.text(e.value, p); !ok || w.tooLongEnv(e.value, p, name, value) {
				continue
			}
		}
		vars = append(vars, EnvVar{Name: name, Value: value})
	}
	return vars
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}

// dir resolves n's path against base (an absolute path is kept) and, if check
// is set, reports when it is not an existing directory. It returns base when
// n is nil and ok is false when the directory is not usable.
func (w *walker) dir(n *yaml.Node, path, base string, check bool) (dir string, ok bool) {
	s, set := w.text(n, path)
	if !set {
		return base, n == nil
	}
	// filepath.Join cleans; symlinks are kept as written so that paths in
	// messages and panes look like the ones in the file.
	dir = filepath.Clean(s)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	if !check {
		return dir, true
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.add(n, path, "directory %s does not exist", dir)
	case err != nil:
		w.add(n, path, "cannot use directory %s: %v", dir, err)
	case !fi.IsDir():
		w.add(n, path, "%s is not a directory", dir)
	default:
		return dir, true
	}
	return dir, false
}

package permrules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// This file reads a Bash command as bash reads it, with mvdan.cc/sh's parser
// (shfmt's), and lists its simple commands: those in lists, pipelines,
// subshells, groups, if/while bodies, substitutions ($( … ), `…`, <( … ),
// >( … )) and here-documents. Each word is taken after quote removal, and is
// literal only when bash would hand the program exactly that text: no
// parameter, arithmetic, command or process substitution, no unquoted glob,
// extended glob or brace expansion, no ~user, no $"…". A leading ~ or ~/ is
// kept apart (tilde): it is the member's home.
//
// The reading is sure only when the parser read the whole command and every
// word in it is literal (or a plain ~) and nothing else in it is left
// unread: for, case, select, functions, [[ ]], (( )), let, declare/export/
// local, coproc, {fd}> redirections, arrays, and a here-document whose body
// expands. What was read still counts for deny rules, where it is certain.
//
// Claude Code runs commands in the user's shell, bash or zsh. The parser reads
// bash; for zsh a word is also not literal when it starts with = (the path of
// a command), holds an unquoted # after its start or ^ at its start or after
// a slash (globs with EXTENDED_GLOB).

// script is a read command.
type script struct {
	cmds []simpleCmd // every simple command, nested ones included
	sure bool        // the whole command was read, every word literal
}

// simpleCmd is one simple command: assignments, words and the redirections
// that touch files. A compound command's own redirections make a simpleCmd
// with no words.
type simpleCmd struct {
	assigns []word
	words   []word
	files   []redirect
}

// word is one shell word.
type word struct {
	raw   string // as written
	text  string // after quote removal; what the program gets when lit
	lit   bool   // nothing in it is expanded: the program gets text
	tilde bool   // lit but for a leading unquoted ~ or ~/ (text keeps the ~)
}

// known: the program gets text, but for a leading ~ that is the home folder.
func (w word) known() bool { return w.lit || w.tilde }

// redirect is a redirection to or from a file.
type redirect struct {
	write  bool // else a read
	target word
}

// maxDepth bounds nesting of scripts in scripts (sh -c "sh -c '…'"), so that
// no input can make the reading unbounded.
const maxDepth = 16

var assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\+?=`)

// split reads cmd; it never fails, an input it cannot read is unsure.
func split(cmd string) script {
	return splitAt(cmd, 0)
}

func splitAt(cmd string, depth int) script {
	// bash -c gets the command as a C string: a NUL ends it early. Invalid
	// UTF-8 may be read otherwise by the shell than by the parser.
	if depth > maxDepth || strings.ContainsRune(cmd, 0) || !utf8.ValidString(cmd) {
		return script{}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return script{} // nothing the shell would run is known for certain
	}
	r := &reader{src: cmd, sure: true}
	r.stmts(f.Stmts)
	return script{cmds: r.cmds, sure: r.sure}
}

// reader walks a parsed command.
type reader struct {
	src  string
	cmds []simpleCmd
	sure bool
}

func (r *reader) stmts(ss []*syntax.Stmt) {
	for _, s := range ss {
		r.stmt(s)
	}
}

func (r *reader) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	if s.Coprocess || s.Disown {
		r.sure = false
	}
	files := r.redirs(s.Redirs)
	switch c := s.Cmd.(type) {
	case nil:
		if len(files) > 0 {
			r.cmds = append(r.cmds, simpleCmd{files: files})
		}
	case *syntax.CallExpr:
		sc := simpleCmd{files: files}
		for _, a := range c.Assigns {
			sc.assigns = append(sc.assigns, r.assign(a))
		}
		for _, w := range c.Args {
			sc.words = append(sc.words, r.word(w))
		}
		r.cmds = append(r.cmds, sc)
	default:
		if len(files) > 0 {
			r.cmds = append(r.cmds, simpleCmd{files: files})
		}
		r.compound(c)
	}
}

// compound reads the commands in a compound command. Lists, pipelines,
// subshells, groups, if, while, until and time are read; the others only
// for the commands in them, and make the reading unsure.
func (r *reader) compound(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.BinaryCmd:
		r.stmt(c.X)
		r.stmt(c.Y)
	case *syntax.Subshell:
		r.stmts(c.Stmts)
	case *syntax.Block:
		r.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			r.stmts(c.Cond)
			r.stmts(c.Then)
		}
	case *syntax.WhileClause:
		r.stmts(c.Cond)
		r.stmts(c.Do)
	case *syntax.TimeClause:
		r.stmt(c.Stmt)
	default:
		// for, case, functions, [[ ]], (( )), let, declare, coproc: what
		// they run depends on values not known here, or they change what
		// later words mean (a function named git).
		r.sure = false
		r.nested(c)
	}
}

// nested reads the commands anywhere inside a node, for deny rules.
func (r *reader) nested(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			r.stmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			r.stmts(n.Stmts)
			return false
		case *syntax.Stmt:
			r.stmt(n)
			return false
		}
		return true
	})
}

// redirs reads a statement's redirections; it returns those to or from files.
func (r *reader) redirs(rs []*syntax.Redirect) []redirect {
	var files []redirect
	for _, rd := range rs {
		if rd.N != nil && !isDigits(rd.N.Value) {
			r.sure = false // {fd}>file: a variable names the descriptor
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			// The body is the command's input; one that expands runs what it
			// expands (a quoted delimiter leaves it literal).
			if rd.Hdoc != nil {
				for _, p := range rd.Hdoc.Parts {
					if _, ok := p.(*syntax.Lit); !ok {
						r.sure = false
					}
				}
				r.nested(rd.Hdoc)
			}
			continue
		case syntax.WordHdoc: // <<< word: a string, not a file
			r.word(rd.Word)
			continue
		}
		w := r.word(rd.Word)
		switch {
		case (rd.Op == syntax.DplIn || rd.Op == syntax.DplOut) && w.lit && fdRE.MatchString(w.text):
			continue // 2>&1, >&2, <&-
		case w.lit && harmless(rd.Op == syntax.RdrIn, w.text):
			continue
		}
		files = append(files, redirect{write: rd.Op != syntax.RdrIn && rd.Op != syntax.DplIn, target: w})
	}
	return files
}

var fdRE = regexp.MustCompile(`^([0-9]+-?|-)$`)

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// harmless: redirection targets that are no file of anyone's.
func harmless(read bool, target string) bool {
	if target == "/dev/null" {
		return true
	}
	if read {
		return target == "/dev/stdin"
	}
	return target == "/dev/stdout" || target == "/dev/stderr"
}

// assign reads NAME=value as one word. Arrays, subscripts and += are not
// read; a ~ in the value (bash expands it after = and :) is not literal.
func (r *reader) assign(a *syntax.Assign) word {
	w := word{raw: r.text(a), lit: a.Name != nil && !a.Append && a.Index == nil && a.Array == nil && !a.Naked}
	if a.Array != nil || a.Index != nil {
		r.nested(a)
	}
	var value word
	if a.Value != nil {
		value = r.word(a.Value)
	} else {
		value = word{lit: true}
	}
	if !value.lit || strings.Contains(value.raw, "~") {
		w.lit = false
	}
	if a.Name != nil {
		w.text = a.Name.Value + "=" + value.text
	}
	if !w.lit {
		r.sure = false
	}
	return w
}

// text is the source of a node as written.
func (r *reader) text(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(r.src) || s > e {
		return ""
	}
	return r.src[s:e]
}

// word reads one word: its text after quote removal, whether it is literal,
// and the commands in its substitutions.
func (r *reader) word(sw *syntax.Word) word {
	if sw == nil {
		r.sure = false
		return word{}
	}
	w := word{raw: r.text(sw), lit: true}
	var text strings.Builder
	for i, part := range sw.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				// The tilde-prefix runs to the first slash: ~ and ~/x are
				// the home folder; ~user, ~+, ~- and ~"x" are not read.
				prefix, _, slash := strings.Cut(v, "/")
				if prefix == "~" && (slash || len(sw.Parts) == 1) {
					w.tilde = true
				} else {
					w.lit = false
				}
			}
			if i == 0 && len(v) > 1 && v[0] == '=' {
				w.lit = false // zsh: =cmd is the path of cmd
			}
			if globby(v, i == 0) {
				w.lit = false
			}
			if (strings.Contains(v, "=~") || strings.Contains(v, ":~")) && assignLike(sw) {
				w.lit = false // bash expands ~ after = and : in of=~/x, as in an assignment
			}
			text.WriteString(unescape(v, false))
		case *syntax.SglQuoted:
			if !p.Dollar {
				text.WriteString(p.Value)
				break
			}
			s, ok := ansiC(p.Value)
			if !ok {
				w.lit = false
			}
			text.WriteString(s)
		case *syntax.DblQuoted:
			if p.Dollar {
				w.lit = false // $"…" is translated
			}
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					text.WriteString(unescape(l.Value, true))
				} else {
					w.lit = false
				}
			}
		default:
			w.lit = false
		}
	}
	if w.lit && braces(sw) {
		w.lit = false
	}
	w.text = text.String()
	if strings.ContainsRune(w.text, 0) {
		w.lit = false // the shell ends the word at a NUL
	}
	if w.tilde {
		w.tilde, w.lit = w.lit, false
	}
	if !w.known() {
		r.sure = false
	}
	r.nested(sw)
	return w
}

// assignLike: a word bash reads as an assignment for tilde expansion
// (NAME=…), even as an argument.
func assignLike(sw *syntax.Word) bool {
	l, ok := sw.Parts[0].(*syntax.Lit)
	return ok && assignRE.MatchString(l.Value)
}

// braces reports whether bash would brace-expand a word. SplitBraces rewrites
// the word it is given, so it is given a copy.
func braces(sw *syntax.Word) bool {
	cp := &syntax.Word{Parts: slices.Clone(sw.Parts)}
	if !syntax.SplitBraces(cp) {
		return false
	}
	return slices.ContainsFunc(cp.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	})
}

// globby reports whether unquoted text holds a glob: *, ?, […] in bash; and
// for zsh's EXTENDED_GLOB, # after the word's start and ^ at its start or
// after /. start: v begins the word.
func globby(v string, start bool) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return true
			}
		case '#':
			if i > 0 || !start {
				return true
			}
		case '^':
			if (i == 0 && start) || (i > 0 && v[i-1] == '/') {
				return true
			}
		}
	}
	return false
}

// unescape removes backslashes as bash does: unquoted, each escapes the next
// character; in double quotes, only $ ` " \ and newline.
func unescape(v string, double bool) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		n := v[i+1]
		switch {
		case n == '\n':
		case !double || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
		default:
			b.WriteByte('\\')
			b.WriteByte(n)
		}
		i++
	}
	return b.String()
}

// ansiC decodes the inside of $'…'.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for j := 0; j < len(v); {
		c := v[j]
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(v) {
			return "", false
		}
		n, size := ansiEscape(v[j+1:])
		if size == 0 {
			return "", false
		}
		b.WriteString(n)
		j += 1 + size
	}
	return b.String(), true
}

// ansiEscape decodes one escape of $'…' (s follows the backslash); size 0
// for one not read here.
func ansiEscape(s string) (string, int) {
	simple := map[byte]string{'a': "\a", 'b': "\b", 'e': "\x1b", 'E': "\x1b", 'f': "\f", 'n': "\n",
		'r': "\r", 't': "\t", 'v': "\v", '\\': "\\", '\'': "'", '"': "\"", '?': "?"}
	if v, ok := simple[s[0]]; ok {
		return v, 1
	}
	digits := func(from, max int, set string) string {
		e := from
		for e < len(s) && e-from < max && strings.IndexByte(set, s[e]) >= 0 {
			e++
		}
		return s[from:e]
	}
	const hex = "0123456789abcdefABCDEF"
	switch s[0] {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		d := digits(0, 3, "01234567")
		v, _ := strconv.ParseUint(d, 8, 16)
		return string([]byte{byte(v)}), len(d)
	case 'x':
		d := digits(1, 2, hex)
		if d == "" {
			return "", 0
		}
		v, _ := strconv.ParseUint(d, 16, 8)
		return string([]byte{byte(v)}), 1 + len(d)
	case 'u', 'U':
		// What \u00e9 becomes depends on the shell's locale (in C, bash
		// passes \u00E9 as written): not read.
		return "", 0
	case 'c':
		if len(s) < 2 {
			return "", 0
		}
		return string([]byte{s[1] & 0x1f}), 2
	}
	return "\\" + string(s[0]), 1 // unknown escapes stay as written
}

// render writes words out again as one line: joined by one space, a word
// that needs quotes in single quotes, a word with an expansion as written.
func render(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if w.lit {
			parts[i] = quote(w.text)
		} else {
			parts[i] = w.raw
		}
	}
	return strings.Join(parts, " ")
}

var plainRE = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func quote(s string) string {
	if plainRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

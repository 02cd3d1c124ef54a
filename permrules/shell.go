package permrules

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file splits a Bash command into its simple commands. It reads the part
// of the grammar that bash and zsh share (Claude Code runs commands in the
// user's shell, one of the two): lists (&& || ; & newline), pipelines (| |&),
// subshells ( … ), groups { …; }, command substitution $( … ) and `…`, process
// substitution <( … ) >( … ), quotes ('…', "…", $'…'), comments and
// redirections. Whatever else it meets — here-documents, arithmetic, if/for/
// while/case and other reserved words, function definitions, ${…} beyond a
// plain name, backslash-newline, unbalanced quotes — makes the split unsure:
// what was read up to there still counts for deny rules, but nothing is
// allowed.

// script is a split command.
type script struct {
	cmds []simpleCmd // every simple command, nested ones included
	sure bool        // the whole command was read
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
	tilde bool   // lit but for a leading unquoted ~ (text keeps the ~)
}

// redirect is a redirection to or from a file.
type redirect struct {
	write  bool // else a read
	target word
}

// errUnsure stops the split where the command is not understood.
var errUnsure = errors.New("not understood")

// maxDepth bounds nesting (subshells, substitutions, sh -c), so that no input
// can exhaust the stack.
const maxDepth = 32

type parser struct {
	s     string
	i     int
	depth int
	cmds  []simpleCmd
}

// split reads cmd; it never fails, an input it cannot read is unsure.
func split(cmd string) script {
	return splitAt(cmd, 0)
}

func splitAt(cmd string, depth int) script {
	p := &parser{s: cmd, depth: depth}
	_, err := p.list(0)
	// bash -c gets the command as a C string: a NUL ends it early. Invalid
	// UTF-8 is read byte by byte here and may not be by the shell.
	sure := err == nil && !strings.ContainsRune(cmd, 0) && utf8.ValidString(cmd)
	return script{cmds: p.cmds, sure: sure}
}

// list reads commands up to end: 0 for the end of input, ')' for a subshell
// or a substitution, '}' for a group. It returns how many it read.
func (p *parser) list(end byte) (int, error) {
	if p.depth >= maxDepth {
		return 0, errUnsure
	}
	p.depth++
	defer func() { p.depth-- }()
	n := 0
	for {
		p.skipSpace(true)
		switch {
		case p.i >= len(p.s):
			if end != 0 {
				return n, errUnsure
			}
			return n, nil
		case p.s[p.i] == ')':
			if end != ')' {
				return n, errUnsure
			}
			p.i++
			return n, nil
		case end == '}' && p.atWord("}"):
			p.i++
			return n, nil
		}
		if err := p.andOr(); err != nil {
			return n, err
		}
		n++
		p.skipSpace(false)
		switch op := p.controlOp(); op {
		case ";", "&", "\n":
			p.i += len(op)
		case ")", "":
			if op == "" && p.i < len(p.s) {
				return n, errUnsure // a word after a compound command
			}
		default:
			return n, errUnsure // ;; ;& and the like belong to case
		}
	}
}

func (p *parser) andOr() error {
	for {
		if err := p.pipeline(); err != nil {
			return err
		}
		p.skipSpace(false)
		op := p.controlOp()
		if op != "&&" && op != "||" {
			return nil
		}
		p.i += len(op)
		p.skipSpace(true)
	}
}

func (p *parser) pipeline() error {
	if p.atWord("!") {
		p.i++
		p.skipSpace(false)
	}
	for {
		if err := p.command(); err != nil {
			return err
		}
		p.skipSpace(false)
		op := p.controlOp()
		if op != "|" && op != "|&" {
			return nil
		}
		p.i += len(op)
		p.skipSpace(true)
	}
}

// reserved are the words that start or end a compound command in bash or zsh;
// none is read here.
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"case": true, "esac": true, "while": true, "until": true, "for": true, "select": true,
	"function": true, "coproc": true, "[[": true, "]]": true, "}": true, "in": true,
	"repeat": true, "foreach": true, "end": true, "nocorrect": true, "noglob": true,
}

func (p *parser) command() error {
	if p.i >= len(p.s) {
		return errUnsure // an operator with nothing after it: `npm test &&`
	}
	switch {
	case strings.HasPrefix(p.s[p.i:], "(("):
		return errUnsure // arithmetic
	case p.s[p.i] == '(':
		p.i++
		return p.compound(')')
	case p.atWord("{"):
		p.i++
		return p.compound('}')
	case reserved[p.bareWord()]:
		return errUnsure
	}
	return p.simple()
}

// compound reads the list of a subshell or a group and the redirections after it.
func (p *parser) compound(end byte) error {
	n, err := p.list(end)
	if err != nil {
		return err
	}
	if n == 0 {
		return errUnsure
	}
	var sc simpleCmd
	for {
		p.skipBlanks()
		r, ok, err := p.redirection()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r != nil {
			sc.files = append(sc.files, *r)
		}
	}
	if len(sc.files) > 0 {
		p.cmds = append(p.cmds, sc)
	}
	return nil
}

var (
	assignRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\+?=`)
	subscriptRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\[`)
)

// simple reads a simple command. What it read before an error is kept: a
// denied command before an unreadable part still counts.
func (p *parser) simple() (err error) {
	var sc simpleCmd
	items := 0
	defer func() {
		if len(sc.words)+len(sc.assigns)+len(sc.files) > 0 {
			p.cmds = append(p.cmds, sc)
		}
	}()
	for {
		p.skipBlanks()
		if p.i >= len(p.s) {
			break
		}
		r, ok, err := p.redirection()
		if err != nil {
			return err
		}
		if ok {
			items++
			if r != nil {
				sc.files = append(sc.files, *r)
			}
			continue
		}
		if c := p.s[p.i]; isMeta(c) && !p.procSubst() {
			if c == '(' {
				return errUnsure // a function definition, or a syntax error
			}
			break
		}
		w, err := p.word()
		if err != nil {
			return err
		}
		items++
		switch {
		case len(sc.words) == 0 && assignRE.MatchString(w.raw):
			sc.assigns = append(sc.assigns, w)
		case len(sc.words) == 0 && subscriptRE.MatchString(w.raw):
			return errUnsure // an array element: its subscript is arithmetic
		default:
			sc.words = append(sc.words, w)
		}
	}
	if items == 0 {
		return errUnsure
	}
	return nil
}

// redirection reads a redirection at the cursor, if there is one. r is nil
// for one that touches no file (2>&1, >/dev/null, <<<word).
func (p *parser) redirection() (r *redirect, ok bool, err error) {
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == p.i && namedFD.MatchString(p.s[j:]) {
		return nil, false, errUnsure // {fd}>file
	}
	rest := p.s[j:]
	var op string
	switch {
	case rest == "":
		return nil, false, nil
	case j == p.i && (strings.HasPrefix(rest, "&>>") || strings.HasPrefix(rest, "&>")):
		op = rest[:2]
		if strings.HasPrefix(rest, "&>>") {
			op = "&>>"
		}
	case strings.HasPrefix(rest, "<<<"):
		op = "<<<"
	case strings.HasPrefix(rest, "<<"):
		return nil, false, errUnsure // a here-document
	case len(rest) > 1 && (rest[0] == '<' || rest[0] == '>') && rest[1] == '(':
		return nil, false, nil // process substitution: a word
	case strings.HasPrefix(rest, "<>"), strings.HasPrefix(rest, "<&"), strings.HasPrefix(rest, ">>"),
		strings.HasPrefix(rest, ">|"), strings.HasPrefix(rest, ">&"):
		op = rest[:2]
	case rest[0] == '<' || rest[0] == '>':
		op = rest[:1]
	default:
		return nil, false, nil // digits that are a word of their own
	}
	p.i = j + len(op)
	p.skipBlanks()
	if p.i >= len(p.s) || (isMeta(p.s[p.i]) && !p.procSubst()) {
		return nil, false, errUnsure // a redirection with no target
	}
	w, err := p.word()
	if err != nil {
		return nil, false, err
	}
	switch {
	case op == "<<<":
		return nil, true, nil // a string, not a file
	case (op == ">&" || op == "<&") && w.lit && fdRE.MatchString(w.text):
		return nil, true, nil // 2>&1, >&2, <&-
	case w.lit && harmless(op, w.text):
		return nil, true, nil
	}
	return &redirect{write: op != "<" && op != "<&", target: w}, true, nil
}

var (
	namedFD = regexp.MustCompile(`^\{[A-Za-z_][A-Za-z0-9_]*\}[<>]`)
	fdRE    = regexp.MustCompile(`^([0-9]+-?|-)$`)
)

// harmless: redirection targets that are no file of anyone's.
func harmless(op, target string) bool {
	if target == "/dev/null" {
		return true
	}
	if op == "<" {
		return target == "/dev/stdin"
	}
	return target == "/dev/stdout" || target == "/dev/stderr"
}

// word reads one word, with the commands of the substitutions in it.
func (p *parser) word() (word, error) {
	start := p.i
	w := word{lit: true}
	var text strings.Builder
	tilde := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		if (c == ' ' || c == '\t' || isMeta(c)) && !p.procSubst() {
			break
		}
		switch {
		case c == '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return w, errUnsure
			}
			text.WriteString(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			if err := p.doubleQuoted(&w, &text); err != nil {
				return w, err
			}
		case c == '\\':
			if p.i+1 >= len(p.s) || p.s[p.i+1] == '\n' {
				return w, errUnsure // line continuation, or nothing to escape
			}
			_, size := utf8.DecodeRuneInString(p.s[p.i+1:])
			text.WriteString(p.s[p.i+1 : p.i+1+size])
			p.i += 1 + size
		case c == '$' && strings.HasPrefix(p.s[p.i:], "$'"):
			s, err := p.ansiC()
			if err != nil {
				return w, err
			}
			text.WriteString(s)
		case c == '$':
			if err := p.dollar(&w, &text, false); err != nil {
				return w, err
			}
		case c == '`':
			if err := p.backquoted(false); err != nil {
				return w, err
			}
			w.lit = false
		case c == '<' || c == '>': // <( … ) or >( … )
			p.i += 2
			if _, err := p.list(')'); err != nil {
				return w, err
			}
			w.lit = false
		default:
			switch {
			case c == '~' && p.i == start:
				tilde = p.i+1 == len(p.s) || p.s[p.i+1] == '/' || p.s[p.i+1] == ' ' || p.s[p.i+1] == '\t' || isMeta(p.s[p.i+1])
				if !tilde {
					w.lit = false // ~user, ~+, ~-
				}
			case c == '=' && p.i == start:
				w.lit = false // zsh: =cmd is the path of cmd
			case strings.IndexByte("*?[{}", c) >= 0:
				w.lit = false // a glob or a brace expansion
			}
			text.WriteByte(c)
			p.i++
		}
	}
	w.raw = p.s[start:p.i]
	w.text = text.String()
	if tilde && w.lit {
		w.lit, w.tilde = false, true
	}
	return w, nil
}

// doubleQuoted reads "…".
func (p *parser) doubleQuoted(w *word, text *strings.Builder) error {
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return nil
		case '\\':
			if p.i+1 >= len(p.s) || p.s[p.i+1] == '\n' {
				return errUnsure
			}
			if n := p.s[p.i+1]; n == '$' || n == '`' || n == '"' || n == '\\' {
				text.WriteByte(n)
			} else {
				text.WriteByte('\\')
				text.WriteByte(n)
			}
			p.i += 2
		case '$':
			if err := p.dollar(w, text, true); err != nil {
				return err
			}
		case '`':
			if err := p.backquoted(true); err != nil {
				return err
			}
			w.lit = false
		default:
			text.WriteByte(c)
			p.i++
		}
	}
	return errUnsure // unbalanced
}

var paramRE = regexp.MustCompile(`^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$`)

// dollar reads an expansion starting with $ (not $'…').
func (p *parser) dollar(w *word, text *strings.Builder, inDouble bool) error {
	rest := p.s[p.i+1:]
	switch {
	case strings.HasPrefix(rest, "(("), strings.HasPrefix(rest, "["):
		return errUnsure // arithmetic
	case strings.HasPrefix(rest, "\"") && !inDouble:
		return errUnsure // $"…", translated
	case strings.HasPrefix(rest, "("):
		p.i += 2
		if _, err := p.list(')'); err != nil {
			return err
		}
	case strings.HasPrefix(rest, "{"):
		end := strings.IndexByte(rest, '}')
		// Only ${name}: operators such as ${x@P} or ${x:-$(…)} can run code.
		if end < 0 || !paramRE.MatchString(rest[1:end]) {
			return errUnsure
		}
		p.i += end + 2
	case rest != "" && (isNameByte(rest[0]) || strings.IndexByte("@*#?$!-", rest[0]) >= 0):
		n := 1
		if isNameByte(rest[0]) && !(rest[0] >= '0' && rest[0] <= '9') {
			for n < len(rest) && isNameByte(rest[n]) {
				n++
			}
		}
		p.i += 1 + n
	default:
		text.WriteByte('$') // a lone $ is itself
		p.i++
		return nil
	}
	w.lit = false
	return nil
}

// backquoted reads `…` and splits what is inside.
func (p *parser) backquoted(inDouble bool) error {
	var inner strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c == '`':
			p.i = j + 1
			sub := splitAt(inner.String(), p.depth+1)
			p.cmds = append(p.cmds, sub.cmds...)
			if !sub.sure {
				return errUnsure
			}
			return nil
		case c == '\\' && j+1 < len(p.s):
			n := p.s[j+1]
			if n == '$' || n == '`' || n == '\\' || (inDouble && n == '"') {
				inner.WriteByte(n)
			} else {
				inner.WriteByte('\\')
				inner.WriteByte(n)
			}
			j++
		default:
			inner.WriteByte(c)
		}
	}
	return errUnsure // unbalanced
}

// ansiC reads $'…' and returns its value.
func (p *parser) ansiC() (string, error) {
	var b strings.Builder
	j := p.i + 2
	for j < len(p.s) {
		c := p.s[j]
		if c == '\'' {
			p.i = j + 1
			if strings.ContainsRune(b.String(), 0) {
				return "", errUnsure // the shell ends the word at a NUL
			}
			return b.String(), nil
		}
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(p.s) {
			break
		}
		n, size := ansiEscape(p.s[j+1:])
		if size == 0 {
			return "", errUnsure
		}
		b.WriteString(n)
		j += 1 + size
	}
	return "", errUnsure // unbalanced
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
		max := 4
		if s[0] == 'U' {
			max = 8
		}
		d := digits(1, max, hex)
		v, err := strconv.ParseUint(d, 16, 32)
		if d == "" || err != nil || !utf8.ValidRune(rune(v)) {
			return "", 0
		}
		return string(rune(v)), 1 + len(d)
	case 'c':
		if len(s) < 2 {
			return "", 0
		}
		return string([]byte{s[1] & 0x1f}), 2
	}
	return "\\" + string(s[0]), 1 // unknown escapes stay as written
}

// skipBlanks skips blanks and a comment.
func (p *parser) skipBlanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '#' {
		for p.i < len(p.s) && p.s[p.i] != '\n' {
			p.i++
		}
	}
}

// skipSpace skips blanks and comments, and newlines too when newlines is set
// (where a newline separates nothing, e.g. after &&).
func (p *parser) skipSpace(newlines bool) {
	for {
		p.skipBlanks()
		if !newlines || p.i >= len(p.s) || p.s[p.i] != '\n' {
			return
		}
		p.i++
	}
}

// controlOp is the control operator at the cursor, "" for none.
func (p *parser) controlOp() string {
	for _, op := range []string{";;&", "&&", "||", ";;", ";&", "|&", ";", "|", "&", "\n", ")"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			if op == "&" && strings.HasPrefix(p.s[p.i:], "&>") {
				return ""
			}
			return op
		}
	}
	return ""
}

// atWord reports whether the unquoted word w is at the cursor, alone.
func (p *parser) atWord(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	j := p.i + len(w)
	return j == len(p.s) || p.s[j] == ' ' || p.s[j] == '\t' || isMeta(p.s[j])
}

// bareWord is the unquoted word at the cursor, "" when it has quotes or
// expansions (a reserved word is never quoted).
func (p *parser) bareWord() string {
	j := p.i
	for j < len(p.s) && p.s[j] != ' ' && p.s[j] != '\t' && !isMeta(p.s[j]) {
		if strings.IndexByte("'\"\\$`", p.s[j]) >= 0 {
			return ""
		}
		j++
	}
	return p.s[p.i:j]
}

// procSubst reports whether <( or >( is at the cursor.
func (p *parser) procSubst() bool {
	return p.i+1 < len(p.s) && (p.s[p.i] == '<' || p.s[p.i] == '>') && p.s[p.i+1] == '('
}

// isMeta: the characters that end a word.
func isMeta(c byte) bool {
	return strings.IndexByte(";&|()<>\n", c) >= 0
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
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

package permrules

import (
	"errors"
	"regexp"
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

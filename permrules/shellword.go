package permrules

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads one shell word (shell.go splits the command into them):
// its quotes ('…', "…", $'…' and its escapes), its expansions ($name, $( … ),
// `…`) with the commands in them, and writes words out again (render) as
// Bash rules are matched against them.

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

package permrules

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Path rules (Read, Edit and the other file tools) follow Claude Code's
// documented forms, gitignore-style:
//
//	//path   from the filesystem root         Read(//etc/**)
//	~/path   from the home folder (Call.Home) Read(~/.ssh/**)
//	/path    from the member's folder         Edit(/src/**)
//	./path   from the member's folder         Edit(./src/**)
//	path     from the member's folder         Edit(src/**)
//
// Claude Code anchors /path at the settings file's folder; a layout's rules
// have no settings file, and a member's project settings live in its folder,
// so both anchor at the member's folder (Call.Cwd) here. As in Claude Code, a
// bare relative pattern in a deny rule also matches at any depth below that
// folder (Read(.env) denies sub/.env too); in an allow rule it does not.
//
// The file is made absolute against the member's folder and cleaned before
// matching, so a `..` that leaves the pattern's root never matches. Matching
// is lexical: symlinks are not resolved (the supervisor does not look at a
// member's files), so a link inside an allowed folder that points out of it
// is matched by where it is, not where it points.

// tri is a match that may not be known.
type tri int

const (
	no tri = iota
	yes
	unsure // the rule or the call cannot be read; an unsure deny means Ask
)

// fileTools are the tools whose calls name a file or folder.
var fileTools = map[string]bool{
	"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true, "Glob": true, "Grep": true,
}

// covers reports whether a rule for ruleTool applies to a call of callTool.
// A rule covers its own tool; a deny rule also covers the tools Claude Code
// applies it to: Edit's to every tool that writes files, Read's to every tool
// that reads them and, as Claude Code does, to those that write them. Allow
// rules stay with their own tool.
func covers(ruleTool, callTool string, deny bool) bool {
	if ruleTool == callTool {
		return true
	}
	if !deny {
		return false
	}
	switch ruleTool {
	case "Edit":
		return callTool == "Write" || callTool == "MultiEdit" || callTool == "NotebookEdit"
	case "Read":
		return fileTools[callTool]
	}
	return false
}

// callPath is the absolute, clean path a file tool's call names.
func callPath(c Call, in map[string]any) (p string, ok bool) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch c.Tool {
	case "Glob", "Grep":
		p = str("path")
		if p == "" {
			p = c.Cwd // they search the member's folder by default
		}
		if g := str("pattern"); c.Tool == "Glob" && (strings.HasPrefix(g, "/") || hasDotDot(g)) {
			return "", false // the glob itself leaves the folder
		}
	case "NotebookEdit":
		p = str("notebook_path")
	default:
		p = str("file_path")
	}
	return absPath(p, c.Cwd)
}

// absPath makes p absolute against cwd and cleans it.
func absPath(p, cwd string) (string, bool) {
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "~") {
		return "", false
	}
	if !path.IsAbs(p) {
		if !path.IsAbs(cwd) {
			return "", false
		}
		p = cwd + "/" + p
	}
	return path.Clean(p), true
}

// matchFile matches a path pattern against an absolute, clean file. dir is
// set for a folder a tool searches (Grep, Glob): a deny rule that may match
// something inside it makes the search unsure, as the search reads it.
func matchFile(pattern, file string, c Call, deny, dir bool) tri {
	root, pat, anyDepth, ok := patternRoot(pattern, c)
	if !ok {
		return unsure
	}
	rel, inside := relTo(root, file)
	if !inside {
		return no
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**" // a folder: everything in it
	}
	pats := []string{pat}
	if folder, ok := strings.CutSuffix(pat, "/**"); ok && deny && dir {
		pats = append(pats, folder) // searching x reads all of x/**
	}
	if anyDepth && deny {
		for _, p := range pats {
			if !strings.HasPrefix(p, "**/") {
				pats = append(pats, "**/"+p)
			}
		}
	}
	res := make([]*regexp.Regexp, len(pats))
	for i, p := range pats {
		re, err := gitignoreRE(p)
		if err != nil {
			return unsure
		}
		res[i] = re
	}
	// A deny rule naming a folder covers what is in it, as in gitignore.
	for cand := rel; ; cand = parent(cand) {
		for _, re := range res {
			if re.MatchString(cand) {
				return yes
			}
		}
		if !deny || cand == "" {
			break
		}
	}
	if deny && dir && (anyDepth || mayMatchBelow(pat, rel)) {
		return unsure
	}
	return no
}

// mayMatchBelow reports whether pat could match a path inside folder rel.
func mayMatchBelow(pat, rel string) bool {
	ps := strings.Split(pat, "/")
	var rs []string
	if rel != "" {
		rs = strings.Split(rel, "/")
	}
	for i, r := range rs {
		if i >= len(ps) {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		re, err := gitignoreRE(ps[i])
		if err != nil || !re.MatchString(r) {
			return err != nil
		}
	}
	return len(ps) > len(rs)
}

// patternRoot splits a pattern into the folder it is anchored at and the
// gitignore pattern below it; anyDepth is set for a bare relative pattern.
func patternRoot(pattern string, c Call) (root, pat string, anyDepth, ok bool) {
	switch {
	case strings.HasPrefix(pattern, "//"):
		root, pat = "/", pattern[2:]
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		root, pat = c.Home, strings.TrimPrefix(pattern[1:], "/")
	case strings.HasPrefix(pattern, "~"):
		return "", "", false, false // ~user
	case strings.HasPrefix(pattern, "/"):
		root, pat = c.Cwd, pattern[1:]
	case strings.HasPrefix(pattern, "./"):
		root, pat = c.Cwd, pattern[2:]
	default:
		root, pat, anyDepth = c.Cwd, pattern, true
	}
	if !path.IsAbs(root) {
		return "", "", false, false
	}
	root = path.Clean(root)
	// Leading ../ climb from the root (a member in services/auth may write
	// Read(../../.env)); a .. further in is not read.
	for {
		if rest, found := strings.CutPrefix(pat, "../"); found {
			root, pat, anyDepth = path.Dir(root), rest, false
		} else if rest, found := strings.CutPrefix(pat, "./"); found {
			pat = rest
		} else {
			break
		}
	}
	if pat == ".." || hasDotDot(pat) {
		return "", "", false, false
	}
	return root, pat, anyDepth, true
}

// relTo is file relative to root ("" for root itself), if it is inside it.
func relTo(root, file string) (string, bool) {
	switch {
	case file == root:
		return "", true
	case root == "/":
		return file[1:], true
	case strings.HasPrefix(file, root+"/"):
		return file[len(root)+1:], true
	}
	return "", false
}

func parent(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// gitignoreRE turns a gitignore pattern into a regexp for a relative path:
// `*` is any text but /, `?` one character but /, `[…]` a class, `**/` any
// folders (none included), a trailing `/**` everything inside, `\` quotes.
func gitignoreRE(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^(?s)`)
	for i := 0; i < len(pat); {
		if strings.HasPrefix(pat[i:], "**") && (i == 0 || pat[i-1] == '/') {
			switch after := i + 2; {
			case after == len(pat):
				b.WriteString(`.*`)
				i = after
				continue
			case pat[after] == '/':
				b.WriteString(`(?:.*/)?`)
				i = after + 1
				continue
			}
		}
		switch c := pat[i]; c {
		case '*':
			b.WriteString(`[^/]*`)
			for i < len(pat) && pat[i] == '*' {
				i++
			}
			continue
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			if class, n := globClass(pat[i:]); n > 0 {
				b.WriteString(class)
				i += n
				continue
			}
			b.WriteString(`\[`)
		case '\\':
			if i+1 < len(pat) {
				i++
			}
			_, size := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(regexp.QuoteMeta(pat[i : i+size]))
			i += size
			continue
		default:
			_, size := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(regexp.QuoteMeta(pat[i : i+size]))
			i += size
			continue
		}
		i++
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// globClass translates a [...] class at the start of s; n is 0 when s has none.
func globClass(s string) (string, int) {
	j := 1
	neg := j < len(s) && (s[j] == '!' || s[j] == '^')
	if neg {
		j++
	}
	start := j
	if j < len(s) && s[j] == ']' {
		j++ // a ] first is a member
	}
	for j < len(s) && s[j] != ']' {
		j++
	}
	if j >= len(s) {
		return "", 0
	}
	var b strings.Builder
	b.WriteString("[")
	if neg {
		b.WriteString("^/")
	}
	for _, r := range s[start:j] {
		if r == '-' {
			b.WriteRune(r) // a range
		} else {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("]")
	return b.String(), j + 1
}

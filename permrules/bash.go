package permrules

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// A Bash call is allowed only when every simple command in it (those inside
// substitutions, subshells and groups included) is allowed by a rule, and
// denied when any of them matches a deny rule: Claude Code's own reading of
// `Bash(safe-cmd *)`, which never allows `safe-cmd && other-cmd`.
//
// The command is read by a real shell parser (sh.go). Nothing is allowed by a
// rule unless the whole command was read and every word in it is literal: a
// rule is matched against what the program gets, and `git push${IFS}origin`,
// `git {push,x}` or `git pu?h` get what bash makes of them, which is not
// what is written. Nor is anything allowed that runs code not in its words (a
// shell or interpreter reading stdin or a string, xargs, find -exec, source,
// alias), or whose options run a program or write a file (opts.go).
//
// A deny rule matches where it is certain: a command whose words are all
// literal, or whose words before the first expansion already match a prefix
// rule (`git push $REMOTE` is `git push …` whatever $REMOTE is). Deny rules
// also see a program by its name without its folder (/bin/rm, ~/../bin/rm),
// what wrappers run (sudo, env, xargs, sh -c, eval, trap, find -exec…), and
// git's subcommand after its global options (git -C . push is git push).
//
// What a Bash rule is matched against is the simple command written out again:
// its words, after quote removal, joined by one space, a word that needs
// quotes in single quotes, a leading ~ as written. So `'git' 'status'` and
// `g''it status` are `git status` (the shell runs the same thing), and
// `git\ status` is not.

// decideBash decides a Bash call.
func decideBash(c Call, in map[string]any, allow, deny []Rule) (Decision, Rule) {
	for _, r := range deny {
		if r.Tool == "Bash" && isBare(r) {
			return Deny, r
		}
	}
	cmd, ok := in["command"].(string)
	if !ok {
		return Ask, Rule{}
	}
	b := newBashCall(c, cmd)
	if r, ok := b.denied(deny); ok {
		return Deny, r
	}
	// Read whole: every word literal, no code it runs hidden from the rules,
	// every file it writes or reads placed.
	whole := b.sure && !b.opaque && !b.pathUnsure
	for _, r := range allow {
		if r.Tool == "Bash" && isBare(r) {
			// Everything is allowed, but what could not be read whole may
			// hide something a deny rule names. So may a variable set for
			// a command: PAGER, GIT_SSH_COMMAND, BASH_ENV, LD_PRELOAD,
			// NODE_OPTIONS, GOFLAGS… name programs it runs.
			if (!whole || b.env) && bearsOnBash(deny) {
				return Ask, Rule{}
			}
			return Allow, r
		}
	}
	if !whole {
		return Ask, Rule{}
	}
	var used []Rule
	for _, sc := range b.sc.cmds {
		if len(sc.words) == 0 && len(sc.assigns) == 0 {
			// A compound command's own redirections: allowed when the
			// files are.
			if !b.filesAllowed(sc.files, allow) {
				return Ask, Rule{}
			}
			continue
		}
		r, ok := b.allowedBy(sc, allow)
		if !ok {
			return Ask, Rule{}
		}
		if !slices.ContainsFunc(used, func(u Rule) bool { return u.Text == r.Text }) {
			used = append(used, r)
		}
	}
	if len(used) == 0 {
		return Ask, Rule{} // nothing to run, e.g. only a comment
	}
	return Allow, joinRules(used)
}

// bearsOnBash: deny rules a Bash command could break without a rule seeing
// it, when it is not read whole: Bash patterns, and file rules (a command
// writes and reads files).
func bearsOnBash(deny []Rule) bool {
	return slices.ContainsFunc(deny, func(r Rule) bool {
		return (r.Tool == "Bash" && !isBare(r)) || fileTools[r.Tool]
	})
}

// bashCall is a Bash command read for deciding.
type bashCall struct {
	c          Call
	sc         script
	sure       bool       // the command was read whole, every word literal
	opaque     bool       // something in it runs code not in its words, or writes a file by an option
	pathUnsure bool       // a file it writes or reads could not be placed
	views      [][]view   // per simple command: every command line it runs, written out
	files      []redirect // every file it writes or reads, nested ones included
	cdSeen     bool       // a cd in the command changes what relative paths mean
	homeSet    bool       // HOME is assigned: ~ is not known
	env        bool       // a command runs with variables set for it (FOO=1 cmd, env FOO=1 cmd)
}

// view is a command line a simple command runs; a prefix one holds only the
// words before the first that is not literal.
type view struct {
	line   string
	prefix bool
}

func newBashCall(c Call, cmd string) *bashCall {
	b := &bashCall{c: c, sc: split(cmd)}
	b.sure = b.sc.sure
	for _, sc := range b.sc.cmds {
		var in inner
		in.add(sc.words, 0)
		b.sure = b.sure && !in.unsure
		b.opaque = b.opaque || in.opaque
		b.env = b.env || in.env || len(sc.assigns) > 0
		b.files = append(b.files, sc.files...)
		b.files = append(b.files, in.files...)
		var v []view
		if len(sc.assigns) > 0 && len(sc.words) > 0 {
			v = append(v, views(append(slices.Clone(sc.assigns), sc.words...))...)
		}
		for _, ws := range in.cmds {
			v = append(v, views(ws)...)
			if name := ws[0].text; ws[0].lit && (name == "cd" || name == "pushd" || name == "popd") {
				b.cdSeen = true
			}
		}
		for _, a := range sc.assigns {
			if strings.HasPrefix(a.text, "HOME=") || strings.HasPrefix(a.raw, "HOME") {
				b.homeSet = true
			}
		}
		b.views = append(b.views, v)
	}
	return b
}

// views are the lines a deny rule is matched against for one command line:
// as written, by the program's name without its folder, and git's without
// its global options.
func views(ws []word) []view {
	var out []view
	add := func(ws []word) {
		k := slices.IndexFunc(ws, func(w word) bool { return !w.known() })
		switch {
		case k == 0 || len(ws) == 0:
		case k < 0:
			out = append(out, view{line: render(ws)})
		default:
			out = append(out, view{line: render(ws[:k]), prefix: true})
		}
	}
	variants := [][]word{ws}
	if len(ws) > 0 && ws[0].known() && strings.Contains(ws[0].text, "/") {
		// A deny rule for rm is meant for /bin/rm too.
		base := path.Base(ws[0].text)
		variants = append(variants, append([]word{{raw: base, text: base, lit: true}}, ws[1:]...))
	}
	for _, v := range variants {
		add(v)
		if g, ok := gitGlobals(v); ok {
			add(g.rest)
		}
	}
	return out
}

// denied returns the first deny rule, in order, that matches a command line
// the call runs, or a file it writes or reads.
func (b *bashCall) denied(deny []Rule) (Rule, bool) {
	for _, r := range deny {
		if r.Tool == "Bash" {
			for _, v := range b.views {
				for _, l := range v {
					if (!l.prefix && matchCommand(r.Pattern, l.line)) || (l.prefix && matchPrefix(r.Pattern, l.line)) {
						return r, true
					}
				}
			}
			continue
		}
		for _, f := range b.files {
			tool := "Read"
			if f.write {
				tool = "Write"
			}
			if !covers(r.Tool, tool, true) {
				continue
			}
			file, ok := b.redirectPath(f.target)
			if !ok {
				b.pathUnsure = true
				continue
			}
			switch matchFile(r.Pattern, file, b.c, true, false) {
			case yes:
				return r, true
			case unsure:
				b.pathUnsure = true
			}
		}
	}
	return Rule{}, false
}

// redirectPath places a file a command writes or reads, lexically (symlinks
// are not followed: the supervisor does not look at a member's files).
func (b *bashCall) redirectPath(w word) (string, bool) {
	var p string
	switch {
	case w.lit:
		p = w.text
	case w.tilde && !b.homeSet && (w.text == "~" || strings.HasPrefix(w.text, "~/")) && path.IsAbs(b.c.Home):
		p = b.c.Home + w.text[1:]
	default:
		return "", false
	}
	if p == "" {
		return "", false
	}
	if !path.IsAbs(p) {
		if b.cdSeen || !path.IsAbs(b.c.Cwd) {
			return "", false
		}
		p = b.c.Cwd + "/" + p
	}
	return path.Clean(p), true
}

// filesAllowed: every file is one an allow rule lets the member write (Edit,
// Write) or read (Read).
func (b *bashCall) filesAllowed(files []redirect, allow []Rule) bool {
	for _, f := range files {
		p, ok := b.redirectPath(f.target)
		if !ok {
			return false
		}
		if !slices.ContainsFunc(allow, func(r Rule) bool {
			if f.write && r.Tool != "Edit" && r.Tool != "Write" || !f.write && r.Tool != "Read" {
				return false
			}
			return r.Pattern == "" || matchFile(r.Pattern, p, b.c, false, false) == yes
		}) {
			return false
		}
	}
	return true
}

// allowedBy returns the allow rule that allows one simple command.
func (b *bashCall) allowedBy(sc simpleCmd, allow []Rule) (Rule, bool) {
	if len(sc.words) == 0 {
		// An assignment alone (PATH=…) changes what later commands run.
		return Rule{}, false
	}
	words := stripWrappers(sc.words)
	if len(words) == 0 || !words[0].known() || words[0].text == "" {
		return Rule{}, false
	}
	var in inner
	in.add(words, 0)
	if in.unsure || in.opaque {
		return Rule{}, false
	}
	for _, ws := range in.cmds {
		if neverAllowed(ws) {
			return Rule{}, false
		}
	}
	if !b.filesAllowed(append(slices.Clone(sc.files), in.files...), allow) {
		return Rule{}, false
	}
	// Leading assignments stay in the line: FOO=1 git status is allowed by a
	// rule that says FOO=1 (Claude Code strips a list of variables it holds
	// safe; PAGER=…, GIT_SSH_COMMAND=… or LD_PRELOAD=… run code, and
	// teamctl keeps no such list).
	lines := []string{render(append(slices.Clone(sc.assigns), words...))}
	if g, ok := gitGlobals(words); ok && g.benign {
		// git -C sub status is a git status.
		lines = append(lines, render(append(slices.Clone(sc.assigns), g.rest...)))
	}
	for _, r := range allow {
		if r.Tool != "Bash" || isBare(r) {
			continue
		}
		for _, l := range lines {
			if matchCommand(r.Pattern, l) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// neverAllowed: commands no rule allows, as in Claude Code: they run code
// that is not in their words where a rule could see it (eval, source, trap),
// or run other commands in ways a prefix rule cannot bound (watch, setsid,
// ionice, flock). exec is here too: it is left to a person.
func neverAllowed(ws []word) bool {
	if !ws[0].known() {
		return true
	}
	switch path.Base(ws[0].text) {
	case "eval", "exec", "source", ".", "trap", "watch", "setsid", "ionice", "flock", "alias":
		return true
	}
	return false
}

// stripWrappers drops the wrappers Claude Code strips before matching an allow
// rule — timeout, time, nice, nohup, stdbuf — with their options, when they
// are written plainly; any option not known here leaves the line as it is.
func stripWrappers(ws []word) []word {
	for len(ws) > 0 && ws[0].lit {
		spec, ok := plainWrappers[ws[0].text]
		if !ok {
			return ws
		}
		rest, ok := unwrap(spec, ws[1:], true)
		if !ok {
			return ws
		}
		ws = rest
	}
	return ws
}

// wrapper describes a command that runs another one given in its arguments.
type wrapper struct {
	valueOpts string   // short options that take a value
	longValue []string // long options that take a value (the next word, without =)
	flags     string   // short options without a value (checked only when strict)
	longFlags []string
	operands  int  // words between the options and the command (timeout's duration)
	assigns   bool // NAME=value words may come before the command
}

var plainWrappers = map[string]wrapper{
	"timeout": {valueOpts: "ks", longValue: []string{"--kill-after", "--signal"}, flags: "v",
		longFlags: []string{"--preserve-status", "--foreground", "--verbose"}, operands: 1},
	"time":   {flags: "p"},
	"nice":   {valueOpts: "n", longValue: []string{"--adjustment"}, flags: "0123456789"},
	"nohup":  {},
	"stdbuf": {valueOpts: "ioe", longValue: []string{"--input", "--output", "--error"}},
}

// denyWrappers: what deny rules also look through (leniently: an unknown
// option is taken for a flag), besides the plain wrappers above.
var denyWrappers = map[string]wrapper{
	"env": {valueOpts: "uCS", longValue: []string{"--unset", "--chdir", "--split-string"}, assigns: true},
	"sudo": {valueOpts: "CDghpRrtTUu", longValue: []string{"--close-from", "--chdir", "--group", "--host",
		"--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"}, assigns: true},
	"doas":    {valueOpts: "uC"},
	"command": {},
	"builtin": {},
	"exec":    {valueOpts: "a"},
	"setsid":  {},
	"ionice":  {valueOpts: "cnpPu", longValue: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"chroot":  {longValue: []string{"--userspec", "--groups"}, operands: 1},
	"xargs": {valueOpts: "ILnPsdEa", longValue: []string{"--max-args", "--max-procs", "--max-chars",
		"--delimiter", "--eof", "--arg-file", "--max-lines", "--process-slot-var"}},
	"watch":      {valueOpts: "nq", longValue: []string{"--interval", "--equexit"}},
	"flock":      {valueOpts: "wE", longValue: []string{"--timeout", "--conflict-exit-code"}, operands: 1},
	"busybox":    {},
	"toybox":     {},
	"taskset":    {operands: 1},
	"chrt":       {operands: 1},
	"unbuffer":   {},
	"caffeinate": {valueOpts: "tw"},
	"strace":     {valueOpts: "abeEIopPsSuUX"},
	"ltrace":     {valueOpts: "aAbDeEfFlLnopsSTuwx"},
	"unshare":    {},
	"nsenter":    {valueOpts: "tSGw"},
	"firejail":   {},
	"runuser":    {valueOpts: "ugG", longValue: []string{"--user", "--group"}},
}

// shells run a script given in a string (-c), a file, or stdin.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"fish": true, "ash": true, "yash": true, "csh": true, "tcsh": true, "rbash": true, "posh": true}

// unwrap returns the command a wrapper runs, given the wrapper's arguments.
func unwrap(spec wrapper, args []word, strict bool) ([]word, bool) {
	i := 0
options:
	for i < len(args) {
		a := args[i]
		if !a.lit {
			if strict || strings.HasPrefix(a.raw, "-") {
				return nil, false
			}
			break
		}
		t := a.text
		switch {
		case t == "--":
			i++
			break options
		case len(t) < 2 || t[0] != '-':
			break options
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t, "=")
			switch {
			case slices.Contains(spec.longValue, name):
				if !hasValue {
					i++
				}
			case strict && !slices.Contains(spec.longFlags, name):
				return nil, false
			}
		default:
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(spec.valueOpts, t[j]) >= 0 {
					if j == len(t)-1 {
						i++ // the value is the next word
					}
					break
				}
				if strict && strings.IndexByte(spec.flags, t[j]) < 0 {
					return nil, false
				}
			}
		}
		i++
	}
	for spec.assigns && i < len(args) && assignRE.MatchString(args[i].raw) {
		i++
	}
	i += spec.operands
	if i >= len(args) {
		return nil, false
	}
	return args[i:], true
}

// inner collects every command line a simple command runs: itself, and what
// the wrappers in it run (sudo rm, xargs rm, find -exec rm, sh -c "rm", eval).
type inner struct {
	cmds   [][]word
	files  []redirect // files its options or operands write (tee f, --output=f)
	unsure bool       // something it runs could not be read
	opaque bool       // it runs code not in its words, or an option runs a program or writes a file
	env    bool       // it sets variables for what it runs (env FOO=1 cmd)
}

func (in *inner) add(ws []word, depth int) {
	if len(ws) == 0 {
		return
	}
	in.cmds = append(in.cmds, ws)
	if depth >= maxDepth {
		in.unsure = true
		return
	}
	if !ws[0].known() {
		return
	}
	name, args := path.Base(ws[0].text), ws[1:]
	risky, files := riskyOptions(ws)
	in.opaque = in.opaque || risky
	in.files = append(in.files, files...)
	switch {
	case shells[name]:
		i, kind := shellScript(args)
		switch kind {
		case fromString:
			in.scriptWord(args[i], depth)
		case fromFile:
			in.add(args[i:], depth+1) // bash ./deploy.sh x runs ./deploy.sh x
		case fromStdin:
			in.opaque = true // echo 'rm -rf ~' | bash
		}
	case name == "su" || name == "runuser" && slices.ContainsFunc(args, isCommandOpt) || name == "script":
		found := false
		for i, a := range args {
			if isCommandOpt(a) && i+1 < len(args) {
				in.scriptWord(args[i+1], depth)
				found = true
			} else if v, ok := strings.CutPrefix(a.text, "--command="); ok && a.lit {
				in.script(v, depth)
				found = true
			}
		}
		if !found {
			in.opaque = true // a shell reading stdin
		}
	case name == "eval":
		in.joined(args, depth)
	case name == "trap":
		// trap 'handler' SIGNALS: the handler is a script.
		if len(args) > 1 && !strings.HasPrefix(args[0].text, "-") {
			in.scriptWord(args[0], depth)
		}
	case name == "find":
		in.findExec(args, depth)
	case name == "command" && slices.ContainsFunc(args, func(w word) bool { return w.text == "-v" || w.text == "-V" }):
		// command -v names a command, it does not run it
	case name == "env" && slices.ContainsFunc(args, func(w word) bool {
		return w.text == "-S" || strings.HasPrefix(w.text, "--split-string") || (w.lit && strings.HasPrefix(w.text, "-") &&
			!strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "S"))
	}):
		in.unsure, in.opaque = true, true
	case name == "source" || name == ".", name == "alias", name == "hash", name == "enable", name == "fc",
		name == "parallel", (name == "mapfile" || name == "readarray") && slices.ContainsFunc(args, func(w word) bool {
			return strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "C")
		}):
		// They run a file in this shell, or change what later words mean
		// (alias git=rm, hash -p /tmp/x git), or run what they read.
		in.opaque = true
	case interpreter(name) != nil:
		if runsInline(name, args) {
			in.opaque = true // python -c …, node -e …, or a program read from stdin
		}
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox" && len(args) > 0 && args[0].text == "awk":
		if awkRuns(args) {
			in.opaque = true
		}
	case name == "sed" || name == "gsed":
		if sedRuns(args) {
			in.opaque = true
		}
	default:
		spec, ok := plainWrappers[name]
		if !ok {
			spec, ok = denyWrappers[name]
		}
		if !ok {
			return
		}
		if name == "env" || name == "sudo" {
			in.env = in.env || slices.ContainsFunc(args, func(w word) bool { return assignRE.MatchString(w.raw) })
		}
		if name == "xargs" {
			in.opaque = true // the command's words come from stdin: xargs git < args
		}
		if (name == "sudo" || name == "doas") && slices.ContainsFunc(args, func(w word) bool {
			return w.text == "-e" || w.text == "--edit" || w.text == "-s" && len(args) == 1 || w.text == "-i" && len(args) == 1
		}) {
			in.opaque = true // sudoedit, or a shell reading stdin
		}
		rest, ok := unwrap(spec, args, false)
		if !ok {
			return
		}
		switch {
		case name == "flock" && (rest[0].text == "-c" || rest[0].text == "--command"):
			if len(rest) > 1 {
				in.scriptWord(rest[1], depth)
			}
		case name == "watch" && !slices.ContainsFunc(args, func(w word) bool { return w.text == "-x" || w.text == "--exec" }),
			name == "sudo" && slices.ContainsFunc(args, func(w word) bool {
				return w.text == "-s" || w.text == "-i" || w.text == "--shell" || w.text == "--login"
			}):
			// These hand their arguments, joined, to a shell.
			in.joined(rest, depth)
		default:
			in.add(rest, depth+1)
		}
	}
}

func isCommandOpt(w word) bool { return w.lit && (w.text == "-c" || w.text == "--command") }

// Where a shell reads its script from.
const (
	fromFile = iota
	fromString
	fromStdin
)

// shellScript finds where a shell's script comes from: sh -c SCRIPT, bash
// -lc SCRIPT, sh FILE ARGS, or stdin (sh, sh -s, sh -i, sh -); i is the
// index in args of SCRIPT or FILE.
func shellScript(args []word) (i int, from int) {
	c := false
	for i = 0; i < len(args); i++ {
		a, t := args[i], args[i].text
		switch {
		case a.lit && (t == "--" || t == "-"):
			if i+1 < len(args) {
				if c {
					return i + 1, fromString
				}
				if t == "--" {
					return i + 1, fromFile
				}
			}
			return 0, fromStdin
		case !a.lit || len(t) < 2 || (t[0] != '-' && t[0] != '+'):
			if c {
				return i, fromString
			}
			return i, fromFile
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		default:
			if t[0] == '-' && strings.Contains(t, "c") {
				c = true
			}
			if t[0] == '-' && strings.ContainsAny(t, "si") && !c {
				return 0, fromStdin
			}
			if strings.ContainsAny(t[1:], "oO") {
				i++ // -o option, -O shopt
			}
		}
	}
	return 0, fromStdin
}

func (in *inner) scriptWord(w word, depth int) {
	if !w.lit {
		in.unsure = true
		return
	}
	in.script(w.text, depth)
}

// joined reads words the way eval does: joined by spaces, read again.
func (in *inner) joined(ws []word, depth int) {
	texts := make([]string, 0, len(ws))
	for _, w := range ws {
		if !w.lit {
			in.unsure = true
			return
		}
		texts = append(texts, w.text)
	}
	in.script(strings.Join(texts, " "), depth)
}

func (in *inner) script(src string, depth int) {
	sc := splitAt(src, depth+1)
	if !sc.sure {
		in.unsure = true
	}
	for _, c := range sc.cmds {
		in.files = append(in.files, c.files...)
		in.env = in.env || len(c.assigns) > 0
		if len(c.words) == 0 && len(c.assigns) > 0 {
			in.opaque = true // sh -c 'PATH=…; x': what the rest runs is not what it says
		}
		in.add(c.words, depth+1)
	}
}

// findExec adds what find's -exec, -execdir, -ok and -okdir run.
func (in *inner) findExec(args []word, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			in.add(args[i+1:j], depth+1)
			i = j
		}
	}
}

// matchPrefix matches a Bash rule's pattern against the literal words before
// an expansion: certain only for a pattern that ends in its one * (a prefix
// rule), whose text before the * those words already hold; whatever the
// expansion makes of the rest, the line matches.
func matchPrefix(pattern, prefix string) bool {
	p := strings.Join(strings.Fields(pattern), " ")
	if base, ok := strings.CutSuffix(p, ":*"); ok {
		p = base + " *"
	}
	if strings.Count(p, "*") != 1 || !strings.HasSuffix(p, "*") {
		return false
	}
	return strings.HasPrefix(prefix+" ", p[:len(p)-1])
}

// matchCommand matches a Bash rule's pattern against one command line, as
// Claude Code documents it: `cmd:*` is `cmd *`; `*` is any text, spaces
// included; a trailing ` *`, when it is the only `*`, also matches the bare
// command (`npm run *` matches `npm run`), and the space before it is a word
// boundary (`ls *` does not match `lsof`); without `*` the command must be
// exactly the pattern.
func matchCommand(pattern, line string) bool {
	p := strings.Join(strings.Fields(pattern), " ")
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		p = prefix + " *"
	}
	switch {
	case !strings.Contains(p, "*"):
		return line == p
	case strings.Count(p, "*") == 1 && strings.HasSuffix(p, " *"):
		base := p[:len(p)-2]
		return line == base || strings.HasPrefix(line, base+" ")
	}
	parts := strings.Split(p, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	return regexp.MustCompile(`^(?s)` + strings.Join(parts, ".*") + `$`).MatchString(line)
}

func isBare(r Rule) bool {
	return r.Pattern == "" || strings.TrimSpace(r.Pattern) == "*"
}

// joinRules names the rules that together allowed a compound command.
func joinRules(rs []Rule) Rule {
	if len(rs) == 1 {
		return rs[0]
	}
	texts := make([]string, len(rs))
	for i, r := range rs {
		texts[i] = r.Text
	}
	return Rule{Text: strings.Join(texts, " and "), Tool: "Bash", Pattern: rs[0].Pattern}
}

package permrules

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// This file knows the options that make a command do more than its rule
// says: run a program given in a value (go test -exec, git -c
// core.sshCommand=…, rsync -e), write a file (--output=f, go build -o f,
// curl -o f, tee f), or run code given inline (python -c, node -e, awk's
// system(), sed's e command). A command with one is never allowed by a Bash
// rule, and not under a bare Bash allow while deny rules could bear on it;
// a file it writes is checked against Edit and Write deny rules.

// runNames: options (with one dash or two, = or the next word for a value)
// that run a program or read code or settings from a value, for any program.
var runNames = map[string]bool{
	"exec": true, "execdir": true, "ok": true, "okdir": true, "toolexec": true, "vettool": true,
	"upload-pack": true, "receive-pack": true, "rsh": true, "rsync-path": true, "to-command": true,
	"use-compress-program": true, "compress-program": true, "checkpoint-action": true, "info-script": true,
	"new-volume-script": true, "rsh-command": true, "extcmd": true, "template": true, "config": true,
	"config-env": true, "eval": true, "exec-path": true, "sendmail-cmd": true, "smtp-server": true,
	"open-files-in-pager": true, "proxy-command": true, "pager": true, "editor": true,
}

// writeNames: options whose value is a file written, for any program.
var writeNames = map[string]bool{
	"output": true, "output-file": true, "output-document": true, "output-dir": true,
	"output-directory": true, "outfile": true, "out-file": true, "log-file": true, "outdir": true,
	"out-dir": true, "outputdir": true, "dump-header": true, "cookie-jar": true,
}

// goWrites: go's (and go test binaries') flags that write a file.
var goWrites = map[string]bool{
	"o": true, "coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true,
	"mutexprofile": true, "trace": true, "outputdir": true,
}

// shortWrites: per program, short options whose value is a file written, and
// shortRuns: those that run a program or read settings that can.
var (
	shortWrites = map[string]string{
		"curl": "oDc", "wget": "Ooa", "sort": "o", "gcc": "o", "g++": "o", "cc": "o", "c++": "o",
		"clang": "o", "clang++": "o", "ld": "o", "rustc": "o", "tcc": "o", "javac": "d", "strace": "o",
		"ltrace": "o",
	}
	shortRuns = map[string]string{
		"curl": "KO", "wget": "eP", "rsync": "e", "ssh": "oFS", "scp": "oFS", "sftp": "oFS", "tar": "IF",
		"zip": "T",
	}
)

// riskyOptions reports whether a command's options run a program or write a
// file, with the files it writes where they are known.
func riskyOptions(ws []word) (bool, []redirect) {
	if len(ws) == 0 || !ws[0].known() {
		return false, nil
	}
	name := path.Base(ws[0].text)
	args := ws[1:]
	risky := false
	var files []redirect
	write := func(w word) {
		files = append(files, redirect{write: true, target: w})
	}
	if name == "git" {
		g, ok := gitGlobals(ws)
		if ok && !g.benign {
			risky = true
		}
		args = g.rest[1:]
		if gitRisky(args) {
			risky = true
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit || len(a.text) < 2 || a.text[0] != '-' {
			if name == "dd" && a.lit && strings.HasPrefix(a.text, "of=") {
				risky = true
				write(word{raw: a.text[3:], text: a.text[3:], lit: true})
			}
			continue
		}
		if a.text == "--" {
			break
		}
		next := func() (word, bool) {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{}, false
		}
		long := strings.HasPrefix(a.text, "--")
		opt, value, hasValue := strings.Cut(strings.TrimLeft(a.text, "-"), "=")
		if name == "go" || strings.HasSuffix(name, ".test") {
			opt = strings.TrimPrefix(opt, "test.")
			if goWrites[opt] {
				risky = true
				if hasValue {
					write(word{raw: value, text: value, lit: true})
				} else if w, ok := next(); ok {
					write(w)
				}
				continue
			}
		}
		switch {
		case runNames[opt] && (long || len(opt) > 1):
			risky = true
			continue
		case writeNames[opt] && (long || len(opt) > 1):
			risky = true
			if hasValue {
				write(word{raw: value, text: value, lit: true})
			} else if w, ok := next(); ok && knownWriter(name) {
				write(w)
			}
			continue
		}
		if long {
			continue
		}
		// A cluster of short options, -sSLo f or -of.
		for j := 1; j < len(a.text); j++ {
			c := a.text[j]
			if strings.IndexByte(shortRuns[name], c) >= 0 {
				risky = true
				break
			}
			if strings.IndexByte(shortWrites[name], c) >= 0 {
				risky = true
				if j+1 < len(a.text) {
					v := a.text[j+1:]
					write(word{raw: v, text: v, lit: true})
				} else if w, ok := next(); ok {
					write(w)
				}
				break
			}
		}
	}
	switch name {
	case "tee":
		// tee writes its operands, as > does: a file, not an option.
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") || !a.lit {
				write(a)
			}
		}
	case "sed", "gsed":
		// sed -i writes the files it reads.
		inPlace, explicit, script := false, false, true
		for _, a := range args {
			t := a.text
			switch {
			case t == "--in-place" || strings.HasPrefix(t, "--in-place=") ||
				strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "i"):
				inPlace = true
			case t == "-e" || t == "--expression" || strings.HasPrefix(t, "--expression="):
				explicit = true
			}
		}
		for i := 0; inPlace && i < len(args); i++ {
			a := args[i]
			switch {
			case a.lit && (a.text == "-e" || a.text == "--expression" || a.text == "-l"):
				i++
			case a.lit && strings.HasPrefix(a.text, "-"):
			case script && !explicit:
				script = false
			default:
				write(a)
			}
		}
	case "go":
		// go env -w GOFLAGS=-toolexec=… runs a program in every later go.
		if len(args) > 1 && args[0].text == "env" && slices.ContainsFunc(args[1:], func(w word) bool {
			return w.text == "-w" || w.text == "-u"
		}) {
			risky = true
		}
	case "find":
		for i, a := range args {
			switch a.text {
			case "-delete":
				risky = true
			case "-fprint", "-fprint0", "-fprintf", "-fls":
				risky = true
				if i+1 < len(args) {
					write(args[i+1])
				}
			}
		}
	}
	return risky, files
}

// knownWriter: programs whose --output is known to take the next word.
func knownWriter(name string) bool {
	switch name {
	case "git", "curl", "wget", "sort", "go":
		return true
	}
	return false
}

// gitView is a git command line without its global options.
type gitView struct {
	rest   []word // git and what follows its global options
	benign bool   // only options that do not run code were removed (-C, --no-pager…)
}

// gitGlobals reads git's global options, before its subcommand: git -C .
// push is git push. ok is false for a command that is not git, or has none.
// -c, --config-env and --exec-path=DIR set what git runs (core.sshCommand,
// core.pager, core.fsmonitor, aliases), and an option not known here may
// take a value that hides the subcommand: neither is benign.
func gitGlobals(ws []word) (gitView, bool) {
	if len(ws) < 2 || !ws[0].known() || path.Base(ws[0].text) != "git" {
		return gitView{rest: ws, benign: true}, false
	}
	g := gitView{benign: true}
	i := 1
loop:
	for i < len(ws) {
		w := ws[i]
		if !w.lit || !strings.HasPrefix(w.text, "-") {
			break
		}
		name, _, hasValue := strings.Cut(w.text, "=")
		switch name {
		case "-C", "--git-dir", "--work-tree", "--namespace":
			if !hasValue && name != "-C" || name == "-C" {
				i++
			}
		case "-c", "--config-env", "--super-prefix", "--attr-source", "--list-cmds":
			g.benign = false
			if !hasValue || name == "-c" {
				i++
			}
		case "--exec-path":
			g.benign = false
		case "-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice",
			"--no-lazy-fetch":
		default:
			g.benign = false
			break loop
		}
		i++
	}
	if i == 1 {
		// No global option, or one not known here: the subcommand is
		// not known either.
		return gitView{rest: ws, benign: g.benign}, !g.benign
	}
	if i > len(ws) {
		i = len(ws)
	}
	g.rest = append([]word{ws[0]}, ws[i:]...)
	return g, true
}

// gitRisky: git subcommands and options that run a program or write config
// that does (git -C . push is read by gitGlobals first).
func gitRisky(args []word) bool {
	if len(args) == 0 || !args[0].lit {
		return false
	}
	sub, rest := args[0].text, args[1:]
	has := func(opts ...string) bool {
		return slices.ContainsFunc(rest, func(w word) bool {
			for _, o := range opts {
				if w.text == o || strings.HasPrefix(w.text, o+"=") {
					return true
				}
			}
			return false
		})
	}
	switch sub {
	case "config":
		return !gitConfigRead(rest)
	case "filter-branch", "bisect", "submodule", "send-email", "instaweb", "daemon", "credential",
		"credential-store", "credential-cache", "difftool", "mergetool", "web--browse":
		// They run commands given to them or configured (bisect run,
		// submodule foreach, difftool -x, filter-branch's filters).
		return !(sub == "bisect" && !has("run")) && !(sub == "submodule" && !has("foreach"))
	case "rebase":
		return has("-x", "--exec")
	case "clone", "ls-remote", "fetch", "pull":
		return has("-u", "-c") // --upload-pack, --config, --template: riskyOptions
	case "archive":
		return has("-o", "--remote")
	case "grep":
		return has("-O")
	case "format-patch":
		return has("-o")
	}
	return false
}

// gitConfigRead: a git config that reads (--get…, --list, get, list, or one
// key), never one that sets a key (core.pager, alias.x, core.sshCommand run
// programs) or opens an editor.
func gitConfigRead(args []word) bool {
	operands := 0
	for _, a := range args {
		switch t := a.text; {
		case !a.lit:
			return false
		case t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--get-urlmatch" || t == "-l" ||
			t == "--list" || t == "get" || t == "list" || t == "--get-color" || t == "--get-colorbool":
			return true
		case t == "-e" || t == "--edit" || t == "edit" || t == "set" || t == "unset" || t == "--add" ||
			strings.HasPrefix(t, "--unset") || strings.HasPrefix(t, "--replace") || strings.Contains(t, "section"):
			return false
		case !strings.HasPrefix(t, "-"):
			operands++
		}
	}
	return operands == 1
}

// interpreters: programs that run code given inline (codeOpts, short options
// that may be clustered) or read from stdin when given no script.
type interp struct {
	codeOpts  string   // short options whose value, or the rest, is code
	longCode  []string // long options that take code
	valueOpts string   // short options that take a value that is not code
	longValue []string
}

var interpreters = map[string]interp{
	"python":     {codeOpts: "c", valueOpts: "WXm"},
	"pypy":       {codeOpts: "c", valueOpts: "WXm"},
	"node":       {codeOpts: "epr", longCode: []string{"--eval", "--print", "--require", "--import", "--loader", "--experimental-loader"}, valueOpts: "C", longValue: []string{"--input-type", "--conditions", "--env-file", "--title"}},
	"nodejs":     {codeOpts: "epr", longCode: []string{"--eval", "--print", "--require", "--import"}},
	"bun":        {codeOpts: "epr", longCode: []string{"--eval", "--print", "--preload"}},
	"deno":       {codeOpts: "", longCode: []string{"--eval"}},
	"perl":       {codeOpts: "eEnpMm", valueOpts: "IlCx"},
	"ruby":       {codeOpts: "enpr", valueOpts: "ICEFx"},
	"php":        {codeOpts: "raBRFE", valueOpts: "cdz"},
	"lua":        {codeOpts: "el"},
	"luajit":     {codeOpts: "elj"},
	"Rscript":    {codeOpts: "e"},
	"R":          {codeOpts: "e"},
	"julia":      {codeOpts: "eEL"},
	"osascript":  {codeOpts: "e"},
	"tclsh":      {},
	"wish":       {},
	"expect":     {codeOpts: "cf"},
	"pwsh":       {codeOpts: "cCeE", longCode: []string{"-Command", "-EncodedCommand", "-command", "-c"}},
	"powershell": {codeOpts: "cCeE", longCode: []string{"-Command", "-EncodedCommand", "-command", "-c"}},
	"irb":        {},
	"jshell":     {},
	"gdb":        {codeOpts: "x", longCode: []string{"-ex", "--ex", "-iex", "--eval-command", "--init-eval-command", "-batch"}},
	"vim":        {codeOpts: "cS", longCode: []string{"--cmd"}},
	"nvim":       {codeOpts: "cS", longCode: []string{"--cmd"}},
	"vi":         {codeOpts: "cS"},
	"ex":         {codeOpts: "cS"},
	"emacs":      {longCode: []string{"--eval", "--batch", "-l", "--load", "-f", "--funcall"}},
	"sqlite3":    {longCode: []string{"-cmd", "--cmd"}},
}

var versioned = regexp.MustCompile(`^([A-Za-z]+?)[0-9.]*$`)

// interpreter returns the interpreter a program name is (python3.12 is
// python), nil for none.
func interpreter(name string) *interp {
	if in, ok := interpreters[name]; ok {
		return &in
	}
	if m := versioned.FindStringSubmatch(name); m != nil {
		if in, ok := interpreters[m[1]]; ok {
			return &in
		}
	}
	return nil
}

// runsInline: an interpreter given code in its arguments (python -c, node
// -e, perl -ne) or reading its program from stdin (python, python -), where
// no rule can see it. An interpreter running a script file is a program like
// any other. vim, emacs, gdb and sqlite3 run commands given by their
// options; a file operand is theirs to edit, not a program.
func runsInline(name string, args []word) bool {
	in := interpreter(name)
	editor := false
	switch strings.TrimRight(name, "0123456789.") {
	case "vim", "nvim", "vi", "ex", "emacs", "gdb", "sqlite":
		editor = true
	}
	operand := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit {
			return true
		}
		if strings.HasPrefix(t, "+") && editor {
			return true // vim +cmd
		}
		if t == "-" || t == "--" && i+1 >= len(args) {
			return true
		}
		if t == "--" {
			operand = true
			break
		}
		if !strings.HasPrefix(t, "-") {
			operand = true
			break
		}
		opt, _, hasValue := strings.Cut(t, "=")
		if slices.Contains(in.longCode, opt) {
			return true
		}
		if strings.HasPrefix(t, "--") {
			if slices.Contains(in.longValue, opt) && !hasValue {
				i++
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte(in.codeOpts, t[j]) >= 0 {
				return true
			}
			if strings.IndexByte(in.valueOpts, t[j]) >= 0 {
				if j == len(t)-1 {
					i++
				}
				if t[j] == 'm' && (name == "python" || strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")) {
					operand = true // python -m module runs a module, as a script
				}
				break
			}
		}
		if operand {
			break
		}
	}
	return !operand && !editor
}

// awkRuns: an awk program that may run commands or write files (system(),
// | and > in print, getline from a command, @load) or is read from a file.
func awkRuns(args []word) bool {
	program := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit {
			return true
		}
		switch {
		case t == "-f" || strings.HasPrefix(t, "--file") || strings.HasPrefix(t, "-f") ||
			t == "-i" || strings.HasPrefix(t, "--include") || t == "-l" || strings.HasPrefix(t, "--load") ||
			t == "-E" || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "--source") || t == "-e":
			return true
		case t == "-v" || t == "-F":
			i++
		case strings.HasPrefix(t, "-") && !program:
		case !program:
			program = true
			for _, bad := range []string{"system", "|", ">", "getline", "@", "ENVIRON", "PROCINFO"} {
				if strings.Contains(t, bad) {
					return true
				}
			}
		}
	}
	return !program
}

// sedRuns: a sed script that runs a command or writes a file (the e command,
// s///e and s///w, w and W), or one read from a file or not read here.
func sedRuns(args []word) bool {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit {
			return true
		}
		switch {
		case t == "-f" || strings.HasPrefix(t, "--file") || (strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "f")):
			return true
		case t == "-e" || t == "--expression":
			explicit = true
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1].text)
			}
			i++
		case strings.HasPrefix(t, "--expression="):
			explicit = true
			scripts = append(scripts, strings.TrimPrefix(t, "--expression="))
		case strings.HasPrefix(t, "-e") && len(t) > 2:
			explicit = true
			scripts = append(scripts, t[2:])
		case t == "-l" || t == "--line-length":
			i++
		case strings.HasPrefix(t, "-"):
		case !explicit && len(scripts) == 0:
			scripts = append(scripts, t)
		}
	}
	for _, s := range scripts {
		if !sedSafe(s) {
			return true
		}
	}
	return false
}

// sedSafe reads a sed script's commands: safe when none is e, w, W or r/R
// (reading a file is fine; writing one or running one is not), and no s
// command has the e or w flag. What is not read here is not safe.
func sedSafe(s string) bool {
	i := 0
	skip := func(set string) {
		for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	// delimited reads a part ending at an unescaped delim.
	delimited := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case '\n':
				return false
			case d:
				i++
				return true
			}
			i++
		}
		return false
	}
	for i < len(s) {
		skip(" \t\n;")
		if i >= len(s) {
			break
		}
		// Address: numbers, $, /re/, \cREc, first~step, a comma, !.
		for i < len(s) {
			c := s[i]
			switch {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '!' || c == ' ' || c == '+':
				i++
			case c == '/':
				i++
				if !delimited('/') {
					return false
				}
				skip("IM")
			case c == '\\' && i+1 < len(s):
				d := s[i+1]
				i += 2
				if !delimited(d) {
					return false
				}
				skip("IM")
			default:
				goto command
			}
		}
	command:
		if i >= len(s) {
			return false
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q', 'L':
			skip("0123456789")
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'y':
			if i >= len(s) {
				return false
			}
			d := s[i]
			i++
			// Two delimited parts: delimited reads one and moves past it.
			if !delimited(d) {
				return false
			}
			if !delimited(d) {
				return false
			}
		case 's':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return false
			}
			d := s[i]
			i++
			// Two delimited parts: delimited reads one and moves past it.
			if !delimited(d) {
				return false
			}
			if !delimited(d) {
				return false
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' {
				if s[i] == 'e' || s[i] == 'w' || s[i] == 'W' {
					return false
				}
				i++
			}
		default:
			return false // e, w, W, r, R and what is not known here
		}
	}
	return true
}

package layouts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Parse reads and validates the layout file at path. When the file is not a
// valid layout, the error is an *Error listing every problem in it.
func Parse(path string) (*Layout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read layout: %w", err)
	}
	defer f.Close()
	// One byte more than the limit is enough to tell a file that is too big.
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read layout %s: %w", path, err)
	}
	return ParseBytes(path, data)
}

// ParseBytes validates data as the layout file at path. Path names the file in
// messages and its folder is what a relative root is resolved against; when
// path is "" (a layout read from stdin), messages say "<stdin>" and the
// current directory is the base. When data is not a valid layout, the error
// is an *Error listing every problem in it.
func ParseBytes(path string, data []byte) (*Layout, error) {
	sum := sha256.Sum256(data)
	l := &Layout{Digest: hex.EncodeToString(sum[:])}
	w := &walker{file: path, budget: budgetFor(len(data)), limit: budgetFor(len(data))}
	if path == "" {
		w.file = "<stdin>"
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("layout from stdin: %w", err)
		}
		w.base = wd
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("layout %s: %w", path, err)
		}
		l.Path, w.base = abs, filepath.Dir(abs)
	}
	if len(data) > MaxSize {
		// Not parsed at all: reading a file this big is already the mistake.
		w.problems = append(w.problems, Problem{File: w.file, Line: 1, Col: 1,
			Msg: fmt.Sprintf("the file is larger than %d bytes (1 MiB), the most a layout may be", MaxSize)})
	} else if root := w.document(data); root != nil {
		w.layout(l, root)
	}
	if len(w.problems) > 0 {
		sortProblems(w.problems)
		return nil, &Error{Problems: w.problems}
	}
	return l, nil
}

// document returns the top node of data's first document (later ones are
// ignored), or nil after reporting a syntax error or an empty file.
func (w *walker) document(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		w.problems = append(w.problems, w.syntaxProblem(err, data))
		return nil
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		w.problems = append(w.problems, Problem{File: w.file, Line: 1, Col: 1, Msg: "empty layout file"})
		return nil
	}
	return w.resolve(doc.Content[0])
}

// yamlErrRE matches yaml.v3's syntax errors, which carry a line but no column.
var yamlErrRE = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For these, yaml.v3 v3.0.1 reports a 0-based line (it adds 1 for
// scanner errors only), so the line the message names is the one above the
// mistake; a test pins this down.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxProblem turns a yaml.v3 error into a Problem at the line it names
// (line 1 when it names none); yaml.v3 gives no column. A tab in the
// indentation is pointed at where it is: yaml.v3 names the line before it
// for some of them.
func (w *walker) syntaxProblem(err error, data []byte) Problem {
	p := Problem{File: w.file, Line: 1, Col: 1}
	msg := err.Error()
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			p.Line = line
		}
		msg = m[2]
		if slices.Contains(parserProblems, msg) {
			p.Line++
		}
	}
	p.Msg = "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
	if line, col := indentTab(data, p.Line); line > 0 {
		p.Line, p.Col = line, col
		p.Msg += " (a tab in the indentation: YAML indents with spaces)"
	}
	return p
}

// indentTab finds a tab in the indentation of line from (1-based) or the
// line after it, the two lines yaml.v3 may name for one, and returns its line
// and column; 0 when there is none.
func indentTab(data []byte, from int) (line, col int) {
	lines := strings.Split(string(data), "\n")
	for n := from; n <= from+1 && n <= len(lines); n++ {
		if n < 1 {
			continue
		}
		text := lines[n-1]
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		if i := strings.IndexByte(text[:indent], '\t'); i >= 0 {
			return n, i + 1
		}
	}
	return 0, 0
}

// layout fills l from the document's top mapping n.
func (w *walker) layout(l *Layout, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		w.add(n, "", "the layout must be a mapping of keys such as team: and members:")
		return
	}
	f := w.fields(n, "", topKeys)
	if v := w.required(f, "team", n, ""); v != nil {
		l.Team = w.name(v, "team")
	}
	l.Description, _ = w.text(f.get("description"), "description")
	root, rootOK := w.dir(f.get("root"), "root", w.base, true)
	l.Root = root
	l.Claude = w.claude(f.get("claude"))
	l.Agents = w.agents(f.get("agents"))
	agent := w.choice(f.get("agent"), "agent", AgentKinds, AgentClaude)
	l.Env = w.env(f.get("env"), "env")
	l.Permissions = w.permissions(f.get("permissions"), "permissions")
	l.Arrangement = w.choice(f.get("layout"), "layout", Arrangements, Arrangements[0])
	// The worktrees folder may not exist yet: up makes it.
	if f.get("worktrees") != nil {
		l.Worktrees, _ = w.dir(f.get("worktrees"), "worktrees", root, false)
	}
	l.Trust = w.boolean(f.get("trust"), "trust")

	// Member directories are checked only under a usable root: under a bad one
	// every cwd would fail too and bury the one mistake that matters.
	l.Hosts = w.hosts(f.get("hosts"))
	ms := memberSetup{root: root, checkCwd: rootOK, agent: agent, hosts: l.Hosts}
	lead, leadName := w.lead(f.get("lead"), ms)
	members, names := w.members(f.get("members"), ms)
	l.Lead, l.Members = lead, members
	refs := append([]nameRef{leadName}, names...)
	if f.get("lead") == nil && len(members) > 0 && !anyClaude(members) {
		// A team of plain processes, as tmuxinator or overmind run them:
		// there is no Claude Code team to lead, so no lead is implied.
		l.Lead, refs = Member{}, names
	}
	w.uniqueNames(refs)
	w.memberSizes(l, f.get("env"))
	l.Watchdog = w.watchdog(f.get("watchdog"))
	l.Review = w.review(f.get("review"))
	if !l.HasLead() {
		w.noLead(l, n)
	}
	l.Budget = w.spending(f.get("budget"))
	l.Limits = w.usageLimits(f.get("limits"))
}

// anyClaude reports whether any of ms is a Claude Code member.
func anyClaude(ms []Member) bool {
	for _, m := range ms {
		if m.IsClaude() {
			return true
		}
	}
	return false
}

// noLead refuses what tells the lead something in a team that has none (a
// team of plain processes): it would be told to no one.
func (w *walker) noLead(l *Layout, top *yaml.Node) {
	const why = "a team of plain processes has no lead to tell (add a lead: to have one)"
	if l.Watchdog.Notify.Lead {
		w.add(w.at(top, "watchdog", "notify", "lead"), "watchdog.notify.lead", why)
	}
	if l.Review.TellLead {
		w.add(w.at(top, "review", "tellLead"), "review.tellLead", why)
	}
}

// at is the value at keys below mapping n, or the deepest mapping on the way
// that has it (through a merge key, say): a place for a problem.
func (w *walker) at(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		next := (*yaml.Node)(nil)
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = w.resolve(n.Content[i+1])
				}
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// claude reads the claude: mapping.
func (w *walker) claude(n *yaml.Node) Claude {
	return w.program(n, "claude", "claude")
}

// program reads a mapping of an agent CLI's command and args at path, the
// command defaulting to command.
func (w *walker) program(n *yaml.Node, path, command string) Claude {
	c := Claude{Command: command}
	if n == nil || !w.isMapping(n, path) {
		return c
	}
	f := w.fields(n, path, claudeKeys)
	if v := f.get("command"); v != nil {
		if s, ok := w.text(v, path+".command"); ok && s == "" {
			w.add(v, path+".command", "must not be empty")
		} else if ok {
			c.Command = s
		}
	}
	c.Args, _ = w.stringList(f.get("args"), path+".args")
	return c
}

// agents reads the agents: mapping: how each agent CLI other than Claude
// Code is run (Claude Code's is claude:).
func (w *walker) agents(n *yaml.Node) map[string]Claude {
	out := map[string]Claude{AgentCodex: {Command: AgentCodex}, AgentGemini: {Command: AgentGemini}}
	if n == nil || !w.isMapping(n, "agents") {
		return out
	}
	f := w.fields(n, "agents", agentsKeys)
	for _, kind := range agentsKeys {
		out[kind] = w.program(f.get(kind), join("agents", kind), kind)
	}
	return out
}

// review reads the review: mapping, which may be absent.
func (w *walker) review(n *yaml.Node) Review {
	var r Review
	if n == nil || !w.isMapping(n, "review") {
		return r
	}
	f := w.fields(n, "review", reviewKeys)
	r.TellLead = w.boolean(f.get("tellLead"), "review.tellLead")
	return r
}

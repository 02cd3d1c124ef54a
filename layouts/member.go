package layouts

import "gopkg.in/yaml.v3"

// reservedName is what Claude Code calls the lead inside an agent team, so a
// teammate by that name would be ambiguous.
const reservedName = "team-lead"

// memberSetup is what members need from the rest of the layout.
type memberSetup struct {
	root     string // absolute; a relative cwd is resolved against it
	checkCwd bool   // false when root itself is unusable
	agent    string // the team's agent: kind, the members' default
	hosts    map[string]Host
}

// lead reads the lead: mapping, which may be absent.
func (w *walker) lead(n *yaml.Node, ms memberSetup) (Member, nameRef) {
	if n == nil {
		m := Member{Name: "lead", TeammateMode: TeammateModes[0], Cwd: ms.root, Restart: RestartPolicies[0]}
		return m, nameRef{name: m.Name, path: "lead.name"}
	}
	if !w.isMapping(n, "lead") {
		return Member{}, nameRef{}
	}
	m, node := w.member(n, "lead", true, ms)
	return m, nameRef{m.Name, node, "lead.name"}
}

// members reads the members: list. It returns the members and where each
// one's name was set, in the same order.
func (w *walker) members(n *yaml.Node, ms memberSetup) ([]Member, []nameRef) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		w.add(n, "members", "must be a list of members")
		return nil, nil
	}
	members := make([]Member, 0, len(n.Content))
	names := make([]nameRef, 0, len(n.Content))
	for i, item := range n.Content {
		path := index("members", i)
		if item = w.resolve(item); !w.isMapping(item, path) {
			continue
		}
		m, name := w.member(item, path, false, ms)
		if m.Color == "" {
			m.Color = Colors[i%len(Colors)]
		}
		members = append(members, m)
		names = append(names, nameRef{m.Name, name, join(path, "name")})
	}
	return members, names
}

// member reads the mapping n of the lead (isLead) or of a teammate at path.
// It returns the member and the node of its name (nil when it has none, and
// for the lead's default name).
func (w *walker) member(n *yaml.Node, path string, isLead bool, ms memberSetup) (Member, *yaml.Node) {
	m := Member{Line: n.Line, Column: n.Column}
	f := w.fields(n, path, memberKeys)
	at := func(key string) string { return join(path, key) }

	var nameNode *yaml.Node
	if isLead {
		m.Name, nameNode = "lead", f.get("name")
	} else {
		nameNode = w.required(f, "name", n, path)
	}
	if nameNode != nil {
		m.Name = w.memberName(nameNode, at("name"))
	}
	m.Color = w.choice(f.get("color"), at("color"), Colors, "")
	m.Host = w.memberHost(f.get("host"), at("host"), isLead, ms.hosts)
	if m.Host != "" {
		// On its host: under the host's root, not a folder of this machine.
		m.Cwd = w.remoteCwd(f.get("cwd"), at("cwd"))
	} else {
		m.Cwd, _ = w.dir(f.get("cwd"), at("cwd"), ms.root, ms.checkCwd)
	}
	m.Env = w.env(f.get("env"), at("env"))
	m.Restart = w.choice(f.get("restart"), at("restart"), RestartPolicies, RestartPolicies[0])
	m.Worktree = w.worktree(f.get("worktree"), at("worktree"))

	switch {
	case isLead:
		if f.get("command") != nil {
			w.add(f["command"].key, at("command"), "the lead is Claude Code, which leads the Claude Code members; for a team of plain processes leave lead: out and list them under members:")
		}
		m.TeammateMode = w.choice(f.get("teammateMode"), at("teammateMode"), TeammateModes, TeammateModes[0])
	case f.get("teammateMode") != nil:
		w.add(f["teammateMode"].key, at("teammateMode"), "only the lead has teammateMode")
	}

	if !isLead && f.get("command") != nil && f.get("agent") != nil {
		w.add(f["agent"].key, at("agent"), "a member has agent: (an agent CLI teamctl runs) or command: (a plain process), not both")
	}
	if isLead {
		if v := f.get("agent"); v != nil && w.choice(v, at("agent"), AgentKinds, AgentClaude) != AgentClaude {
			w.add(v, at("agent"), "the lead is Claude Code: it leads with Claude Code's team tools (a Codex or Gemini member is a teammate under members:)")
		}
	} else if f.get("command") == nil {
		m.Agent = w.choice(f.get("agent"), at("agent"), AgentKinds, ms.agent)
	}
	if kind := m.OtherAgent(); kind != "" {
		for _, key := range claudeCodeOnlyKeys {
			if f.get(key) != nil {
				w.add(f[key].key, at(key), "only for Claude Code members, not with agent: %s", kind)
			}
		}
		m.Model, _ = w.text(f.get("model"), at("model"))
		m.Prompt, _ = w.text(f.get("prompt"), at("prompt"))
		m.PermissionMode = w.choice(f.get("permissionMode"), at("permissionMode"), PermissionModes, "")
		m.Args, _ = w.stringList(f.get("args"), at("args"))
		return m, nameNode
	}
	if !isLead && f.get("command") != nil {
		m.Command = w.command(f.get("command"), at("command"), "[npm, run, dev]")
		// Claude Code settings on a plain process are a mistake, not something to ignore.
		for _, key := range claudeOnlyKeys {
			if f.get(key) != nil {
				w.add(f[key].key, at(key), "only for Claude Code members, not with command")
			}
		}
		return m, nameNode
	}
	w.claudeMember(&m, f, path)
	if isLead {
		w.tooLongArg(f.get("prompt"), at("prompt"), "the lead's prompt", m.Prompt,
			"the lead gets its prompt as one; put the text in a file and have the prompt ask the lead to read it (a teammate's prompt goes through its mailbox and has no such limit)")
	}
	return m, nameNode
}

// claudeMember reads the keys that only Claude Code members have.
func (w *walker) claudeMember(m *Member, f fields, path string) {
	at := func(key string) string { return join(path, key) }
	m.AgentType, _ = w.text(f.get("agentType"), at("agentType"))
	m.Model, _ = w.text(f.get("model"), at("model"))
	m.Prompt, _ = w.text(f.get("prompt"), at("prompt"))
	m.PlanModeRequired = w.boolean(f.get("planModeRequired"), at("planModeRequired"))
	m.PermissionMode = w.choice(f.get("permissionMode"), at("permissionMode"), PermissionModes, "")
	m.Args, _ = w.stringList(f.get("args"), at("args"))
	m.Permissions = w.permissions(f.get("permissions"), at("permissions"))
	m.Budget = w.memberBudget(f.get("budget"), at("budget"))
	if m.PlanModeRequired && m.PermissionMode == "bypassPermissions" {
		w.add(f.get("permissionMode"), at("permissionMode"),
			"bypassPermissions cannot be combined with planModeRequired: true (Claude Code never combines them)")
	}
}

// memberName returns n's text if it is a valid member name, or "".
func (w *walker) memberName(n *yaml.Node, path string) string {
	name := w.name(n, path)
	if name == reservedName {
		w.add(n, path, "%q is reserved: it is Claude Code's own name for the lead", reservedName)
		return ""
	}
	return name
}

// command returns the argv of a plain-process member or of watchdog.notify;
// example is one written as a YAML flow list, for messages. It is a list so
// that nothing is ever parsed by a shell.
func (w *walker) command(n *yaml.Node, path, example string) []string {
	if n.Kind == yaml.ScalarNode {
		w.add(n, path, "must be a list (argv), e.g. %s; teamctl never runs a shell", example)
		return nil
	}
	argv, ok := w.stringList(n, path)
	switch {
	case !ok:
		return nil
	case len(argv) == 0:
		w.add(n, path, "must not be empty: list the program and its arguments, e.g. %s", example)
		return nil
	case argv[0] == "":
		w.add(w.resolve(n.Content[0]), index(path, 0), "must name a program")
		return nil
	}
	return argv
}

// nameRef is where a member's name was set, for duplicate checks.
type nameRef struct {
	name string
	node *yaml.Node // nil for the lead's default name
	path string
}

// uniqueNames reports each name that is already taken, at the later one. The
// lead comes first, so a teammate never silently shadows it.
func (w *walker) uniqueNames(refs []nameRef) {
	seen := map[string]nameRef{}
	for _, r := range refs {
		if r.name == "" {
			continue // invalid, and already reported
		}
		first, dup := seen[r.name]
		switch {
		case !dup:
			seen[r.name] = r
		case first.node == nil:
			w.add(r.node, r.path, "duplicate name %q: it is the lead's default name (set lead.name to use it here)", r.name)
		default:
			w.add(r.node, r.path, "duplicate name %q (first at line %d)", r.name, first.node.Line)
		}
	}
}

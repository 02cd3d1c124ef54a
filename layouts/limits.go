package layouts

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Linux starts a program (execve) only when each of its arguments and each
// NAME=VALUE of its environment is at most MAX_ARG_STRLEN (32 pages: 131072
// bytes, the closing NUL included), and all of them together fit ARG_MAX (a
// quarter of the stack limit: 2 MiB under the usual 8 MiB). A layout that
// breaks these would pass validation and then fail in its pane, so they are
// checked here.
const (
	// MaxArgBytes is the longest one argument or one NAME=VALUE may be.
	MaxArgBytes = 131072 - 1
	// MaxMemberBytes bounds what the layout gives one member — its arguments
	// (the lead's prompt among them) and its environment, team env included,
	// each counted with its NUL and pointer: half of the usual ARG_MAX, which
	// leaves the other half to the environment teamctl inherits and passes on,
	// and to teamctl's own flags.
	MaxMemberBytes = 1 << 20
)

// tooLongArg reports s at n when it is longer than one argument may be; hint
// says what to do instead.
func (w *walker) tooLongArg(n *yaml.Node, path, what, s, hint string) bool {
	if len(s) <= MaxArgBytes {
		return false
	}
	w.add(n, path, "%s is %d bytes, and Linux takes at most %d bytes in one command-line argument (MAX_ARG_STRLEN): %s",
		what, len(s), MaxArgBytes, hint)
	return true
}

const fileHint = "put the text in a file and pass its path instead"

// tooLongEnv reports a NAME=VALUE longer than Linux takes, at the value n.
func (w *walker) tooLongEnv(n *yaml.Node, path, name, value string) bool {
	size := len(name) + 1 + len(value)
	if size <= MaxArgBytes {
		return false
	}
	w.add(n, path, "%s=VALUE is %d bytes, and Linux takes at most %d bytes in one environment variable (MAX_ARG_STRLEN): put the value in a file and pass its path instead",
		name, size, MaxArgBytes)
	return true
}

// argvBytes is what strs cost in a program's arguments or environment: each
// string, its NUL and its pointer.
func argvBytes(strs ...string) int {
	n := 0
	for _, s := range strs {
		n += len(s) + 1 + 8
	}
	return n
}

func envBytes(vars []EnvVar) int {
	n := 0
	for _, v := range vars {
		n += argvBytes(v.Name + "=" + v.Value)
	}
	return n
}

// memberSizes reports each member whose arguments and environment from the
// layout exceed MaxMemberBytes; a team env that alone does is reported once,
// at env.
func (w *walker) memberSizes(l *Layout, envNode *yaml.Node) {
	team := envBytes(l.Env)
	if team > MaxMemberBytes {
		w.add(envNode, "env", "the team's env is %d bytes, and teamctl allows at most %d for a member's arguments and environment together (Linux's ARG_MAX is 2 MiB with the usual 8 MiB stack, shared with the environment teamctl passes on): put large values in files and pass their paths instead",
			team, MaxMemberBytes)
		return
	}
	for i, m := range l.All() {
		n := team + envBytes(m.Env) + argvBytes(m.Args...) + argvBytes(m.Command...)
		if m.IsClaude() {
			n += argvBytes(l.Claude.Args...)
		}
		path := "lead"
		switch {
		case !l.HasLead():
			path = index("members", i)
		case i == 0:
			n += argvBytes(m.Prompt) // the lead's prompt is an argument; a teammate's goes to its mailbox
		default:
			path = index("members", i-1)
		}
		if n <= MaxMemberBytes {
			continue
		}
		line, col := m.Line, m.Column
		if line == 0 {
			line, col = 1, 1 // a lead with no lead: mapping
		}
		w.problems = append(w.problems, Problem{File: w.file, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(
			"arguments and environment from the layout (team env included) come to %d bytes, and teamctl allows at most %d for one member (Linux's ARG_MAX is 2 MiB with the usual 8 MiB stack, shared with the environment teamctl passes on): put large values in files and pass their paths instead",
			n, MaxMemberBytes)})
	}
}

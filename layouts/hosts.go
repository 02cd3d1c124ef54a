package layouts

import (
	"path"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// Host is a machine other than this one where members run (`hosts:`),
// reached with the user's own ssh.
type Host struct {
	Name string
	// SSH is the destination as the user's ssh takes it ("me@gpu1", an alias
	// of ~/.ssh/config, "ssh://me@gpu1:2222").
	SSH string
	// Root is where the repository is on that host: an absolute path, or
	// one under the remote user's home ("~/src/app").
	Root         string
	Line, Column int
}

// hostKeys are the keys of a host.
var hostKeys = []string{"ssh", "root"}

// hostNameRE is what a host's name may be: it names refs
// (refs/teamctl/remote/<host>/…), folders and tmux servers.
var hostNameRE = nameRE

// hosts reads the hosts: mapping, name to host, which may be absent.
func (w *walker) hosts(n *yaml.Node) map[string]Host {
	if n == nil || isNull(n) || !w.isMapping(n, "hosts") {
		return nil
	}
	out := map[string]Host{}
	for _, e := range w.entries(n, "hosts", map[*yaml.Node]bool{}) {
		name := e.key.Value
		at := join("hosts", name)
		if !hostNameRE.MatchString(name) {
			w.add(e.key, at, `a host's name must be 1-40 characters of a-z, 0-9 and "-", starting with a letter or digit (got %q)`, name)
			continue
		}
		if !w.isMapping(e.value, at) {
			continue
		}
		h := Host{Name: name, Line: e.key.Line, Column: e.key.Column}
		f := w.fields(e.value, at, hostKeys)
		h.SSH = w.checked(f, "ssh", e.value, at, badDestination)
		h.Root = w.checked(f, "root", e.value, at, badRemoteRoot)
		out[name] = h
	}
	return out
}

// checked is the text of required key of mapping m (at path), "" when it
// is missing, not text, or bad says what is wrong with it.
func (w *walker) checked(f fields, key string, m *yaml.Node, path string, bad func(string) string) string {
	v := w.required(f, key, m, path)
	if v == nil {
		return ""
	}
	s, ok := w.text(v, join(path, key))
	if !ok {
		return ""
	}
	if why := bad(s); why != "" {
		w.add(v, join(path, key), "%s (got %q)", why, s)
		return ""
	}
	return s
}

// badDestination says what is wrong with an ssh destination, "" when
// nothing: it goes to ssh as one argument after "--", but one that starts
// with "-" would still read as an option to a person, and white space or a
// control character is no host's name.
func badDestination(s string) string {
	switch {
	case s == "":
		return "an ssh destination is needed (user@host, or a Host of your ssh config)"
	case strings.HasPrefix(s, "-"):
		return "an ssh destination cannot start with \"-\""
	case len(s) > 255:
		return "an ssh destination is at most 255 characters"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "an ssh destination holds no white space or control character"
	}
	return ""
}

// badRemoteRoot says what is wrong with a host's root, "" when nothing: an
// absolute path or "~/…", clean, with no control character (it is sent to
// the host's shell, quoted, and names folders there).
func badRemoteRoot(s string) string {
	rest, tilde := strings.CutPrefix(s, "~/")
	switch {
	case s == "":
		return "where the repository is on the host is needed"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "a host's root holds no control character"
	case !tilde && !path.IsAbs(s):
		return "a host's root is an absolute path or one under the remote home (~/…)"
	case tilde && (rest == "" || path.Clean(rest) != strings.TrimSuffix(rest, "/") || strings.HasPrefix(path.Clean(rest), "..")):
		return "a host's root under ~ is a clean path below it"
	case !tilde && path.Clean(s) != strings.TrimSuffix(s, "/") && s != "/":
		return "a host's root is a clean path (no \"..\", \".\" or doubled \"/\")"
	}
	return ""
}

// memberHost reads a member's host: (n, at path), which must name a host
// of hosts:; the lead has none (it runs here, where its team's protocol
// files are).
func (w *walker) memberHost(n *yaml.Node, path string, isLead bool, hosts map[string]Host) string {
	if n == nil {
		return ""
	}
	if isLead {
		w.add(n, path, "the lead runs on this machine: host: is for members (their team's files are the lead's, here)")
		return ""
	}
	s, ok := w.text(n, path)
	if !ok {
		return ""
	}
	if _, ok := hosts[s]; !ok {
		names := make([]string, 0, len(hosts))
		for n := range hosts {
			names = append(names, n)
		}
		sort.Strings(names)
		known := "hosts: names none"
		if len(names) > 0 {
			known = "hosts: has " + strings.Join(names, ", ")
		}
		w.add(n, path, "no host %q (%s)", s, known)
		return ""
	}
	return s
}

// Remote are the members that run on another host (host:), in layout order.
func (l *Layout) Remote() []Member {
	var out []Member
	for _, m := range l.Members {
		if m.Host != "" {
			out = append(out, m)
		}
	}
	return out
}

// remoteCwd reads the cwd: of a member on another host: a clean path below
// the host's root (relative), as it is there; "" for the root itself.
func (w *walker) remoteCwd(n *yaml.Node, at string) string {
	s, ok := w.text(n, at)
	if !ok {
		return ""
	}
	c := path.Clean(s)
	if path.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		w.add(n, at, "on another host, cwd is a folder below the host's root (got %q)", s)
		return ""
	}
	if c == "." {
		return ""
	}
	return c
}

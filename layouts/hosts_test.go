package layouts

import (
	"strings"
	"testing"
)

// TestHosts: hosts: names machines reached with the user's ssh, each with
// where the repository is there; a member's host: names one, and its cwd is
// a folder below that root, not one of this machine (no local folder needs
// to exist for it).
func TestHosts(t *testing.T) {
	l := mustParse(t, `team: far
hosts:
  gpu1: {ssh: me@gpu1, root: ~/src/app}
  build: {ssh: "ssh://ci@build.example:2222", root: /srv/app}
members:
  - name: trainer
    host: gpu1
    cwd: models/v2
  - name: here
`)
	if len(l.Hosts) != 2 || l.Hosts["gpu1"].SSH != "me@gpu1" || l.Hosts["gpu1"].Root != "~/src/app" ||
		l.Hosts["build"].SSH != "ssh://ci@build.example:2222" || l.Hosts["build"].Root != "/srv/app" || l.Hosts["gpu1"].Line != 3 {
		t.Errorf("hosts: %+v", l.Hosts)
	}
	if r := l.Remote(); len(r) != 1 || r[0].Name != "trainer" || r[0].Host != "gpu1" || r[0].Cwd != "models/v2" {
		t.Errorf("remote members: %+v", r)
	}
}

// TestHostProblems: each mistake said where it is; an ssh destination that
// would read as an option, a host a member names that hosts: has not, and a
// remote cwd that leaves the host's root among them.
func TestHostProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"team: t\nhosts:\n  gpu1: {ssh: -oProxyCommand=x, root: /a}\n", `t.yaml:3:15: hosts.gpu1.ssh: an ssh destination cannot start with "-"`},
		{"team: t\nhosts:\n  gpu1: {ssh: \"me@gpu 1\", root: /a}\n", `t.yaml:3:15: hosts.gpu1.ssh: an ssh destination holds no white space`},
		{"team: t\nhosts:\n  gpu1: {root: /a}\n", `t.yaml:3:9: hosts.gpu1.ssh: required key is missing`},
		{"team: t\nhosts:\n  gpu1: {ssh: me@gpu1, root: src}\n", `t.yaml:3:30: hosts.gpu1.root: a host's root is an absolute path or one under the remote home`},
		{"team: t\nhosts:\n  gpu1: {ssh: me@gpu1, root: ~/../x}\n", `t.yaml:3:30: hosts.gpu1.root: a host's root under ~ is a clean path below it`},
		{"team: t\nhosts:\n  GPU: {ssh: me@gpu1, root: /a}\n", `t.yaml:3:3: hosts.GPU: a host's name must be`},
		{"team: t\nhosts:\n  gpu1: {ssh: me@gpu1, root: /a, port: 22}\n", `t.yaml:3:34: hosts.gpu1: unknown key "port"`},
		{"team: t\nmembers:\n  - name: a\n    host: gpu1\n", `t.yaml:4:11: members[0].host: no host "gpu1" (hosts: names none)`},
		{"team: t\nhosts:\n  b: {ssh: b, root: /a}\n  a: {ssh: a, root: /a}\nmembers:\n  - name: x\n    host: c\n", `t.yaml:7:11: members[0].host: no host "c" (hosts: has a, b)`},
		{"team: t\nhosts:\n  a: {ssh: a, root: /a}\nlead: {host: a}\n", `t.yaml:4:14: lead.host: the lead runs on this machine`},
		{"team: t\nhosts:\n  a: {ssh: a, root: /a}\nmembers:\n  - name: x\n    host: a\n    cwd: ../up\n", `t.yaml:7:10: members[0].cwd: on another host, cwd is a folder below the host's root`},
	} {
		lines := problemLines(t, c.src)
		if !strings.HasPrefix(strings.Join(lines, "\n"), c.want) {
			t.Errorf("%q:\n%s\nwant first %s", c.src, strings.Join(lines, "\n"), c.want)
		}
	}
}

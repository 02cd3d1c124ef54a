package tmux

import (
	"reflect"
	"testing"
)

func TestSplitQualified(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][3]any{
		"%3":              {"%3", "", true},
		"%3@gpu1":         {"%3", "gpu1", true},
		"@12@build-2":     {"@12", "build-2", true},
		"$0@h":            {"$0", "h", true},
		"@teamctl-member": {"", "", false},
		"%x@h":            {"%x", "h", false},
		"%3@":             {"%3", "", false},
		"=team":           {"", "", false},
		"%":               {"", "", false},
	} {
		id, host, ok := SplitQualified(in)
		if ok != want[2] || (ok && (id != want[0] || host != want[1])) {
			t.Errorf("SplitQualified(%q) = %q %q %v, want %v", in, id, host, ok, want)
		}
	}
}

// TestGroupRoutes: a command goes to the server its ids name, with the ids
// as that server knows them; text after -- is never taken for an id; ids of
// two hosts in one command, or of a host the team lacks, are refused.
func TestGroupRoutes(t *testing.T) {
	t.Parallel()
	a, b := &Server{Socket: "a"}, &Server{Socket: "b"}
	g := &Group{Server: &Server{Socket: "local"}, Hosts: map[string]*Server{"a": a, "b": b}}
	for _, tc := range []struct {
		args []string
		srv  *Server
		want []string
	}{
		{[]string{"kill-pane", "-t", "%3"}, g.Server, []string{"kill-pane", "-t", "%3"}},
		{[]string{"kill-pane", "-t", "%3@a"}, a, []string{"kill-pane", "-t", "%3"}},
		{[]string{"set-option", "-p", "-t", "%1@b", "@teamctl-member", "x"}, b, []string{"set-option", "-p", "-t", "%1", "@teamctl-member", "x"}},
		{[]string{"send-keys", "-t", "%2@a", "-l", "--", "%9@b"}, a, []string{"send-keys", "-t", "%2", "-l", "--", "%9@b"}},
	} {
		srv, _, got, err := g.route(tc.args)
		if err != nil || srv != tc.srv || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("route(%q) = %v %q %v, want %v %q", tc.args, srv.Socket, got, err, tc.srv.Socket, tc.want)
		}
	}
	if _, _, _, err := g.route([]string{"swap-pane", "-s", "%1@a", "-t", "%2@b"}); err == nil {
		t.Error("ids of two hosts in one command were taken")
	}
	if _, _, _, err := g.route([]string{"kill-pane", "-t", "%1@nosuch"}); err == nil {
		t.Error("an id of a host the team lacks was taken")
	}
	var bt Batch
	bt.Add("select-pane", "-t", "%4@b")
	bt.Add("set-option", "-p", "-t", "%4@b", "@teamctl-member", "m")
	bt.Add("set-option", "-g", "remain-on-exit", "on") // no id: goes with the others
	srv, out, err := g.routeBatch(&bt)
	if err != nil || srv != b || !reflect.DeepEqual(out.Commands(), [][]string{{"select-pane", "-t", "%4"}, {"set-option", "-p", "-t", "%4", "@teamctl-member", "m"}, {"set-option", "-g", "remain-on-exit", "on"}}) {
		t.Errorf("routeBatch: %v %v %v", srv, out, err)
	}
	var mixed Batch
	mixed.Add("select-pane", "-t", "%1")
	mixed.Add("select-pane", "-t", "%2@a")
	if _, _, err := g.routeBatch(&mixed); err == nil {
		t.Error("a batch naming a pane here and one on host a was taken (the id here would have gone to host a)")
	}
}

package main

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNewCmdServe: argv becomes the options, and nothing is done but the
// run function.
func TestNewCmdServe(t *testing.T) {
	var got *serveOptions
	ios, _, _ := bufIO("")
	g := &globals{}
	cmd := newServeCmd(ios, g, func(_ context.Context, o *serveOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--addr", "100.64.0.7:9000", "--read-only", "--team", "demo", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--new-token"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Addr != "100.64.0.7:9000" || !got.ReadOnly || got.Team != "demo" || got.TLSCert != "c.pem" || got.TLSKey != "k.pem" || !got.NewToken || got.InsecureHTTP {
		t.Fatalf("options %+v", got)
	}
	got = nil
	cmd = newServeCmd(ios, &globals{}, func(_ context.Context, o *serveOptions) error { got = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil || got.Addr != defaultServeAddr {
		t.Fatalf("default address %q, %v", got.Addr, err)
	}
}

// TestServeRun: loopback by default; any other address is refused without
// TLS unless --insecure-http, which warns; the login URL is printed, works
// once, and the page is served until the context ends.
func TestServeRun(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, c := range []struct {
		o   serveOptions
		err string
	}{
		{serveOptions{Addr: "0.0.0.0:8421"}, "listens on every address of this machine, not loopback: that needs TLS"},
		{serveOptions{Addr: ":8421"}, "not loopback: that needs TLS"},
		{serveOptions{Addr: "192.0.2.1:8421"}, "listens on 192.0.2.1, not loopback"},
		{serveOptions{Addr: "192.0.2.1:8421", TLSCert: "c.pem"}, "--tls-cert and --tls-key go together"},
		{serveOptions{Addr: "127.0.0.1"}, "want host:port"},
		{serveOptions{Addr: "192.0.2.1:8421", TLSCert: "/nonexistent/c.pem", TLSKey: "/nonexistent/k.pem"}, "load --tls-cert"},
	} {
		ios, _, _ := bufIO("")
		o := c.o
		o.IO, o.Backend = ios, serveBackend{}
		if err := serveRun(context.Background(), &o); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.err)
		}
	}

	ios, out, errOut := bufIO("")
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	o := &serveOptions{IO: ios, Addr: "127.0.0.1:0", Backend: serveBackend{}, Listening: func(a string) { addrs <- a }}
	go func() { done <- serveRun(ctx, o) }()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("serve: %v %s", err, errOut)
	case <-time.After(30 * time.Second):
		t.Fatal("serve never listened")
	}
	_, rest, ok := strings.Cut(out.String(), "log in (once per browser) with:\n  ")
	u, _, _ := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(u, "http://"+addr+"/login?token=") {
		t.Fatalf("no login URL printed:\n%s", out)
	}
	jar := &cookieJar{}
	cl := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := cl.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Request.URL.String() != "http://"+addr+"/" {
		t.Errorf("after login: %s at %s, want the page at its own URL", res.Status, res.Request.URL)
	}
	if strings.Contains(errOut.String(), "token=") {
		t.Errorf("the token in the log:\n%s", errOut)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after its context ended: %v", err)
	}

	// --login-url prints the same URL, and --insecure-http warns.
	ios, out2, _ := bufIO("")
	o = &serveOptions{IO: ios, Addr: addr, LoginURL: true, Backend: serveBackend{}}
	if err := serveRun(context.Background(), o); err != nil || strings.TrimSpace(out2.String()) != u {
		t.Errorf("--login-url: %q %v, want %q", out2, err, u)
	}
	ios, _, errOut = bufIO("")
	ctx, cancel = context.WithCancel(context.Background())
	o = &serveOptions{IO: ios, Addr: "0.0.0.0:0", InsecureHTTP: true, Backend: serveBackend{}, Listening: func(string) { cancel() }}
	if err := serveRun(ctx, o); err != nil || !strings.Contains(errOut.String(), "WARNING: --insecure-http") {
		t.Errorf("--insecure-http: %v, said %q", err, errOut)
	}
}

// TestServeFirstToken (issue 31): the first serve makes the login token and
// says nothing of login URLs printed before, since none was; --new-token
// says they no longer work; a serve after either says neither.
func TestServeFirstToken(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	serve := func(newToken bool) string {
		ios, out, _ := bufIO("")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := &serveOptions{IO: ios, Addr: "127.0.0.1:0", NewToken: newToken, Backend: serveBackend{}, Listening: func(string) { cancel() }}
		if err := serveRun(ctx, o); err != nil {
			t.Fatalf("serve: %v", err)
		}
		return out.String()
	}
	const old = "login URLs printed before no longer work"
	if out := serve(false); strings.Contains(out, old) || !strings.Contains(out, "log in (once per browser)") {
		t.Errorf("the first serve:\n%s", out)
	}
	if out := serve(true); !strings.Contains(out, old) {
		t.Errorf("serve --new-token:\n%s", out)
	}
	if out := serve(false); strings.Contains(out, old) {
		t.Errorf("serve again:\n%s", out)
	}
}

// cookieJar keeps the cookies of one host, as a browser does.
type cookieJar struct{ cs []*http.Cookie }

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) { j.cs = append(j.cs, cs...) }
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie          { return j.cs }

// runServe runs serveRun with o (on a port of its own) until the test ends,
// and returns the address it listens on and the login URL it printed.
func runServe(t *testing.T, o serveOptions) (addr, login string) {
	t.Helper()
	ios, out, errOut := bufIO("")
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	o.IO, o.Backend, o.Listening = ios, serveBackend{}, func(a string) { addrs <- a }
	go func() { done <- serveRun(ctx, &o) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("serve: %v %s", err, errOut)
	case <-time.After(30 * time.Second):
		t.Fatal("serve never listened")
	}
	_, rest, ok := strings.Cut(out.String(), "log in (once per browser) with:\n  ")
	login, _, _ = strings.Cut(rest, "\n")
	if !ok {
		t.Fatalf("no login URL printed:\n%s", out)
	}
	return addr, login
}

// loginURLOf is what `serve --login-url` prints with o.
func loginURLOf(t *testing.T, o serveOptions) string {
	t.Helper()
	ios, out, _ := bufIO("")
	o.IO, o.Backend, o.LoginURL = ios, serveBackend{}, true
	if err := serveRun(context.Background(), &o); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out.String())
}

// tokenOf is a login URL's token.
func tokenOf(t *testing.T, login string) string {
	t.Helper()
	u, err := url.Parse(login)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("login URL %q: %v", login, err)
	}
	return u.Query().Get("token")
}

// logIn opens the login URL with token on addr, as a browser would, and
// returns the status it ended with.
func logIn(t *testing.T, addr, token string) int {
	t.Helper()
	cl := &http.Client{Jar: &cookieJar{}, Timeout: 10 * time.Second}
	res, err := cl.Get("http://" + addr + "/login?token=" + url.QueryEscape(token))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestServeReadOnlyToken: `serve --read-only` has a login token of its own;
// a serve that acts refuses it (a read-only URL handed to someone gives no
// more), and a read-only serve takes its own token alone.
func TestServeReadOnlyToken(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	full := tokenOf(t, loginURLOf(t, serveOptions{Addr: "127.0.0.1:8421"}))
	ro := tokenOf(t, loginURLOf(t, serveOptions{Addr: "127.0.0.1:8421", ReadOnly: true}))
	if ro == full {
		t.Fatal("--read-only prints the full token")
	}
	rw, _ := runServe(t, serveOptions{Addr: "127.0.0.1:0"})
	if code := logIn(t, rw, ro); code != http.StatusUnauthorized {
		t.Errorf("the read-only token on a serve that acts: %d, want 401", code)
	}
	if code := logIn(t, rw, full); code != http.StatusOK {
		t.Errorf("the full token on a serve that acts: %d, want 200", code)
	}
	roAddr, roLogin := runServe(t, serveOptions{Addr: "127.0.0.1:0", ReadOnly: true})
	if tokenOf(t, roLogin) != ro {
		t.Errorf("read-only serve printed %s, want its token", roLogin)
	}
	if code := logIn(t, roAddr, full); code != http.StatusUnauthorized {
		t.Errorf("the full token on a read-only serve: %d, want 401", code)
	}
	if code := logIn(t, roAddr, ro); code != http.StatusOK {
		t.Errorf("the read-only token on a read-only serve: %d, want 200", code)
	}
}

// TestServeHost: on any loopback address, the login URL serve prints is
// answered (its Host is the address listened on), and so are loopback's
// names on its port; another Host is not.
func TestServeHost(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	addr, login := runServe(t, serveOptions{Addr: "127.0.0.2:0"})
	if !strings.HasPrefix(login, "http://"+addr+"/login?token=") {
		t.Fatalf("login URL %s, want one on %s", login, addr)
	}
	cl := &http.Client{Jar: &cookieJar{}, Timeout: 10 * time.Second}
	res, err := cl.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.String() != "http://"+addr+"/" {
		t.Errorf("the printed login URL: %s at %s, want the page", res.Status, res.Request.URL)
	}
	_, port, _ := strings.Cut(addr, ":")
	for host, want := range map[string]int{"localhost:" + port: http.StatusUnauthorized, "evil.example:" + port: http.StatusMisdirectedRequest} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %s: %s, want %d", host, res.Status, want)
		}
	}
}

// TestServeHosts: the Host names answered on loopback; on the scheme's own
// port (80, 443) a browser leaves the port out, and those are answered too.
func TestServeHosts(t *testing.T) {
	for _, c := range []struct {
		host, port string
		tls        bool
		want       []string
		not        []string
	}{
		{"127.0.0.2", "18422", false, []string{"127.0.0.2:18422", "127.0.0.1:18422", "localhost:18422", "[::1]:18422"}, []string{"127.0.0.2", "127.0.0.1"}},
		{"127.0.0.1", "80", false, []string{"127.0.0.1:80", "127.0.0.1", "localhost", "[::1]"}, []string{"127.0.0.2"}},
		{"::1", "443", true, []string{"[::1]:443", "[::1]", "localhost"}, []string{"::1"}},
		{"localhost", "443", false, []string{"localhost:443"}, []string{"localhost"}},
	} {
		got := serveHosts(c.host, c.port, c.tls)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("serveHosts(%s, %s, %v) = %v: no %s", c.host, c.port, c.tls, got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("serveHosts(%s, %s, %v) = %v: has %s", c.host, c.port, c.tls, got, n)
			}
		}
	}
}

package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
	"github.com/teamctl/teamctl/worktrees"
)

// fake is a Backend of canned teams that records every action done.
type fake struct {
	mu      sync.Mutex
	status  map[string]*model.Status
	screens map[string]string // by member; a screen of escapes and tags for the others
	acts    []string
}

func (f *fake) Teams() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for t := range f.status {
		out = append(out, t)
	}
	return out, nil
}

func (f *fake) Status(_ context.Context, name string) (*model.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.status[name]
	if s == nil {
		return nil, fmt.Errorf("no team %s", name)
	}
	c := *s
	return &c, nil
}

func (f *fake) TailEvents(name string, back int64) (EventReader, error) {
	return state.TailEvents(name, back)
}

func (f *fake) Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error) {
	return state.Watch(ctx, o)
}

func (f *fake) Screen(_ context.Context, name, member string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sc, ok := f.screens[member]; ok {
		return sc, nil
	}
	return "\x1b[31mred\x1b[0m <b>bold</b>\n$ ", nil
}

// ScreenInColour: the fake's screens carry their colours already.
func (f *fake) ScreenInColour(ctx context.Context, name, member string) (string, error) {
	return f.Screen(ctx, name, member)
}

func (f *fake) FollowScreen(ctx context.Context, name, member string, woke func()) error {
	<-ctx.Done()
	return nil
}

func (f *fake) did(what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.acts = append(f.acts, what)
}

func (f *fake) actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.acts...)
}

// acting is the fake's verbs, as done by by.
type acting struct {
	*fake
	by model.By
}

func (f *fake) As(by model.By) Actor { return &acting{f, by} }

func (f *acting) Answer(_ context.Context, name, member string, a model.Answer) (model.Answered, error) {
	f.did(fmt.Sprintf("answer %s/%s %s%s%v by %s %s", name, member, a.Reply, a.Option, a.Keys, f.by.Via, f.by.From))
	return model.Answered{Keys: []string{a.Reply, "Enter"}}, nil
}

func (f *acting) Approve(_ context.Context, name, member string) (string, error) {
	f.did(fmt.Sprintf("approve %s/%s by %s %s", name, member, f.by.Via, f.by.From))
	return "req-1", nil
}

func (f *acting) Deny(_ context.Context, name, member, reason string) (string, error) {
	f.did(fmt.Sprintf("deny %s/%s %q by %s %s", name, member, reason, f.by.Via, f.by.From))
	return "req-1", nil
}

func (f *acting) Send(_ context.Context, name, member, text string) (string, error) {
	f.did(fmt.Sprintf("send %s/%s %q by %s %s", name, member, text, f.by.Via, f.by.From))
	return "left in its mailbox", nil
}

func (f *acting) Restart(_ context.Context, name, member string) (int, error) {
	f.did(fmt.Sprintf("restart %s/%s by %s %s", name, member, f.by.Via, f.by.From))
	return 42, nil
}

func (f *acting) Changes(_ context.Context, tm string) (*model.Changes, error) {
	return &model.Changes{Team: tm, Work: []model.WorkChanges{
		{Member: "asker", Members: []string{"asker"}, Worktree: true, Branch: "teamctl/demo/asker", Base: &worktrees.Base{Name: "main"},
			Commits: 2, Uncommitted: 1, Added: 12, Deleted: 3, Files: []worktrees.FileChange{
				{Path: "calc.py", Status: "modified", Added: 10, Deleted: 2}, {Path: "<b>x</b>.md", Status: "added", Added: 2, Deleted: 1}}},
		{Member: "granted", Members: []string{"granted"}, Worktree: true},
	}}, nil
}

func (f *acting) Merge(_ context.Context, tm, member string) (*model.MergeResult, error) {
	f.did(fmt.Sprintf("merge %s/%s by %s %s", tm, member, f.by.Via, f.by.From))
	return &model.MergeResult{Team: tm, Landed: []model.Landed{{Member: member, Landed: worktrees.Landed{Branch: "teamctl/demo/" + member, Into: "main", Commits: 2}}}}, nil
}

// fakeDiff is calc.py's diff, as git writes it (a tag in it, a tab).
const fakeDiff = "diff --git a/calc.py b/calc.py\nindex 1111111..2222222 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,3 @@\n def f():\n-\told = 1\n+\tnew = 2 # <b>x</b>\n return\n"

func (f *acting) FileDiff(_ context.Context, tm, member, path string) (string, error) {
	if member == "asker" && path == "calc.py" {
		return fakeDiff, nil
	}
	return "", fmt.Errorf("%s is not one of %s's changed files", path, member)
}

func (f *acting) PlanFinish(_ context.Context, tm, member string) (*model.FinishPlan, error) {
	return &model.FinishPlan{Member: member, Stop: true, Branch: "teamctl/demo/" + member, Into: "main", Commits: 2, Worktree: "/w/" + member}, nil
}

func (f *acting) Finish(_ context.Context, tm, member string) (*model.FinishResult, error) {
	f.did(fmt.Sprintf("finish %s/%s by %s %s", tm, member, f.by.Via, f.by.From))
	return &model.FinishResult{Team: tm, Finished: []model.Finished{{Landed: model.Landed{Member: member, Landed: worktrees.Landed{Branch: "teamctl/demo/" + member, Into: "main", Commits: 2}},
		Worktree: "/w/" + member, Branch: "teamctl/demo/" + member}}}, nil
}

const xssName = `<img src=x onerror=alert(1)>`

// world is a server on a fake team "demo": lead idle, asker stalled,
// granted waiting for approval, and a lead-spawned teammate whose name (as
// Claude Code's config has it) is HTML.
type world struct {
	t     *testing.T
	f     *fake
	s     *Server
	token string
}

func fakeTeam() *model.Status {
	now := time.Now()
	return &model.Status{Team: "demo", Members: []model.MemberStatus{
		{Name: "lead", Role: state.RoleLead, State: state.StateIdle, Pane: "%0", Since: now},
		{Name: "asker", Role: state.RoleTeammate, State: state.StateStalled, Pane: "%1", Stall: &model.Stall{Line: "Overwrite? (y/n)", Since: now}},
		{Name: "granted", Role: state.RoleTeammate, State: state.StateWaitingApproval, Pane: "%2", Request: &state.Request{ID: "r1", Tool: "Bash", Input: `{"command":"touch x"}`, Since: now}},
		{Name: xssName, Role: state.RoleTeammate, State: state.StateRunning, Pane: "%3", Origin: state.OriginLead},
	}}
}

func newWorld(t *testing.T, o Options) *world {
	t.Helper()
	return newWorldOf(t, o, fakeTeam(), nil)
}

// newWorldOf is a server on team st, its members' screens as screens say.
func newWorldOf(t *testing.T, o Options, st *model.Status, screens map[string]string) *world {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	token, _, err := LoadToken(o.ReadOnly, false)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{status: map[string]*model.Status{st.Team: st}, screens: screens}
	o.Backend, o.Token = f, token
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, f: f, s: s, token: token}
}

func (w *world) do(r *http.Request) *http.Response {
	rec := httptest.NewRecorder()
	w.s.ServeHTTP(rec, r)
	return rec.Result()
}

// login logs in from addr and returns the session cookie and the page's
// anti-CSRF token.
func (w *world) login(addr string) (*http.Cookie, string) {
	w.t.Helper()
	r := httptest.NewRequest("GET", "/login?token="+w.token, nil)
	r.RemoteAddr = addr
	res := w.do(r)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		w.t.Fatalf("login: %s, Location %q", res.Status, res.Header.Get("Location"))
	}
	var c *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == cookieName {
			c = k
		}
	}
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		w.t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/", c)
	}
	r = httptest.NewRequest("GET", "/", nil)
	r.AddCookie(c)
	page := body(w.do(r))
	_, rest, _ := strings.Cut(page, `name="csrf-token" content="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	if len(csrf) != 43 {
		w.t.Fatalf("no anti-CSRF token in the page:\n%s", page)
	}
	return c, csrf
}

// wrong is secret with its first character changed (never to itself: one
// token in 64 starts with an x).
func wrong(secret string) string {
	if secret[0] == 'x' {
		return "y" + secret[1:]
	}
	return "x" + secret[1:]
}

func body(res *http.Response) string {
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// post is an action as the page sends it; edit changes it first.
func (w *world) post(action string, c *http.Cookie, csrf, js string, edit func(*http.Request)) *http.Response {
	r := httptest.NewRequest("POST", "/api/"+action, strings.NewReader(js))
	r.RemoteAddr = "192.0.2.7:5555"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Origin", "http://example.com")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if c != nil {
		r.AddCookie(c)
	}
	if csrf != "" {
		r.Header.Set(csrfHeader, csrf)
	}
	if edit != nil {
		edit(r)
	}
	return w.do(r)
}

var actions = map[string]string{
	"answer":  `{"team":"demo","member":"asker","reply":"y"}`,
	"approve": `{"team":"demo","member":"granted"}`,
	"deny":    `{"team":"demo","member":"granted","reason":"not now"}`,
	"send":    `{"team":"demo","member":"granted","text":"hello"}`,
	"restart": `{"team":"demo","member":"asker"}`,
	"merge":   `{"team":"demo","member":"asker"}`,
	"finish":  `{"team":"demo","member":"asker"}`,
}

// TestNoSession: without a session cookie every page, stream and action is
// 401, and nothing is done.
func TestNoSession(t *testing.T) {
	w := newWorld(t, Options{})
	for _, p := range []string{"/", "/api/view", "/api/stream", "/api/screen?team=demo&member=asker", "/static/app.js", "/static/app.css"} {
		if res := w.do(httptest.NewRequest("GET", p, nil)); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %s, want 401", p, res.Status)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(&http.Cookie{Name: cookieName, Value: "forged"})
	if res := w.do(r); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / with a forged cookie: %s, want 401", res.Status)
	}
	for a, js := range actions {
		if res := w.post(a, nil, "", js, nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST %s without a session: %s, want 401", a, res.Status)
		}
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Errorf("done without a session: %v", got)
	}
}

// TestHeaders: every answer forbids framing, sniffing, referrers and any
// script or style not the page's own.
func TestHeaders(t *testing.T) {
	w := newWorld(t, Options{})
	c, _ := w.login("127.0.0.1:1")
	for _, p := range []string{"/", "/login", "/api/view", "/static/app.js"} {
		r := httptest.NewRequest("GET", p, nil)
		r.AddCookie(c)
		h := w.do(r).Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q allows inline or eval", p, csp)
		}
		for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s %q, want %q", p, k, h.Get(k), v)
			}
		}
	}
	// The page has no inline script or style for the CSP to allow.
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(c)
	page := body(w.do(r))
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") || strings.Contains(page, "<style") || strings.Contains(page, " on") && strings.Contains(page, "onclick") {
		t.Errorf("inline script or style in the page:\n%s", page)
	}
}

// TestLogin: the token is exchanged for a session and the browser is sent
// to the page's own URL (no token in it); the session works.
func TestLogin(t *testing.T) {
	w := newWorld(t, Options{})
	c, _ := w.login("127.0.0.1:1")
	r := httptest.NewRequest("GET", "/api/view", nil)
	r.AddCookie(c)
	res := w.do(r)
	var v View
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || len(v.Teams) != 1 || len(v.Rows) != 4 {
		t.Fatalf("view: %v %+v", err, v)
	}
	// Whoever waits for a person first, as top: the longest waiting first.
	if v.Rows[0].Member != "asker" || v.Rows[1].Member != "granted" {
		t.Errorf("rows %+v: want asker, granted first", v.Rows)
	}
	if res := w.do(httptest.NewRequest("GET", "/login?token="+wrong(w.token), nil)); res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Errorf("a wrong token: %s, cookies %v", res.Status, res.Cookies())
	}
}

// TestCrossSite: an action needs the session's anti-CSRF token, the page's
// own origin and a JSON body; a GET acts on nothing.
func TestCrossSite(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, csrf := w.login("127.0.0.1:1")
	for name, c := range map[string]struct {
		csrf string
		edit func(*http.Request)
		code int
	}{
		"no anti-CSRF token":      {"", nil, http.StatusForbidden},
		"a wrong anti-CSRF token": {wrong(csrf), nil, http.StatusForbidden},
		"another origin":          {csrf, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden},
		"a null origin":           {csrf, func(r *http.Request) { r.Header.Set("Origin", "null") }, http.StatusForbidden},
		"another site (Fetch)":    {csrf, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
		"a form's body":           {csrf, func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }, http.StatusUnsupportedMediaType},
		"a text body":             {csrf, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, http.StatusUnsupportedMediaType},
		"a GET":                   {csrf, func(r *http.Request) { r.Method = "GET" }, http.StatusMethodNotAllowed},
		"a PUT":                   {csrf, func(r *http.Request) { r.Method = "PUT" }, http.StatusMethodNotAllowed},
		"a body too large": {csrf, func(r *http.Request) {
			big := `{"team":"demo","member":"granted","text":"` + strings.Repeat("a", maxBody) + `"}`
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(big)), int64(len(big))
		}, http.StatusRequestEntityTooLarge},
		"an unknown field": {csrf, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"team":"demo","member":"granted","as":"root"}`))
		}, http.StatusBadRequest},
		"a team not shown": {csrf, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"team":"other","member":"granted"}`))
		}, http.StatusBadRequest},
		"a member not in the team": {csrf, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"team":"demo","member":"nobody"}`))
		}, http.StatusBadRequest},
	} {
		t.Run(name, func(t *testing.T) {
			res := w.post("approve", cookie, c.csrf, actions["approve"], c.edit)
			if res.StatusCode != c.code {
				t.Errorf("%s, want %d: %s", res.Status, c.code, body(res))
			}
		})
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Fatalf("done by a refused request: %v", got)
	}
	// The same request as the page sends it is done, as by a person at its address.
	if res := w.post("approve", cookie, csrf, actions["approve"], nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the page's own request: %s %s", res.Status, body(res))
	}
	if got := w.f.actions(); len(got) != 1 || got[0] != "approve demo/granted by web 192.0.2.7:5555" {
		t.Errorf("done: %v", got)
	}
}

// TestHost: on loopback only the server's own names are answered, so a
// page whose DNS name was rebound to 127.0.0.1 reads nothing.
func TestHost(t *testing.T) {
	w := newWorld(t, Options{Hosts: []string{"127.0.0.1:8421", "localhost:8421"}})
	r := httptest.NewRequest("GET", "/login?token="+w.token, nil)
	r.Host = "evil.example:8421"
	if res := w.do(r); res.StatusCode != http.StatusMisdirectedRequest || len(res.Cookies()) != 0 {
		t.Errorf("another Host: %s, cookies %v", res.Status, res.Cookies())
	}
	r = httptest.NewRequest("GET", "/login?token="+w.token, nil)
	r.Host = "localhost:8421"
	if res := w.do(r); res.StatusCode != http.StatusSeeOther {
		t.Errorf("its own Host: %s", res.Status)
	}
}

// TestRateLimit: 20 wrong tokens from one address, and wrong ones are
// refused from the 11th on, unread, until the window passed; the right token
// is never refused for them, from that address or another.
func TestRateLimit(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	w := newWorld(t, Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	try := func(addr, token string) int {
		r := httptest.NewRequest("GET", "/login?token="+url.QueryEscape(token), nil)
		r.RemoteAddr = addr
		return w.do(r).StatusCode
	}
	for i := range 20 {
		want := http.StatusUnauthorized
		if i >= loginFailures {
			want = http.StatusTooManyRequests
		}
		if got := try("198.51.100.9:4000", fmt.Sprintf("wrong-%d", i)); got != want {
			t.Fatalf("wrong token %d: %d, want %d", i+1, got, want)
		}
	}
	if got := try("203.0.113.1:4000", "wrong"); got != http.StatusUnauthorized {
		t.Errorf("a wrong token from another address: %d, want 401", got)
	}
	mu.Lock()
	now = now.Add(loginWindow + time.Second)
	mu.Unlock()
	if got := try("198.51.100.9:4002", "wrong-again"); got != http.StatusUnauthorized {
		t.Errorf("a wrong token once the window passed: %d, want 401", got)
	}
	if got := try("198.51.100.9:4001", w.token); got != http.StatusSeeOther {
		t.Errorf("the right token from a limited address: %d, want 303", got)
	}
}

// TestReadOnly: --read-only refuses every action, says so in the page, and
// does nothing.
func TestReadOnly(t *testing.T) {
	w := newWorld(t, Options{ReadOnly: true})
	cookie, csrf := w.login("127.0.0.1:1")
	for a, js := range actions {
		if res := w.post(a, cookie, csrf, js, nil); res.StatusCode != http.StatusForbidden || !strings.Contains(body(res), "read-only") {
			t.Errorf("POST %s read-only: %s", a, res.Status)
		}
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Errorf("done read-only: %v", got)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(cookie)
	if page := body(w.do(r)); !strings.Contains(page, `name="read-only" content="true"`) {
		t.Errorf("the page does not know it is read-only")
	}
}

// TestActions: each action reaches its verb with what the page sent, as by
// a person at the request's address.
func TestActions(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, csrf := w.login("127.0.0.1:1")
	for _, a := range []string{"answer", "approve", "deny", "send", "restart"} {
		if res := w.post(a, cookie, csrf, actions[a], nil); res.StatusCode != http.StatusOK {
			t.Errorf("%s: %s %s", a, res.Status, body(res))
		}
	}
	res := w.post("answer", cookie, csrf, `{"team":"demo","member":"asker","keys":"Down Enter"}`, nil)
	if res.StatusCode != http.StatusOK {
		t.Errorf("keys: %s %s", res.Status, body(res))
	}
	res = w.post("answer", cookie, csrf, "{\"team\":\"demo\",\"member\":\"asker\",\"keys\":\"\u001b[Z\"}", nil)
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("an escape sequence as keys: %s", res.Status)
	}
	want := []string{
		"answer demo/asker y[] by web 192.0.2.7:5555",
		"approve demo/granted by web 192.0.2.7:5555",
		`deny demo/granted "not now" by web 192.0.2.7:5555`,
		`send demo/granted "hello" by web 192.0.2.7:5555`,
		"restart demo/asker by web 192.0.2.7:5555",
		"answer demo/asker [Down Enter] by web 192.0.2.7:5555",
	}
	if got := w.f.actions(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("done:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHostileText: a member named as HTML (Claude Code's config) and a
// screen of escape sequences and tags reach the page as data, never as
// markup: JSON with < escaped, and control characters made visible.
func TestHostileText(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, _ := w.login("127.0.0.1:1")
	r := httptest.NewRequest("GET", "/api/view", nil)
	r.AddCookie(cookie)
	v := body(w.do(r))
	if strings.Contains(v, "<img") || !strings.Contains(v, `\u003cimg src=x onerror=alert(1)\u003e`) {
		t.Errorf("the name in the view: %s", v)
	}
	r = httptest.NewRequest("GET", "/", nil)
	r.AddCookie(cookie)
	if strings.Contains(body(w.do(r)), "onerror") {
		t.Error("the page carries an agent's text")
	}
	r = httptest.NewRequest("GET", "/api/screen?team=demo&member=asker", nil)
	r.AddCookie(cookie)
	var sc struct{ Lines []string }
	json.NewDecoder(w.do(r).Body).Decode(&sc)
	if len(sc.Lines) == 0 || strings.ContainsRune(strings.Join(sc.Lines, ""), 0x1b) {
		t.Errorf("screen %q: want its lines, no escape character", sc.Lines)
	}
	// The script sets text, never HTML.
	js, _ := static.ReadFile("static/app.js")
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(string(js), bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

// TestLive: a change in a team's folder reaches an open event stream, and
// a team coming up appears without a restart.
func TestLive(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, _ := w.login("127.0.0.1:1")
	srv := httptest.NewServer(w.s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/api/stream", nil)
	req.AddCookie(cookie)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	views := make(chan View, 16)
	go func() {
		dec := newSSE(res.Body)
		for {
			data, ok := dec()
			if !ok {
				close(views)
				return
			}
			var v View
			json.Unmarshal([]byte(data), &v)
			views <- v
		}
	}()
	first := <-views
	if len(first.Teams) != 1 {
		t.Fatalf("first view: %+v", first)
	}
	// A second team comes up: its folder and state.json appear.
	w.f.mu.Lock()
	s2 := fakeTeam()
	s2.Team = "second"
	w.f.status["second"] = s2
	w.f.mu.Unlock()
	dir, err := state.EnsureDir("second")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case v, ok := <-views:
			if !ok {
				t.Fatal("the stream ended")
			}
			if len(v.Teams) == 2 {
				return
			}
		case <-deadline:
			t.Fatal("the second team never showed")
		}
	}
}

// newSSE reads the data of each event of an event stream.
func newSSE(r io.Reader) func() (string, bool) {
	br := bufioReader(r)
	return func() (string, bool) {
		var data strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return "", false
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "" && data.Len() > 0:
				return data.String(), true
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			}
		}
	}
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

// TestLoginFromALink: the page reached at the end of a login a link on
// another site began comes without the SameSite=Strict cookie; it loads
// itself again (a same-site load, which has it), once: from the page's own
// site, no cookie is a 401 and no more.
func TestLoginFromALink(t *testing.T) {
	w := newWorld(t, Options{})
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	res := w.do(r)
	if b := body(res); res.StatusCode != http.StatusUnauthorized || !strings.Contains(b, `http-equiv="refresh" content="0; url=/"`) {
		t.Errorf("cross-site: %s %s", res.Status, b)
	}
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if b := body(w.do(r)); strings.Contains(b, "refresh") {
		t.Errorf("same-origin without a cookie loads again: %s", b)
	}
}

// TestLoginLockout: what any web page can make a browser send (an <img>,
// a fetch, an iframe at /login?token=…) is refused without counting as a
// failed login; and failed logins, even 20 top-level ones from the owner's
// own address, never keep the right token out.
func TestLoginLockout(t *testing.T) {
	w := newWorld(t, Options{})
	try := func(token string, h map[string]string) *http.Response {
		r := httptest.NewRequest("GET", "/login?token="+url.QueryEscape(token), nil)
		r.RemoteAddr = "127.0.0.1:4000"
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return w.do(r)
	}
	img := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
	for i := range 20 {
		if res := try(fmt.Sprintf("bad%d", i), img); res.StatusCode != http.StatusForbidden {
			t.Fatalf("an <img> login %d: %s, want 403", i+1, res.Status)
		}
	}
	// Not even the right token logs in from an <img> or an iframe: only a
	// top-level navigation (or a client that is no browser) does.
	for _, h := range []map[string]string{img, {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}, {"Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}} {
		if res := try(w.token, h); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("the right token with %v: %s, cookies %v, want 403 and none", h, res.Status, res.Cookies())
		}
	}
	nav := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
	if res := try(w.token, nav); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the real login after 20 cross-site failures: %s, want 303", res.Status)
	}
	// Top-level failures count, and still never block the right token.
	for i := range 20 {
		try(fmt.Sprintf("bad%d", i), nav)
	}
	if res := try("bad", nav); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a wrong token after 20 failures: %s, want 429", res.Status)
	}
	if res := try(w.token, nav); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the real login after 20 top-level failures: %s, want 303", res.Status)
	}
	// A success forgets the failures.
	if res := try("bad", nav); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token after a login: %s, want 401 (the count starts again)", res.Status)
	}
}

// TestStreamSlots: one session's open pages, however many, leave another
// session its view and a member's screen; a session past its slots ends its
// own oldest stream, so a page reloaded over dead connections still gets one.
func TestStreamSlots(t *testing.T) {
	w := newWorld(t, Options{})
	srv := httptest.NewServer(w.s)
	t.Cleanup(srv.Close) // after the streams' bodies are closed
	open := func(c *http.Cookie, path string) (*http.Response, func() (string, bool)) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.AddCookie(c)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res, newSSE(res.Body)
	}
	hog, _ := w.login("127.0.0.1:1")
	var first func() (string, bool)
	for i := range 100 {
		path := "/api/stream"
		if i%2 == 1 {
			path = "/api/screen/stream?team=demo&member=asker"
		}
		res, next := open(hog, path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("the hog's stream %d: %s", i+1, res.Status)
		}
		if _, ok := next(); !ok {
			t.Fatalf("the hog's stream %d: no first event", i+1)
		}
		if i == 0 {
			first = next
		}
	}
	owner, _ := w.login("127.0.0.1:2")
	for _, path := range []string{"/api/stream", "/api/screen/stream?team=demo&member=asker"} {
		res, next := open(owner, path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("the owner's %s after 100 of another session's: %s", path, res.Status)
		}
		if data, ok := next(); !ok || data == "" {
			t.Errorf("the owner's %s: no first event", path)
		}
	}
	// The hog's first stream was ended for its later ones.
	ended := make(chan bool, 1)
	go func() {
		for {
			if _, ok := first(); !ok {
				ended <- true
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Error("the hog's first stream still runs after 99 more of its session")
	}
}

// TestChangesAndMerge: a member's changes come as the lines the page shows
// (diff --stat's, made in Go, an agent's file name as text), read through
// team's Actions; a merge is team's Merge, recorded as the web's, and says
// what landed.
func TestChangesAndMerge(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, csrf := w.login("127.0.0.1:1")
	r := httptest.NewRequest("GET", "/api/changes?team=demo&member=asker", nil)
	r.AddCookie(cookie)
	res := w.do(r)
	var v workView
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("changes: %s %v", res.Status, err)
	}
	if v.Summary != "2 files +12 -3 · 2 commits, 1 uncommitted · teamctl/demo/asker from main" || !v.Mergeable ||
		strings.Join(v.Files, "|") != "modified calc.py +10 -2|added <b>x</b>.md +2 -1" {
		t.Errorf("asker's changes: %+v", v)
	}
	r = httptest.NewRequest("GET", "/api/changes?team=demo&member=granted", nil)
	r.AddCookie(cookie)
	if err := json.NewDecoder(w.do(r).Body).Decode(&v); err != nil || v.Summary != "no changes" || v.Mergeable {
		t.Errorf("granted's changes: %+v %v", v, err)
	}
	res = w.post("merge", cookie, csrf, actions["merge"], nil)
	if b := body(res); res.StatusCode != http.StatusOK || !strings.Contains(b, "merged asker into main (2 commits)") {
		t.Errorf("merge: %s %s", res.Status, b)
	}
	if got := w.f.actions(); strings.Join(got, "\n") != "merge demo/asker by web 192.0.2.7:5555" {
		t.Errorf("done: %v", got)
	}
}

// TestDurationsTick: while a page follows the view, a member's "for" goes on
// with no change in the team's folder (the view is made again each second,
// its texts in Go); the page has no clock of its own to do it.
func TestDurationsTick(t *testing.T) {
	w := newWorld(t, Options{})
	c, end := w.s.hub.subscribe()
	defer end()
	forOf := func() string {
		var v View
		json.Unmarshal(w.s.hub.current(), &v)
		for _, r := range v.Rows {
			if r.Member == "lead" {
				return r.For
			}
		}
		return ""
	}
	// Three texts in turn: one change could be a look the watch asked for.
	seen := []string{forOf()}
	deadline := time.After(20 * time.Second)
	for len(seen) < 3 {
		select {
		case <-c:
			if f := forOf(); f != seen[len(seen)-1] {
				seen = append(seen, f)
			}
		case <-deadline:
			t.Fatalf("the lead's duration went %q only", seen)
		}
	}
}

// TestFileDiffAndFinish: one changed file's diff comes as lines with their
// kinds (text made visible in Go: a tag stays text, a tab spaces), only for
// a file the member's changes list; a longer one is cut and says so.
// Finish's plan is read without acting; finish itself is team's Finish,
// recorded as the web's, and says what it did.
func TestFileDiffAndFinish(t *testing.T) {
	w := newWorld(t, Options{})
	cookie, csrf := w.login("127.0.0.1:1")
	get := func(url string) (*http.Response, string) {
		r := httptest.NewRequest("GET", url, nil)
		r.AddCookie(cookie)
		res := w.do(r)
		return res, body(res)
	}
	res, b := get("/api/diff?team=demo&member=asker&file=calc.py")
	var d diffView
	if err := json.Unmarshal([]byte(b), &d); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("calc.py's diff: %s %s", res.Status, b)
	}
	var kinds []string
	for _, l := range d.Lines {
		kinds = append(kinds, l.Kind+":"+l.Text)
	}
	want := []string{"meta:diff --git a/calc.py b/calc.py", "meta:index 1111111..2222222 100644", "meta:--- a/calc.py", "meta:+++ b/calc.py",
		"hunk:@@ -1,3 +1,3 @@", ": def f():", "del:-    old = 1", "add:+    new = 2 # <b>x</b>", ": return"}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") || d.Cut != "" {
		t.Errorf("calc.py's diff lines:\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	for _, q := range []string{"team=demo&member=asker&file=..%2F..%2Fetc%2Fpasswd", "team=demo&member=asker&file=b.go"} {
		if res, b := get("/api/diff?" + q); res.StatusCode != http.StatusConflict || !strings.Contains(b, "is not one of asker's changed files") {
			t.Errorf("%s: %s %s", q, res.Status, b)
		}
	}
	for _, q := range []string{"team=demo&member=asker", "team=demo&member=nobody&file=calc.py"} {
		if res, b := get("/api/diff?" + q); res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %s %s", q, res.Status, b)
		}
	}
	long := diffOf("big", "diff --git a/big b/big\n@@ -1 +1 @@\n"+strings.Repeat("+0123456789abcdef\n", maxDiffBytes/16))
	if !strings.HasPrefix(long.Cut, "cut at ") || len(long.Lines) > maxDiffBytes/17+3 {
		t.Errorf("a long diff: %d lines, cut %q", len(long.Lines), long.Cut)
	}

	res, b = get("/api/finish-plan?team=demo&member=asker")
	var p planView
	if err := json.Unmarshal([]byte(b), &p); err != nil || res.StatusCode != http.StatusOK || p.Refused || len(p.Lines) != 4 ||
		p.Lines[0] != "stop asker first (it runs), as teamctl stop does" || p.Lines[1] != "merge 2 commit(s) of teamctl/demo/asker into main" {
		t.Errorf("finish's plan: %s %s", res.Status, b)
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Errorf("reading the plan did %v", got)
	}
	res = w.post("finish", cookie, csrf, actions["finish"], nil)
	if b := body(res); res.StatusCode != http.StatusOK || !strings.Contains(b, "finished asker into main (2 commits); worktree removed; branch teamctl/demo/asker deleted") {
		t.Errorf("finish: %s %s", res.Status, b)
	}
	if got := w.f.actions(); strings.Join(got, "\n") != "finish demo/asker by web 192.0.2.7:5555" {
		t.Errorf("done: %v", got)
	}
}

// Package web is `teamctl serve`: the cockpit in a browser. One page,
// embedded in the binary (HTML, CSS and JavaScript of our own, no build
// step, no CDN), shows the teams that are up as `top` does, pushed as
// Server-Sent Events from the same watch of the teams' folders (state.Watch),
// and acts through the commands' own verbs (team.Actions, as top does:
// answer, approve, deny, send, restart, diff --stat, merge), each recorded
// as coming from the web and from which address. What it shows of the teams
// is team/view's: the rows in order and their texts, made in Go. It is safe by default: a login token exchanged once for an
// HttpOnly, SameSite=Strict session cookie; an anti-CSRF token, a same-origin
// check and POST on every action; a strict Content-Security-Policy and no
// framing; bounded bodies; failed logins rate-limited per address; every
// text an agent wrote set as text, never as HTML. Where it listens and with
// which certificate is the command's to decide (cmd/teamctl/serve.go).
package web

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

//go:embed static
var static embed.FS

// Options say what a Server shows and how it lets people in.
type Options struct {
	Backend  Backend
	Token    string // the login token (LoadToken)
	Team     string // the one team shown, "" for every team up
	ReadOnly bool   // the view alone: every action refused
	// Secure: served over TLS, so the session cookie is Secure.
	Secure bool
	// Hosts, when set, are the only Host headers answered (a server on
	// loopback answers only its own names, not a rebound DNS name).
	Hosts []string
	Log   *slog.Logger
	Now   func() time.Time // the clock of sessions and failed logins; time.Now when nil
}

// Server is the web cockpit's HTTP handler.
type Server struct {
	o        Options
	hub      *hub
	sessions *sessions
	limiter  *limiter
	mux      *http.ServeMux
}

// New starts following the teams (until ctx ends) and returns the server
// once it has a first view of them.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Backend == nil {
		return nil, fmt.Errorf("web: no backend")
	}
	if !tokenRE.MatchString(o.Token) {
		return nil, fmt.Errorf("web: the login token is not one LoadToken makes")
	}
	if o.Team != "" && !validTeam(o.Team) {
		return nil, fmt.Errorf("--team %s: not a team's name (1-40 of a-z, 0-9 and -)", quote(o.Team))
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	w, err := o.Backend.Watch(ctx, state.WatchOptions{Debounce: gather})
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, hub: newHub(o.Backend, o.Team, o.ReadOnly, o.Log), sessions: newSessions(o.Now),
		limiter: newLimiter(o.Now), mux: http.NewServeMux()}
	ready := make(chan struct{})
	go s.hub.run(ctx, w, ready)
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.HandleFunc("GET /{$}", s.authed(s.page))
	s.mux.Handle("GET /static/", s.authed(http.StripPrefix("/static/", files).ServeHTTP))
	s.mux.HandleFunc("GET /api/view", s.authed(s.viewJSON))
	s.mux.HandleFunc("GET /api/stream", s.authed(s.stream))
	s.mux.HandleFunc("GET /api/screen", s.authed(s.screen))
	s.mux.HandleFunc("GET /api/screen/stream", s.authed(s.screenStream))
	s.mux.HandleFunc("GET /api/changes", s.authed(s.changes))
	s.mux.HandleFunc("GET /api/diff", s.authed(s.fileDiff))
	s.mux.HandleFunc("GET /api/finish-plan", s.authed(s.finishPlan))
	for _, a := range []string{"answer", "approve", "deny", "send", "restart", "merge", "finish"} {
		s.mux.HandleFunc("POST /api/"+a, s.action(a))
	}
	return s, nil
}

// ServeHTTP answers r with the security headers every answer has.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if len(s.o.Hosts) > 0 && !hostAllowed(r.Host, s.o.Hosts) {
		http.Error(w, "teamctl serve: unknown Host "+quote(r.Host)+": reach it by the address it printed", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func hostAllowed(h string, hosts []string) bool {
	for _, a := range hosts {
		if strings.EqualFold(h, a) {
			return true
		}
	}
	return false
}

// authed lets through only requests with a live session.
func (s *Server) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.sessions.of(r) == nil {
			if r.URL.Path == "/" && r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.Header.Get("Sec-Fetch-Mode") == "navigate" {
				// The login's redirect, at the end of a chain a link on another
				// site began: the browser sends no SameSite=Strict cookie on it.
				// Loaded again from here, the page is same-site and gets it.
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintln(w, `<!doctype html><meta http-equiv="refresh" content="0; url=/"><title>teamctl</title><p>Opening the page…</p>`)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintln(w, "Not logged in: open the login URL `teamctl serve` printed (or scan its QR code).")
			return
		}
		next(w, r)
	}
}

// login exchanges the token for a session and sends the browser on to the
// page's own URL, so the token stays in no address bar, history or link.
//
// Only a top-level navigation logs in: what any web page can make a browser
// send on its own (an <img>, a fetch, an iframe at /login?token=…) says so in
// its Sec-Fetch-Mode and Sec-Fetch-Dest, and is refused without counting as a
// failed login, so no page can spend the owner's failures. The token is
// compared first: failed logins slow down guesses from an address, never the
// right token; a login forgets its address's failures.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	addr := host(r)
	if !topLevel(r) {
		s.o.Log.Warn("login refused: not a top-level navigation", "from", addr,
			"mode", textsafe.Visible(r.Header.Get("Sec-Fetch-Mode")), "dest", textsafe.Visible(r.Header.Get("Sec-Fetch-Dest")))
		http.Error(w, "log in by opening the login URL itself (a link, the address bar, the QR code), not from within another page", http.StatusForbidden)
		return
	}
	if !equal(r.URL.Query().Get("token"), s.o.Token) {
		if s.limiter.blocked(addr) {
			s.o.Log.Warn("login refused: too many failed logins", "from", addr)
			w.Header().Set("Retry-After", fmt.Sprint(int(loginWindow.Seconds())))
			http.Error(w, "too many failed logins from your address: wait, then use the URL teamctl serve printed", http.StatusTooManyRequests)
			return
		}
		s.limiter.failed(addr)
		s.o.Log.Warn("login failed: wrong token", "from", addr)
		http.Error(w, "wrong or old login token: use the URL teamctl serve printed last", http.StatusUnauthorized)
		return
	}
	s.limiter.forget(addr)
	id, _ := s.sessions.create()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, Secure: s.o.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(sessionLife.Seconds())})
	s.o.Log.Info("logged in", "from", addr)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// topLevel: the request is a browser's top-level navigation (a link
// followed, an address typed or scanned), or comes from no browser at all
// (curl, a script: no Sec-Fetch headers).
func topLevel(r *http.Request) bool {
	mode, dest := r.Header.Get("Sec-Fetch-Mode"), r.Header.Get("Sec-Fetch-Dest")
	return (mode == "" || mode == "navigate") && (dest == "" || dest == "document")
}

// page is the one page, with the session's anti-CSRF token in a meta tag
// for the script to send back on every action.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	sess := s.sessions.of(r)
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		http.Error(w, "the page is missing from this build", http.StatusInternalServerError)
		return
	}
	ro := "false"
	if s.o.ReadOnly {
		ro = "true"
	}
	// Both are ours (base64url, a word): nothing to escape.
	page := strings.NewReplacer("{{csrf}}", sess.csrf, "{{readonly}}", ro).Replace(string(b))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, page)
}

func (s *Server) viewJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.hub.current())
}

// stream pushes the View as Server-Sent Events: at once, then on every
// change; a comment now and then tells a dead connection from a quiet team.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	ctx, es, done := s.openStream(w, r)
	defer done()
	c, end := s.hub.subscribe()
	defer end()
	es.run(ctx, c, 0, func() bool { return es.send("view", s.hub.current()) })
}

package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Sessions: the login token, once shown, is exchanged for a session (an
// HttpOnly, SameSite=Strict cookie), so that it never appears in a later URL;
// each session has its anti-CSRF token, which every POST must carry.

const (
	cookieName  = "teamctl_session"
	csrfHeader  = "X-Csrf-Token"
	sessionLife = 30 * 24 * time.Hour
	maxSessions = 256 // the oldest goes first
	// Failed logins: at most loginFailures per address in loginWindow.
	loginFailures = 10
	loginWindow   = 10 * time.Minute
	maxAddresses  = 4096 // addresses whose failures are kept
)

type session struct {
	csrf    string
	expires time.Time
	streams []*stream // its open event streams, oldest first (sessions.mu)
}

// maxSessionStreams bounds one session's event streams (a page takes two:
// the view and a member's screen). Slots are a session's own, so no one's
// open pages, however many, leave another session without a view; and the
// whole is bounded by maxSessions times this.
const maxSessionStreams = 8

// stream is an open event stream, ended by end.
type stream struct{ end context.CancelFunc }

// openStream takes one of sess's slots for a stream of parent's life, and
// returns its context and the slot's release. Past its slots, the session's
// oldest stream ends: a page reloaded over dead connections the server has
// not noticed yet gets its view all the same.
func (s *sessions) openStream(parent context.Context, sess *session) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	if sess == nil { // it expired since authed looked
		cancel()
		return ctx, func() {}
	}
	st := &stream{end: cancel}
	s.mu.Lock()
	for len(sess.streams) >= maxSessionStreams {
		sess.streams[0].end()
		sess.streams = sess.streams[1:]
	}
	sess.streams = append(sess.streams, st)
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		sess.streams = slices.DeleteFunc(sess.streams, func(x *stream) bool { return x == st })
		s.mu.Unlock()
	}
}

type sessions struct {
	mu    sync.Mutex
	now   func() time.Time
	byKey map[[32]byte]*session // by the hash of the cookie's value
	order [][32]byte            // oldest first
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, byKey: map[[32]byte]*session{}}
}

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // it does not, on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// create makes a session and returns its cookie value.
func (s *sessions) create() (id string, sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id = random()
	k := sha256.Sum256([]byte(id))
	sess = &session{csrf: random(), expires: s.now().Add(sessionLife)}
	s.byKey[k] = sess
	s.order = append(s.order, k)
	for len(s.order) > maxSessions {
		for _, st := range s.byKey[s.order[0]].streams {
			st.end()
		}
		delete(s.byKey, s.order[0])
		s.order = s.order[1:]
	}
	return id, sess
}

// of is the session of the request's cookie, nil without one alive. Looked
// up by a hash of the value: what a lookup's timing could tell is of the hash.
func (s *sessions) of(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil || len(c.Value) > 64 {
		return nil
	}
	k := sha256.Sum256([]byte(c.Value))
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.byKey[k]
	if sess == nil || s.now().After(sess.expires) {
		return nil
	}
	return sess
}

// equal compares two secrets in constant time (of their hashes, so that
// their lengths do not show either).
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// limiter counts failed logins per address: what slows down guessing the
// token from there (the right token is never refused for them).
type limiter struct {
	mu    sync.Mutex
	now   func() time.Time
	fails map[string][]time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, fails: map[string][]time.Time{}}
}

// blocked reports whether addr has failed too often lately.
func (l *limiter) blocked(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(addr)) >= loginFailures
}

// failed counts a failed login of addr.
func (l *limiter) failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fails) >= maxAddresses {
		for a := range l.fails { // forget the ones whose window passed, else any
			if len(l.recent(a)) == 0 || len(l.fails) >= maxAddresses {
				delete(l.fails, a)
			}
		}
	}
	l.fails[addr] = append(l.recent(addr), l.now())
}

// forget forgets addr's failed logins (it just logged in).
func (l *limiter) forget(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, addr)
}

func (l *limiter) recent(addr string) []time.Time {
	cut := l.now().Add(-loginWindow)
	fs := l.fails[addr]
	i := 0
	for i < len(fs) && fs[i].Before(cut) {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(l.fails, addr)
	}
	return fs
}

// host is the address a request came from, without its port: what failed
// logins are counted by.
func host(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

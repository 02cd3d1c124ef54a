package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team/model"
)

const (
	// maxBody bounds an action's request body.
	maxBody = 16 << 10
	// actionTimeout bounds one action (a restart waits for the member to end).
	actionTimeout = 90 * time.Second
	// screenLines is how much of the bottom of a pane the page gets.
	screenLines = 60
	maxKeys     = 32
)

// request is an action's body.
type request struct {
	Team   string `json:"team"`
	Member string `json:"member"`
	Reply  string `json:"reply,omitempty"`  // answer: y, n, or an option's number
	Option string `json:"option,omitempty"` // answer: a dialog's option by its label ("4. No")
	Asks   string `json:"asks,omitempty"`   // with Option: what the dialog asked about, as the page showed it
	Keys   string `json:"keys,omitempty"`   // answer: tmux keys, separated by spaces ("Enter", "Escape", "y Enter")
	Reason string `json:"reason,omitempty"` // deny
	Text   string `json:"text,omitempty"`   // send
}

// result is an action's answer: what was done, or why not.
type result struct {
	OK      bool   `json:"ok"`
	Text    string `json:"text,omitempty"`
	Warning string `json:"warning,omitempty"`
	Error   string `json:"error,omitempty"`
}

func reply(w http.ResponseWriter, code int, r result) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(r)
}

func refuse(w http.ResponseWriter, code int, format string, args ...any) {
	reply(w, code, result{Error: fmt.Sprintf(format, args...)})
}

// sameOrigin: a browser names the page a request came from (Origin, and
// Sec-Fetch-Site); one from another site is refused, whatever it carries.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Errorf("a request from another site (Sec-Fetch-Site: %s)", site)
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return nil // not a browser's cross-site request: those name their origin
	}
	u, err := url.Parse(o)
	if err != nil || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Errorf("a request from another origin (%s)", textsafe.Visible(o))
	}
	return nil
}

// action is the handler of one action: a session, its anti-CSRF token, the
// same origin, a JSON body of bounded size naming a team shown and its
// member; then the command's own verb, done as by a person at the address
// the request came from.
func (s *Server) action(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess := s.sessions.of(r)
		switch {
		case sess == nil:
			refuse(w, http.StatusUnauthorized, "not logged in: open the login URL teamctl serve printed")
			return
		case s.o.ReadOnly:
			refuse(w, http.StatusForbidden, "teamctl serve --read-only: this page shows the teams and does nothing to them")
			return
		}
		if err := sameOrigin(r); err != nil {
			refuse(w, http.StatusForbidden, "refused: %v", err)
			return
		}
		if !equal(r.Header.Get(csrfHeader), sess.csrf) {
			refuse(w, http.StatusForbidden, "refused: no or a wrong anti-CSRF token (reload the page)")
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			refuse(w, http.StatusUnsupportedMediaType, "refused: an action's body is JSON (Content-Type: application/json)")
			return
		}
		var q request
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				refuse(w, http.StatusRequestEntityTooLarge, "refused: the body is over %d bytes", maxBody)
				return
			}
			refuse(w, http.StatusBadRequest, "the body is not an action's JSON: %v", err)
			return
		}
		if _, err := dec.Token(); err != io.EOF {
			refuse(w, http.StatusBadRequest, "the body holds more than one JSON value")
			return
		}
		if err := s.check(q); err != nil {
			refuse(w, http.StatusBadRequest, "%v", err)
			return
		}
		by := model.By{Via: "web", From: r.RemoteAddr}
		ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
		defer cancel()
		res, err := s.do(ctx, name, s.o.Backend.As(by), q)
		var nr *model.NotRecordedError
		switch {
		case errors.As(err, &nr):
			res.OK, res.Warning = true, err.Error()
		case err != nil:
			s.o.Log.Info("action failed", "action", name, "team", q.Team, "member", q.Member, "from", by.From, "err", err)
			refuse(w, http.StatusConflict, "%s", err)
			return
		}
		res.OK = true
		s.o.Log.Info("action", "action", name, "team", q.Team, "member", q.Member, "from", by.From)
		reply(w, http.StatusOK, res)
	}
}

// check validates what a request names: a team shown, a member of it, and
// text an action may carry.
func (s *Server) check(q request) error {
	if !validTeam(q.Team) {
		return fmt.Errorf("team %s: not a team's name", quote(q.Team))
	}
	if s.o.Team != "" && q.Team != s.o.Team {
		return fmt.Errorf("team %s: this serve shows team %s alone (--team)", quote(q.Team), s.o.Team)
	}
	if _, ok := s.hub.member(q.Team, q.Member); !ok {
		return fmt.Errorf("team %s has no member %s that is up", quote(q.Team), quote(q.Member))
	}
	for field, v := range map[string]string{"reply": q.Reply, "option": q.Option, "keys": q.Keys, "reason": q.Reason} {
		if err := textsafe.CheckText(v); err != nil || strings.ContainsAny(v, "\r\n\t") {
			return fmt.Errorf("%s: a control character is not a key or a reason: type it as a key name (Enter, Escape, C-c)", field)
		}
	}
	return nil
}

// do runs the action's verb.
func (s *Server) do(ctx context.Context, name string, act Actor, q request) (result, error) {
	switch name {
	case "answer":
		a := model.Answer{Reply: q.Reply}
		if q.Option != "" {
			if err := s.sameDialog(ctx, q); err != nil {
				return result{}, err
			}
			a = model.Answer{Option: q.Option, Expect: q.Option}
		} else if q.Reply == "" {
			a.Keys = strings.Fields(q.Keys)
			if len(a.Keys) == 0 || len(a.Keys) > maxKeys {
				return result{}, fmt.Errorf("answer with y, n, an option's number, or 1 to %d keys", maxKeys)
			}
		}
		got, err := act.Answer(ctx, q.Team, q.Member, a)
		if got.Option != "" {
			return result{Text: fmt.Sprintf("chose %q for %s (sent %s)", got.Option, q.Member, strings.Join(got.Keys, " "))}, err
		}
		return result{Text: fmt.Sprintf("sent %s to %s", strings.Join(got.Keys, " "), q.Member)}, err
	case "approve":
		id, err := act.Approve(ctx, q.Team, q.Member)
		return result{Text: fmt.Sprintf("approved %s's request %s", q.Member, id)}, err
	case "deny":
		id, err := act.Deny(ctx, q.Team, q.Member, q.Reason)
		return result{Text: fmt.Sprintf("denied %s's request %s", q.Member, id)}, err
	case "send":
		how, err := act.Send(ctx, q.Team, q.Member, q.Text)
		return result{Text: fmt.Sprintf("sent to %s: %s", q.Member, how)}, err
	case "merge":
		m, err := act.Merge(ctx, q.Team, q.Member)
		if err != nil {
			return result{}, err
		}
		text, err := mergedText(q.Member, m)
		return result{Text: text}, err
	case "finish":
		f, err := act.Finish(ctx, q.Team, q.Member)
		if err != nil {
			return result{}, err
		}
		text, err := finishedText(q.Member, f)
		return result{Text: text}, err
	case "restart":
		pid, err := act.Restart(ctx, q.Team, q.Member)
		return result{Text: fmt.Sprintf("restarted %s (pid %s)", q.Member, strconv.Itoa(pid))}, err
	}
	return result{}, fmt.Errorf("no action %q", name)
}

// sameDialog: the member's screen still shows the dialog the page showed
// (what it asks about, as the page sent it back), so that an option chosen
// there never answers another dialog that came in its place (a "1. Yes" to
// a command no one saw). teamctl answer then checks the option is there.
func (s *Server) sameDialog(ctx context.Context, q request) error {
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	m, _ := s.hub.member(q.Team, q.Member)
	pattern := ""
	if m.Stall != nil {
		pattern = m.Stall.Pattern
	}
	screen, err := s.o.Backend.Screen(ctx, q.Team, q.Member)
	if err != nil {
		return fmt.Errorf("%s's screen: %w", q.Member, err)
	}
	v := readDialogView(screen, pattern)
	if v == nil || strings.Join(v.Asks, "\n") != q.Asks {
		return fmt.Errorf("%s's dialog changed since the page showed it: nothing was sent; look again", q.Member)
	}
	return nil
}

// screen is the bottom of a member's pane, as text.
func (s *Server) screen(w http.ResponseWriter, r *http.Request) {
	q, ok := s.lookAt(w, r)
	if !ok {
		return
	}
	v, err := s.screenLines(r.Context(), q)
	if err != nil {
		refuse(w, http.StatusConflict, "%v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// screenGap is the least time between two captures of a pane that prints.
const screenGap = 250 * time.Millisecond

// screenStream pushes the bottom of a member's pane as Server-Sent Events:
// at once, then whenever its pane prints (at most every screenGap).
func (s *Server) screenStream(w http.ResponseWriter, r *http.Request) {
	q, ok := s.lookAt(w, r)
	if !ok {
		return
	}
	ctx, es, done := s.openStream(w, r)
	defer done()
	woke := make(chan struct{}, 1)
	go s.o.Backend.FollowScreen(ctx, q.Team, q.Member, func() { signal(woke) })
	var last string
	es.run(ctx, woke, screenGap, func() bool {
		v, err := s.screenLines(ctx, q)
		if err != nil {
			return ctx.Err() == nil // said once the pane is back, or the page leaves
		}
		b, _ := json.Marshal(v)
		if string(b) == last {
			return true
		}
		last = string(b)
		return es.send("screen", b)
	})
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// screenView is the bottom of a member's screen as the page gets it: its
// lines as text, and as runs of text by style (its colours).
type screenView struct {
	Lines []string `json:"lines"`
	Spans [][]span `json:"spans"`
}

// screenLines are the last screenLines lines of q's member's screen: SGR
// sequences read as styles, every other escape sequence gone, every control
// character made visible.
func (s *Server) screenLines(ctx context.Context, q request) (screenView, error) {
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	text, err := s.o.Backend.ScreenInColour(ctx, q.Team, q.Member)
	if err != nil {
		return screenView{}, fmt.Errorf("%s's screen: %w", q.Member, err)
	}
	raw := strings.Split(strings.TrimRight(text, "\n "), "\n")
	v := screenView{Lines: []string{}, Spans: [][]span{}}
	for _, l := range raw {
		sp := spans(l)
		var b strings.Builder
		for _, x := range sp {
			b.WriteString(x.Text)
		}
		v.Lines, v.Spans = append(v.Lines, b.String()), append(v.Spans, sp)
	}
	for len(v.Lines) > 0 && strings.TrimSpace(v.Lines[len(v.Lines)-1]) == "" {
		v.Lines, v.Spans = v.Lines[:len(v.Lines)-1], v.Spans[:len(v.Spans)-1]
	}
	if n := len(v.Lines); n > screenLines {
		v.Lines, v.Spans = v.Lines[n-screenLines:], v.Spans[n-screenLines:]
	}
	return v, nil
}

// lookAt is what a look at a member (GET ?team=&member=) names, checked as
// an action's is; a refusal is answered, and false returned.
func (s *Server) lookAt(w http.ResponseWriter, r *http.Request) (request, bool) {
	q := request{Team: r.URL.Query().Get("team"), Member: r.URL.Query().Get("member")}
	if err := s.check(q); err != nil {
		refuse(w, http.StatusBadRequest, "%v", err)
		return q, false
	}
	return q, true
}

// quote is s quoted, every control character visible.
func quote(s string) string { return textsafe.Visible(strconv.Quote(textsafe.Short(s, 80))) }

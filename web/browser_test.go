package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/teamctl/teamctl/internal/browser"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
)

// browse is a server on the fake team and a phone-sized headless Chromium
// (a minute for the test), both ended with the test.
func browse(t *testing.T) (*world, *httptest.Server, context.Context) {
	t.Helper()
	return browseWorld(t, func() *world { return newWorld(t, Options{}) })
}

// browseWorld is browse on the world mk makes.
func browseWorld(t *testing.T, mk func() *world) (*world, *httptest.Server, context.Context) {
	t.Helper()
	return browseAt(t, 360, 640, mk)
}

// browseAt is browseWorld in a window of width×height.
func browseAt(t *testing.T, width, height int, mk func() *world) (*world, *httptest.Server, context.Context) {
	t.Helper()
	exe := browser.Need(t)
	w := mk()
	srv := httptest.NewServer(w.s)
	t.Cleanup(srv.Close)
	ctx, cancel, err := browser.Start(context.Background(), exe, width, height)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	ctx, stop := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(stop)
	return w, srv, ctx
}

// TestBrowserHostileName: in a real browser, a member named
// `<img src=x onerror=alert(1)>` (Claude Code's config names lead-spawned
// teammates) shows as that text: no element is made of it, no script runs.
func TestBrowserHostileName(t *testing.T) {
	w, srv, ctx := browse(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+w.token),
		chromedp.WaitVisible(`#rows > li[data-member="lead"]`)); err != nil {
		t.Fatal(err)
	}
	name, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#rows > li .name")].map(e => e.textContent).find(t => t.includes("img")) || ""`))
	if err != nil || name != xssName {
		t.Errorf("the member's name on the page: %q %v, want %q", name, err, xssName)
	}
	imgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("img").length`))
	if err != nil || imgs != 0 {
		t.Errorf("%d img elements on the page (%v): an agent's text became HTML", imgs, err)
	}
	// Its detail too: the screen's tags and escape sequences are text.
	if err := chromedp.Do(ctx, chromedp.Click(`#rows > li[data-member="asker"] .name`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.includes("<b>bold</b>")`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("asker's screen as text: %v", err)
	}
	// Its colours are spans of our own classes; the tags, text.
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#screen *")].map(e => e.tagName + "." + e.className + ":" + e.textContent).join("|")`)); got != "SPAN.f1:red" {
		t.Errorf("the screen's elements: %q, want the one red span", got)
	}
	url, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if url != srv.URL+"/" {
		t.Errorf("the page's URL after login: %s, want %s/ (no token)", url, srv.URL)
	}
}

// TestBrowserLoginFromALink: the login URL followed from a link on another
// site (a chat, a mail) ends on the live page, logged in, its URL clean.
func TestBrowserLoginFromALink(t *testing.T) {
	exe := browser.Need(t)
	w := newWorld(t, Options{})
	srv := httptest.NewServer(w.s)
	defer srv.Close()
	login := srv.URL + "/login?token=" + w.token
	other := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, `<!doctype html><a id="go" href="%s">log in</a>`, login)
	}))
	defer other.Close()
	// localhost and 127.0.0.1 are two sites.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	ctx, cancel, err := browser.Start(context.Background(), exe, 360, 640)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, 60*time.Second)
	defer stop()
	if err := chromedp.Do(ctx, chromedp.Navigate(otherURL), chromedp.Click(`#go`)); err != nil {
		t.Fatal(err)
	}
	// The page loads itself again once: a look may meet the page going.
	var err2 error
	for range 20 {
		if _, err2 = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.getElementById("conn") && document.getElementById("conn").textContent === "live"`,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(3*time.Second))); err2 == nil {
			break
		}
	}
	if err := err2; err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("the live page after a link from another site: %v\n%s", err, text)
	}
	if u, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`)); u != srv.URL+"/" {
		t.Errorf("the page's URL: %s", u)
	}
}

// TestBrowserNotifies: with "Notify me" pressed, a member who starts
// waiting while the page is open gets a browser notification naming it and
// what it waits on, and a sound; the ones waiting when the page opened do
// not (the page would ring at every load). The page's Notification and
// AudioContext are stand-ins recording what they are asked (a headless
// browser shows neither).
func TestBrowserNotifies(t *testing.T) {
	w, srv, ctx := browse(t)
	const standIns = `window.__notes = []; window.__beeps = 0;
class N { constructor(title, o) { window.__notes.push(title + " | " + (o && o.body)); } static requestPermission() { return Promise.resolve("granted"); } }
N.permission = "granted";
window.Notification = N;
window.AudioContext = class { constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() { return { frequency: {}, connect() {}, start() { window.__beeps++; }, stop() {} }; }
  createGain() { return { gain: {}, connect() {} }; } };`
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: standIns})
		return err
	}), chromedp.Navigate(srv.URL+"/login?token="+w.token),
		chromedp.WaitVisible(`#rows > li[data-member="lead"]`), chromedp.Click(`#notify`)); err != nil {
		t.Fatal(err)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__notes.length`)); n != 0 {
		t.Errorf("%d notifications for the members waiting when the page opened", n)
	}
	// The lead starts waiting: a stall, and a change in the team's folder.
	w.f.mu.Lock()
	s := *w.f.status["demo"]
	s.Members = append([]model.MemberStatus(nil), s.Members...)
	s.Members[0].State, s.Members[0].Stall = state.StateStalled, &model.Stall{Line: "Delete all? (y/n)", Since: time.Now()}
	w.f.status["demo"] = &s
	w.f.mu.Unlock()
	dir, err := state.EnsureDir("demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	note, err := chromedp.Run(ctx, chromedp.Poll[string](`window.__notes.length ? window.__notes[0] : null`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil || !strings.Contains(note, "teamctl: waiting for you") || !strings.Contains(note, "lead") || !strings.Contains(note, "Delete all? (y/n)") {
		t.Errorf("the notification: %q %v, want the lead and its question", note, err)
	}
	if beeps, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__beeps`)); beeps != 1 {
		t.Errorf("%d sounds, want 1", beeps)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__notes.length`)); n != 1 {
		t.Errorf("%d notifications, want 1", n)
	}
}

// TestBrowserDialog: a member stalled at Claude Code's permission dialog (a
// screen captured from the real Claude Code 2.1.328): before anyone taps,
// its row and its detail show what it would run and the question, and the
// dialog's options as buttons by their own labels, No styled as the safe
// one, and no raw Enter (which would choose the selected "1. Yes"); tapping
// No chooses the dialog's "4. No", by its label, and nothing else is sent.
func TestBrowserDialog(t *testing.T) {
	screen := fixture(t, "claude-permission.txt")
	w, srv, ctx := browseWorld(t, func() *world {
		st := fakeTeam()
		st.Members[0] = model.MemberStatus{Name: "lead", Role: state.RoleLead, State: state.StateStalled, Pane: "%0",
			Stall: &model.Stall{Pattern: "claude-permission", Line: "Do you want to proceed?", Since: time.Now().Add(-time.Minute)}}
		return newWorldOf(t, Options{}, st, map[string]string{"lead": screen})
	})
	row := `#rows > li[data-member="lead"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+w.token), chromedp.WaitVisible(row)); err != nil {
		t.Fatal(err)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+row+`').innerText`))
	for _, want := range []string{"rm -rf build/", "Bash command", "Do you want to proceed?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the lead's row lacks %q:\n%s", want, text)
		}
	}
	buttons, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('`+row+` button')].map(b => b.textContent + (b.classList.contains("safe") ? " [safe]" : "")).join("|")`))
	if want := "1. Yes|2. Yes, and always allow access to /tmp/tmp.60sguehe0p/proj from this project|3. Yes, and switch to auto mode · auto mode handles these prompts for you|4. No [safe]|cancel (Esc)"; buttons != want {
		t.Errorf("the lead's buttons:\n%s\nwant\n%s", buttons, want)
	}
	// Its detail: the same, and the raw keys in the keys field alone.
	if err := chromedp.Do(ctx, chromedp.Click(row+` .name`), chromedp.WaitVisible(`#dopts button`)); err != nil {
		t.Fatal(err)
	}
	detail, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("dwait").textContent + "\n" + [...document.querySelectorAll("#answer button")].filter(b => b.offsetParent !== null).map(b => b.textContent).join("|")`))
	if !strings.Contains(detail, "rm -rf build/") || !strings.Contains(detail, "4. No") || strings.Contains(detail, "|Enter") || strings.Contains(detail, "|y|") {
		t.Errorf("the lead's detail:\n%s", detail)
	}
	if got := w.f.actions(); len(got) != 0 {
		t.Fatalf("sent before anyone tapped: %v", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(row+` button.safe`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("toast").classList.contains("show")`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatal(err)
	}
	if got := w.f.actions(); len(got) != 1 || !strings.HasPrefix(got[0], "answer demo/lead 4. No[] by web") {
		t.Errorf("done by tapping No: %v, want the dialog's 4. No chosen by its label", got)
	}
}

// TestBrowserRowsStillUnderAFinger: six members wait for approval and
// change places every 100 ms (their requests' times turn, each turn a write
// of the team's live.json, as the supervisor's). Taps on an Approve button
// while the rows re-sort: the list does not move while the finger is down
// (the press is held until the page has had two new views), and every
// approval reaches the member whose row the press began on, never another.
func TestBrowserRowsStillUnderAFinger(t *testing.T) {
	names := []string{"ann", "bob", "cat", "dan", "eve", "fay"}
	base := time.Now().Add(-time.Hour)
	churned := func(turn int) *model.Status {
		s := &model.Status{Team: "demo"}
		for i, n := range names {
			s.Members = append(s.Members, model.MemberStatus{Name: n, Role: state.RoleTeammate, State: state.StateWaitingApproval, Pane: fmt.Sprintf("%%%d", i),
				Request: &state.Request{ID: "r-" + n, Tool: "Bash", Input: `{"command":"make ` + n + `"}`, Since: base.Add(time.Duration((i+turn)%len(names)) * time.Second)}})
		}
		return s
	}
	w, srv, ctx := browseWorld(t, func() *world { return newWorldOf(t, Options{}, churned(0), nil) })
	dir, err := state.EnsureDir("demo")
	if err != nil {
		t.Fatal(err)
	}
	churn, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { stop(); <-done }()
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for turn := 1; ; turn++ {
			select {
			case <-churn.Done():
				return
			case <-tick.C:
			}
			w.f.mu.Lock()
			w.f.status["demo"] = churned(turn)
			w.f.mu.Unlock()
			os.WriteFile(filepath.Join(dir, "live.json"), []byte(fmt.Sprintf(`{"turn":%d}`, turn)), 0o600)
		}
	}()
	// What was under the pointer when each press began, and the list's order
	// then and when it was let go; every order the list was drawn in.
	const watch = `window.__pressed = []; window.__orders = 0;
const order = () => [...document.querySelectorAll("#rows > li")].map(li => li.dataset.member).join(",");
document.addEventListener("pointerdown", (e) => { const li = e.target.closest("li[data-member]"), b = e.target.closest("button[data-act]");
  window.__pressed.push({ member: li && b ? li.dataset.member : "", act: b ? b.dataset.act : "", down: order() }); }, true);
document.addEventListener("pointerup", () => { const p = window.__pressed[window.__pressed.length - 1]; if (p) p.up = order(); }, true);
new MutationObserver(() => window.__orders++).observe(document.getElementById("rows"), { childList: true });`
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+w.token), chromedp.WaitVisible(`#rows > li[data-member="ann"]`),
		chromedp.Evaluate[chromedp.Void](watch)); err != nil {
		t.Fatal(err)
	}
	left := func(p *input.DispatchMouseEventParams) { p.Button, p.ClickCount = input.MouseButtonLeft, 1 }
	const taps = 6
	for i := range taps {
		// The list re-sorts between taps.
		orders, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__orders`))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`window.__orders > %d`, orders), chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("tap %d: the list does not re-sort: %v", i, err)
		}
		type point struct{ X, Y float64 }
		at, err := chromedp.Run(ctx, chromedp.Evaluate[point](fmt.Sprintf(`(() => { const b = document.querySelectorAll('#rows > li button[data-act="approve"]')[%d];
  const r = b.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`, i%3)))
		if err != nil {
			t.Fatal(err)
		}
		seq, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.body.dataset.seq)`))
		if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MousePressed, at.X, at.Y, left)); err != nil {
			t.Fatal(err)
		}
		// The finger stays down while the page gets two new views.
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.seq) >= %d`, seq+2), chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("tap %d: no new view while pressed: %v", i, err)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseReleased, at.X, at.Y, left)); err != nil {
			t.Fatal(err)
		}
		if !waitActions(w.f, i+1, 20*time.Second) {
			p, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.__pressed)`))
			t.Fatalf("tap %d: no approval reached the fake (done %v; pressed %s)", i, w.f.actions(), p)
		}
	}
	type press struct{ Member, Act, Down, Up string }
	pressed, err := chromedp.Run(ctx, chromedp.Evaluate[[]press](`window.__pressed`))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, p := range pressed {
		if p.Down != p.Up {
			t.Errorf("tap %d: the rows moved under the finger: %s, then %s", i, p.Down, p.Up)
		}
		if p.Act != "approve" || p.Member == "" {
			t.Errorf("tap %d: the press began on %+v, not an Approve button", i, p)
			continue
		}
		want = append(want, "approve demo/"+p.Member+" by web")
	}
	got := w.f.actions()
	for i := range got {
		got[i] = strings.Fields(got[i])[0] + " " + strings.Fields(got[i])[1] + " by " + strings.Fields(got[i])[3]
	}
	if len(pressed) != taps || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("approved\n%s\nwant (the members pressed)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// waitActions waits until f has done n actions, or d passes.
func waitActions(f *fake, n int, d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if len(f.actions()) >= n {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// TestBrowserSizes: at a phone's 360×640 and a desktop's 1440×900 the
// header names the team and what it cost (the server's text: the members'
// together), every team's and their total when two are up; on the phone the
// list alone until a member is tapped, on the desktop the list and the first
// member's detail side by side from the start, with its changes (diff
// --stat) and a Merge that takes a second tap; nothing leaves the screen's
// width. TEAMCTL_SERVE_SCREENSHOTS=DIR saves both as DIR/serve-phone.png and
// DIR/serve-desktop.png (docs/'s).
func TestBrowserSizes(t *testing.T) {
	spent := func(st *model.Status) *model.Status {
		st.Members[0].Usage = &state.MemberUsage{Turns: 3, Cost: 1.5, Models: []string{"claude-opus-4"}}
		st.Members[1].Usage = &state.MemberUsage{Turns: 1, Cost: 0.25, Models: []string{"claude-opus-4"}}
		st.Members[3].Name = "reviewer"
		return st
	}
	screens := map[string]string{
		"asker":   "\x1b[32m✓\x1b[0m tests pass \x1b[2m(12 of 12)\x1b[0m\n\x1b[1mCopying\x1b[0m the fixtures into \x1b[36mtestdata/\x1b[0m\n\n\x1b[33mOverwrite? (y/n)\x1b[0m ",
		"granted": "Running the checks before the commit.\n\nBash: touch x\nWaiting for the lead's approval…",
	}
	for _, c := range []struct {
		name          string
		width, height int
		teams         int
		header        []string
	}{
		{"phone", 360, 640, 1, []string{"demo $1.75"}},
		{"desktop", 1440, 900, 2, []string{"demo $1.75", "ops $0.40", "total $2.15"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, srv, ctx := browseAt(t, c.width, c.height, func() *world { return newWorldOf(t, Options{}, spent(fakeTeam()), screens) })
			if c.teams == 2 {
				ops := &model.Status{Team: "ops", Members: []model.MemberStatus{{Name: "deployer", Role: state.RoleLead, State: state.StateIdle, Pane: "%0", Since: time.Now(),
					Usage: &state.MemberUsage{Turns: 2, Cost: 0.4, Models: []string{"claude-opus-4"}}}}}
				w.f.mu.Lock()
				w.f.status["ops"] = ops
				w.f.mu.Unlock()
				if _, err := state.EnsureDir("ops"); err != nil {
					t.Fatal(err)
				}
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+w.token), chromedp.WaitVisible(`#rows > li[data-member="lead"]`)); err != nil {
				t.Fatal(err)
			}
			header := `[...document.querySelectorAll("#teams .tname")].map(e => e.textContent).join("|")`
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](header+` === "`+strings.Join(c.header, "|")+`"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
				got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](header))
				t.Fatalf("the header says %q, want %q", got, strings.Join(c.header, "|"))
			}
			type box struct{ Left, Right, Top, Width float64 }
			layout := func(id string) box {
				b, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => { const r = document.getElementById("`+id+`").getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, width: r.width }; })()`))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			if c.width >= 1024 {
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById("detail").hidden && document.getElementById("dname").textContent !== ""`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
					t.Fatalf("no detail beside the list from the start: %v", err)
				}
				list, detail := layout("list"), layout("detail")
				if detail.Left < list.Right || detail.Top > list.Top+20 || list.Width+detail.Width < float64(c.width)*0.9 {
					t.Errorf("the list %+v and the detail %+v are not side by side across the %d px", list, detail, c.width)
				}
				first, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#rows > li").dataset.member + " · " + document.querySelector("#rows > li").dataset.team`))
				if name, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("dname").textContent`)); name != first {
					t.Errorf("the detail is %q's, want the first row's, %q", name, first)
				}
				// asker's changes, as diff --stat says them; Merge behind a second tap.
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("dchanges").textContent.startsWith("2 files +12 -3") && !document.getElementById("merge").hidden`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
					got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("changes").innerText`))
					t.Fatalf("asker's changes in its detail: %v\n%s", err, got)
				}
				if files, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#dfiles li")].map(l => l.textContent).join("|") + "|" + document.querySelectorAll("#dfiles b").length`)); files != "modified calc.py +10 -2|added <b>x</b>.md +2 -1|0" {
					t.Errorf("asker's files: %q", files)
				}
				if err := chromedp.Do(ctx, chromedp.Click(`#merge`)); err != nil {
					t.Fatal(err)
				}
				if got := w.f.actions(); len(got) != 0 {
					t.Fatalf("merged at the first tap: %v", got)
				}
				if err := chromedp.Do(ctx, chromedp.Click(`#merge`)); err != nil {
					t.Fatal(err)
				}
				if !waitActions(w.f, 1, 20*time.Second) || !strings.HasPrefix(w.f.actions()[0], "merge demo/asker by web ") {
					t.Errorf("the second tap on Merge: %v, want asker merged by the web", w.f.actions())
				}
			} else if hidden, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("detail").hidden`)); !hidden {
				t.Errorf("on a phone the detail shows before a member is tapped")
			}
			if wide, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); wide {
				t.Errorf("at %d×%d the page scrolls sideways", c.width, c.height)
			}
			if dir := os.Getenv("TEAMCTL_SERVE_SCREENSHOTS"); dir != "" {
				if c.width < 1024 { // the phone's with a member's detail open
					if err := chromedp.Do(ctx, chromedp.Click(`#rows > li[data-member="granted"] .name`), chromedp.WaitVisible(`#detail`),
						chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.length > 0`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
					dbg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("screen").outerHTML + " sel=" + document.getElementById("dname").textContent`))
					t.Fatalf("no screen to show: %v %s", err, dbg)
				}
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: a PNG
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "serve-"+c.name+".png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestBrowserDiffAndFinish: at a phone's 360×640 and a desktop's 1440×900,
// a tap on one of a member's changed files shows that file's diff (its
// added and deleted lines coloured by kind, an agent's tag as text, the
// page no wider than the screen); Finish first shows what it will do and
// does nothing; Cancel leaves it undone; Finish in the plan finishes it, as
// the web.
func TestBrowserDiffAndFinish(t *testing.T) {
	for _, c := range []struct {
		name          string
		width, height int
	}{{"phone", 360, 640}, {"desktop", 1440, 900}} {
		t.Run(c.name, func(t *testing.T) {
			w, srv, ctx := browseAt(t, c.width, c.height, func() *world { return newWorld(t, Options{}) })
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+w.token), chromedp.WaitVisible(`#rows > li[data-member="asker"]`),
				chromedp.Click(`#rows > li[data-member="asker"] .name`)); err != nil {
				t.Fatal(err)
			}
			poll := func(what, cond string) {
				t.Helper()
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
					got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("changes").innerText`))
					t.Fatalf("%s: %v\n%s", what, err, got)
				}
			}
			poll("asker's files", `document.getElementById("dname").textContent.startsWith("asker") && document.querySelector('#dfiles li[data-path="calc.py"]') !== null`)
			if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`#dfiles li[data-path="calc.py"]`), chromedp.Click(`#dfiles li[data-path="calc.py"]`)); err != nil {
				t.Fatal(err)
			}
			poll("calc.py's diff", `document.querySelectorAll("#ddiff span").length === 9`)
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#ddiff span.add, #ddiff span.del")].map(s => s.className + ":" + s.textContent.trim()).join("|") + "|" + document.querySelectorAll("#ddiff b").length + "|" + document.getElementById("dfile").textContent`))
			if got != "del:-    old = 1|add:+    new = 2 # <b>x</b>|0|modified calc.py +10 -2" {
				t.Errorf("the diff on the page: %q", got)
			}
			if wide, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); wide {
				t.Errorf("at %d×%d the page with a diff scrolls sideways", c.width, c.height)
			}

			if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`#finish`), chromedp.Click(`#finish`)); err != nil {
				t.Fatal(err)
			}
			poll("finish's plan", `!document.getElementById("finishplan").hidden && document.querySelectorAll("#fsteps li").length === 4 && !document.getElementById("finishyes").disabled`)
			if steps, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#fsteps li").textContent`)); steps != "stop asker first (it runs), as teamctl stop does" {
				t.Errorf("the plan's first step: %q", steps)
			}
			if err := chromedp.Do(ctx, chromedp.Click(`#finishno`)); err != nil {
				t.Fatal(err)
			}
			poll("the plan gone after Cancel", `document.getElementById("finishplan").hidden`)
			if got := w.f.actions(); len(got) != 0 {
				t.Fatalf("done before a confirmation: %v", got)
			}
			if err := chromedp.Do(ctx, chromedp.Click(`#finish`)); err != nil {
				t.Fatal(err)
			}
			poll("finish's plan again", `!document.getElementById("finishplan").hidden && !document.getElementById("finishyes").disabled`)
			if err := chromedp.Do(ctx, chromedp.Click(`#finishyes`)); err != nil {
				t.Fatal(err)
			}
			if !waitActions(w.f, 1, 20*time.Second) || len(w.f.actions()) != 1 || !strings.HasPrefix(w.f.actions()[0], "finish demo/asker by web ") {
				t.Errorf("after Finish in the plan: %v, want asker finished by the web", w.f.actions())
			}
			poll("what finish did, said", `document.getElementById("toast").textContent.startsWith("finished asker into main")`)
		})
	}
}

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/teamctl/teamctl/internal/browser"
	"github.com/teamctl/teamctl/internal/testenv"
)

// startServe runs `teamctl serve` on a port of its own in e's world and
// returns the login URL it printed; it ends with the test.
func startServe(t *testing.T, e *testenv.Env, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.Bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env, cmd.Dir = e.Environ(), e.Work
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut safeBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if strings.Contains(errOut.String(), "token=") {
			t.Errorf("the login token in serve's log:\n%s", errOut.String())
		}
		t.Logf("serve's log:\n%s", errOut.String())
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "http://") && strings.Contains(l, "/login?token=") {
				urls <- l
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(testenv.MinWait):
		t.Fatalf("serve printed no login URL; its log:\n%s", errOut.String())
	}
	return ""
}

// page is a headless Chromium tab of w×h on the test's serve.
func page(t *testing.T, w, h int) context.Context {
	t.Helper()
	exe := browser.Need(t)
	ctx, cancel, err := browser.Start(context.Background(), exe, w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return ctx
}

// waitJS waits (a minute at most) until the page's expression is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(testenv.MinWait))); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\nthe page:\n%s", what, err, body)
	}
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// overflow lists the page's elements whose box leaves the viewport's width
// (those inside a scroller of their own, the screen, aside), and says
// whether the page itself scrolls sideways.
const overflow = `(() => {
  const W = document.documentElement.clientWidth, bad = [];
  for (const e of document.querySelectorAll("body *")) {
    if (e.closest("pre") && e.tagName !== "PRE") continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -0.5 || r.right > W + 0.5) bad.push(e.tagName + "#" + e.id + "." + e.className + " " + Math.round(r.left) + ".." + Math.round(r.right));
  }
  if (document.documentElement.scrollWidth > W) bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + W);
  return bad.join("\n");
})()`

// TestServeBrowser drives `teamctl serve` from headless Chromium at a
// phone's 360×640, on a team of stand-ins: log in with the printed URL; every
// member shows; a member asking `Overwrite? (y/n)` is at the top within a
// second of its stall; tapping y makes it receive y; a permission request
// shows its tool and command and Approve writes the permission response to
// the teammate's mailbox; a message sent arrives; nothing overflows the
// screen's width. Each action is an event saying it came from the web, and
// from where. TEAMCTL_SERVE_SCREENSHOT=FILE saves the page as a PNG (the
// README's).
func TestServeBrowser(t *testing.T) {
	ctx := page(t, 360, 640)
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: web
watchdog: {quiet: 300ms}
members:
  - name: worker
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "work:3s,ask"}
  - name: granted
    env: {TEAMCTL_STANDIN_SCRIPT: "work:8s,bash:touch granted.txt"}
  - name: reader
`))
	st, _ := readState(t, e, "web")
	u := startServe(t, e)
	ctx, stop := context.WithTimeout(ctx, 5*time.Minute)
	defer stop()

	// Log in with the printed URL; the page's own URL has no token.
	do(t, ctx, chromedp.Navigate(u))
	waitJS(t, ctx, "the page, live", `document.getElementById("conn").textContent === "live"`)
	if href := eval[string](t, ctx, `location.href`); strings.Contains(href, "token") {
		t.Errorf("the page's URL after login: %s", href)
	}
	// The asker's row at the top: when it first is, by the page's clock.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => {
  const seen = () => { const f = document.querySelector("#rows > li"); if (f && f.dataset.member === "asker" && f.classList.contains("waits") && !window.askerAt) window.askerAt = Date.now(); };
  new MutationObserver(seen).observe(document.getElementById("rows"), { childList: true, subtree: true }); seen();
})()`))
	waitJS(t, ctx, "every member", `["lead", "worker", "asker", "granted", "reader"].every(n => document.querySelector('#rows > li[data-member="' + n + '"]'))`)

	waitJS(t, ctx, "asker first, stalled at its question", `!!window.askerAt`)
	first := eval[string](t, ctx, `document.querySelector("#rows > li").innerText`)
	if !strings.Contains(first, "stalled") || !strings.Contains(first, `"Overwrite? (y/n)"`) {
		t.Errorf("the first row: %q", first)
	}
	var stalledAt time.Time
	for _, ev := range events(t, e, "web") {
		if ev.Member == "asker" && ev.Kind == "stall" {
			stalledAt = ev.Time
		}
	}
	askerAt := time.UnixMilli(eval[int64](t, ctx, `window.askerAt`))
	t.Logf("asker's stall recorded at %s, at the top of the page %s later", stalledAt.Format(time.StampMilli), askerAt.Sub(stalledAt))
	if stalledAt.IsZero() || askerAt.Sub(stalledAt) > time.Second {
		t.Errorf("asker at the top %v after its stall was recorded (%s), want within a second", askerAt.Sub(stalledAt), stalledAt)
	}
	if w := eval[int](t, ctx, `document.documentElement.clientWidth`); w != 360 {
		t.Errorf("the page is %d px wide, not a phone's 360", w)
	}
	if bad := eval[string](t, ctx, overflow); bad != "" {
		t.Errorf("at 360×640, outside the screen's width:\n%s", bad)
	}

	// Tapping y: the stand-in receives y.
	do(t, ctx, chromedp.Click(`#rows > li[data-member="asker"] button[data-act="y"]`))
	waitScreen(t, e, "teamctl-web", memberPane(t, e, "web", "asker"), "answered: y")
	waitJS(t, ctx, "the answer said", `document.getElementById("toast").textContent.includes("asker")`)

	// granted's permission request: tool and command; Approve answers it.
	sel := `#rows > li[data-member="granted"]`
	waitJS(t, ctx, "granted waiting, with its tool and command", `(() => { const r = document.querySelector('`+sel+`'); return r && r.classList.contains("waits") && r.innerText.includes("Bash: touch granted.txt"); })()`)
	do(t, ctx, chromedp.Click(sel+` .name`))
	waitJS(t, ctx, "granted's detail", `!document.getElementById("detail").hidden && document.getElementById("dwait").textContent.includes("Bash: touch granted.txt")`)
	if bad := eval[string](t, ctx, overflow); bad != "" {
		t.Errorf("at 360×640 with a detail open, outside the screen's width:\n%s", bad)
	}
	if p := os.Getenv("TEAMCTL_SERVE_SCREENSHOT"); p != "" {
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: a PNG
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, chromedp.Click(`#perm button[data-act="approve"]`))
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "granted.json")
	testenv.Eventually(t, time.Minute, "a permission_response in granted's mailbox", func() (bool, string) {
		b, _ := os.ReadFile(inbox)
		var msgs []struct{ From, Text string }
		json.Unmarshal(b, &msgs)
		for _, m := range msgs {
			var p struct{ Type, Subtype string }
			if json.Unmarshal([]byte(m.Text), &p) == nil && p.Type == "permission_response" && p.Subtype == "success" && m.From == "team-lead" {
				return true, ""
			}
		}
		return false, string(b)
	})
	testenv.Eventually(t, time.Minute, "the approved command to run", func() (bool, string) {
		_, err := os.Stat(filepath.Join(e.Work, "granted.txt"))
		return err == nil, fmt.Sprint(err)
	})

	// A message sent from the page arrives. The list re-sorts once granted
	// no longer waits: the tap on reader's row comes after (a row does not
	// move under a pressed finger, but may between a look and a press).
	waitJS(t, ctx, "granted's row to stop waiting", `!!document.querySelector('#rows > li[data-member="granted"]:not(.waits)')`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.Click(`#rows > li[data-member="reader"] .name`))
	waitJS(t, ctx, "reader's detail", `document.getElementById("dname").textContent.startsWith("reader")`)
	do(t, ctx, chromedp.SendKeys(`#message`, "hello from the web"), chromedp.Click(`#sendform button[type="submit"]`))
	waitScreen(t, e, "teamctl-web", memberPane(t, e, "web", "reader"), "hello from the web")

	// A member's screen follows its pane as it prints (the worker prints
	// steadily; nothing in the team's folder changes meanwhile).
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.Click(`#rows > li[data-member="worker"] .name`))
	waitJS(t, ctx, "worker's screen", `document.getElementById("dname").textContent.startsWith("worker") && document.getElementById("screen").textContent.trim() !== ""`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.firstScreen = document.getElementById("screen").textContent`))
	waitJS(t, ctx, "worker's screen, as it printed on", `document.getElementById("screen").textContent !== window.firstScreen`)

	// Each action is the command's event, marked as the web's, with its address.
	testenv.Eventually(t, time.Minute, "the web's actions in the team's events", func() (bool, string) {
		r := e.MustRun("events", "--json", "--team", "web")
		n := 0
		for _, ln := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var ev struct{ Member, Kind, Via, From string }
			json.Unmarshal([]byte(ln), &ev)
			if ev.Via == "web" && strings.HasPrefix(ev.From, "127.0.0.1:") &&
				(ev.Member == "asker" && ev.Kind == "answer" || ev.Member == "granted" && ev.Kind == "permission-answer" || ev.Member == "reader" && ev.Kind == "message") {
				n++
			}
		}
		return n == 3, r.Stdout
	})
}

// TestServeReadOnlyBrowser: with --read-only the page shows the team and
// no action at all.
func TestServeReadOnlyBrowser(t *testing.T) {
	ctx := page(t, 360, 640)
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: ro
watchdog: {quiet: 300ms}
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "ask"}
`))
	u := startServe(t, e, "--read-only")
	ctx, stop := context.WithTimeout(ctx, 3*time.Minute)
	defer stop()
	do(t, ctx, chromedp.Navigate(u))
	waitJS(t, ctx, "asker stalled", `(() => { const r = document.querySelector('#rows > li[data-member="asker"]'); return r && r.classList.contains("waits"); })()`)
	do(t, ctx, chromedp.Click(`#rows > li[data-member="asker"] .name`))
	waitJS(t, ctx, "asker's detail", `!document.getElementById("detail").hidden`)
	if n := eval[int](t, ctx, `[...document.querySelectorAll("button[data-act]")].filter(b => b.offsetParent !== null).length`); n != 0 {
		t.Errorf("%d action buttons shown read-only", n)
	}
}

// TestServeDialogBrowser: a lead stalled at (the stand-in's drawing of)
// Claude Code's permission dialog: the page shows the command before anyone
// taps, and the dialog's options by their labels; tapping No (the safe
// one) chooses the dialog's No through teamctl answer, and the command is
// not run.
func TestServeDialogBrowser(t *testing.T) {
	ctx := page(t, 360, 640)
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: dlg
watchdog: {quiet: 300ms}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "permission"}
`))
	u := startServe(t, e)
	ctx, stop := context.WithTimeout(ctx, 3*time.Minute)
	defer stop()
	do(t, ctx, chromedp.Navigate(u))
	row := `#rows > li[data-member="lead"]`
	waitJS(t, ctx, "the lead at its dialog, with the command and its options", `(() => { const r = document.querySelector('`+row+`'); return r && r.innerText.includes("rm -rf build/") && !!r.querySelector("button.safe"); })()`)
	if got := eval[string](t, ctx, `[...document.querySelectorAll('`+row+` button')].map(b => b.textContent).join("|")`); got != "1. Yes|2. Yes, and always allow access to build/ from this project|3. No|cancel (Esc)" {
		t.Errorf("the lead's buttons: %s", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('`+row+` button.safe').textContent`); got != "3. No" {
		t.Errorf("the safe button: %q, want 3. No", got)
	}
	if bad := eval[string](t, ctx, overflow); bad != "" {
		t.Errorf("at 360×640 with a dialog's options, outside the screen's width:\n%s", bad)
	}
	do(t, ctx, chromedp.Click(row+` button.safe`))
	pane := memberPane(t, e, "dlg", "lead")
	waitScreen(t, e, "teamctl-dlg", pane, "Denied")
	if s := screen(e, "teamctl-dlg", pane); strings.Contains(s, "Running…") {
		t.Fatalf("No ran the command:\n%s", s)
	}
	testenv.Eventually(t, time.Minute, "the web's answer choosing 3. No", func() (bool, string) {
		for _, ev := range events(t, e, "dlg") {
			if ev.Member == "lead" && ev.Kind == "answer" && ev.Option == "3. No" {
				return true, ""
			}
		}
		return false, e.MustRun("events", "--team", "dlg").Stdout
	})
}

// TestServeFinishBrowser: on a real team at a desktop's 1440×900, a tap on
// one of alice's changed files shows its diff as git has it; Finish shows
// its plan (alice runs: stopped first) and does nothing until confirmed;
// confirmed, alice is stopped, her commit lands on main, her worktree and
// branch go, and the merge is the web's event.
func TestServeFinishBrowser(t *testing.T) {
	ctx := page(t, 1440, 900)
	e := testenv.New(t)
	repo, _ := appRepo(t, e)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: fin
root: repo
lead: {}
members:
  - name: alice
    command: [sleep, "1000"]
    worktree: true
`))
	wt := filepath.Join(repo, ".teamctl", "worktrees", "fin", "alice")
	editApp(t, wt, "alice")
	gitIn(t, wt, "commit", "-q", "-am", "alice's five")
	u := startServe(t, e)
	ctx, stop := context.WithTimeout(ctx, 5*time.Minute)
	defer stop()
	do(t, ctx, chromedp.Navigate(u))
	waitJS(t, ctx, "alice's row", `!!document.querySelector('#rows > li[data-member="alice"]')`)
	do(t, ctx, chromedp.Click(`#rows > li[data-member="alice"] .name`))
	waitJS(t, ctx, "alice's changed file", `document.getElementById("dname").textContent.startsWith("alice") && !!document.querySelector('#dfiles li[data-path="app.go"]')`)
	do(t, ctx, chromedp.Click(`#dfiles li[data-path="app.go"]`))
	waitJS(t, ctx, "app.go's diff", `[...document.querySelectorAll("#ddiff span.add")].some(s => s.textContent === "+five by alice\n") && [...document.querySelectorAll("#ddiff span.del")].some(s => s.textContent === "-5\n")`)

	do(t, ctx, chromedp.Click(`#finish`))
	waitJS(t, ctx, "finish's plan", `!document.getElementById("finishyes").disabled && document.getElementById("fsteps").innerText.includes("stop alice first") && document.getElementById("fsteps").innerText.includes("merge 1 commit(s) of teamctl/fin/alice into main")`)
	if !exists(wt) || strings.Contains(gitIn(t, repo, "log", "--format=%s", "main"), "alice's five") {
		t.Fatal("the plan did something")
	}
	do(t, ctx, chromedp.Click(`#finishyes`))
	waitJS(t, ctx, "what finish did", `document.getElementById("toast").textContent.startsWith("finished alice into main")`)
	if exists(wt) || strings.Contains(gitIn(t, repo, "branch"), "alice") || !strings.Contains(gitIn(t, repo, "log", "--format=%s", "main"), "alice's five") {
		t.Errorf("after Finish: worktree there %v, branches %q, main %q", exists(wt), gitIn(t, repo, "branch"), gitIn(t, repo, "log", "--format=%s", "main"))
	}
	var merged bool
	for _, ln := range strings.Split(strings.TrimSpace(e.MustRun("events", "--json", "--team", "fin").Stdout), "\n") {
		var ev struct{ Member, Kind, Via string }
		json.Unmarshal([]byte(ln), &ev)
		merged = merged || ev.Member == "alice" && ev.Kind == "merged" && ev.Via == "web"
	}
	if !merged {
		t.Errorf("no merged event of alice by the web")
	}
}

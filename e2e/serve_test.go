package e2e

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/teamctl/teamctl/internal/browser"
	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestServeShowsWhatItApproves: the real Claude Code asks (manual
// permission mode) to run a command that writes a file; `teamctl serve`'s
// page in headless Chromium at a phone's size shows that command on the
// lead's row before anyone taps, and the dialog's options by their labels,
// with no raw Enter (which would choose the selected "1. Yes"). Tapping the
// safe one, its No, leaves the command unrun, and the answer event names No.
func TestServeShowsWhatItApproves(t *testing.T) {
	t.Parallel()
	const ask = "Write marker S; token SERVE-S-7e41."
	exe := browser.Need(t)
	w := newWorld(t, "e2e-serve", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(ask), Reply: fakeapi.Always(fakeapi.Bash("echo s > marker-s.txt", "Write marker s"))},
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("Marker written."))},
	))
	w.e.MustRun("up", w.teamLayout(lead{prompt: ask, permissionMode: "manual"}, quiet))
	w.waitStalled("claude-permission", "lead")

	// serve, on a port of its own, until the test ends.
	cmd := exec.Command(w.e.Bin, "serve", "--addr", "127.0.0.1:0", "--team", w.team)
	cmd.Env, cmd.Dir = w.e.Environ(), w.e.Work
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
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
	var login string
	select {
	case login = <-urls:
	case <-time.After(wait):
		t.Fatal("serve printed no login URL")
	}

	ctx, cancel, err := browser.Start(context.Background(), exe, 360, 640)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, 2*wait)
	defer stop()
	js := func(expr string) string {
		v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		return v
	}
	row := `#rows > li[data-member="lead"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(login)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const r = document.querySelector('`+row+`'); return !!r && r.innerText.includes("echo s > marker-s.txt") && !!r.querySelector("button.safe"); })()`,
		chromedp.WithPollingTimeout(wait))); err != nil {
		t.Fatalf("the command on the lead's row: %v\nthe page:\n%s\nthe lead's screen:\n%s", err, js(`document.body.innerText`), w.screen(w.panes()["lead"]))
	}
	buttons := js(`[...document.querySelectorAll('` + row + ` button')].map(b => b.textContent).join("|")`)
	safe := js(`document.querySelector('` + row + ` button.safe').textContent`)
	t.Logf("the lead's row:\n%s\nbuttons: %s", js(`document.querySelector('`+row+`').innerText`), buttons)
	if !strings.HasPrefix(buttons, "1. Yes|") || strings.Contains(buttons, "|Enter") || !strings.HasSuffix(safe, ". No") {
		t.Errorf("buttons %q, safe %q: want the dialog's options by their labels, its No the safe one, no Enter", buttons, safe)
	}
	if err := chromedp.Do(ctx, chromedp.Click(row+` button.safe`)); err != nil {
		t.Fatal(err)
	}
	pane := w.panes()["lead"]
	w.waitScreens("the lead back at its input box after the page's No", map[string]string{"lead": pane}, func(_, s string) bool {
		_, ok := inputBox(s)
		return ok && !strings.Contains(s, "Do you want to proceed?")
	})
	if _, err := os.Stat(filepath.Join(w.e.Work, "marker-s.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("marker-s.txt exists (%v): the page's No ran the command", err)
	}
	var chosen []string
	for _, e := range stallsOf(w.events(), "answer", "lead") {
		chosen = append(chosen, e.Option+" by "+strings.Join(e.Keys, " ")+" ("+e.Detail+")")
	}
	if len(chosen) == 0 || !strings.HasPrefix(chosen[0], safe+" by "+safe[:1]) {
		t.Errorf("answers %q, want the page's %s by its digit", chosen, safe)
	}
}

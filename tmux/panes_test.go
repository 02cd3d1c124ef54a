package tmux

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// record is one list-panes record as paneFormat makes tmux print it.
func record(fixed []string, free ...string) string {
	var b strings.Builder
	b.WriteString(recordSep + strings.Join(fixed, sep) + sep)
	for _, f := range free {
		b.WriteString(strconv.Itoa(len(f)) + sep)
	}
	b.WriteString(strings.Join(free, "") + "\n")
	return b.String()
}

func TestParsePanesKeepsFreeTextWhole(t *testing.T) {
	t.Parallel()
	hostile := "a\nb" + sep + "c" + recordSep + "%9" + sep + "1\n" + recordSep
	out := record([]string{"%3", "1234", "1", "7", "0", "@1", "$0", "80", "24", "0", "1", "0"}, "team", hostile, "title\x1b]0;x\x07") +
		record([]string{"%4", "1235", "0", "", "", "@1", "$0", "80", "24", "0", "1", "1"}, "team", "researcher", "")
	panes, skipped := parsePanes(out)
	if skipped != 0 || len(panes) != 2 {
		t.Fatalf("%d panes, %d skipped: %+v", len(panes), skipped, panes)
	}
	p := panes[0]
	if p.ID != "%3" || p.PID != 1234 || !p.Dead || p.DeadStatus == nil || *p.DeadStatus != 7 || p.Window != "@1" ||
		p.Session != "team" || p.Member != hostile || p.Title != "title\x1b]0;x\x07" || p.Width != 80 || p.Top != 1 {
		t.Errorf("first pane: %+v", p)
	}
	if q := panes[1]; q.ID != "%4" || q.Dead || q.DeadStatus != nil || q.Member != "researcher" || !q.Active {
		t.Errorf("second pane: %+v", q)
	}
}

func TestParsePanesSkipsWhatDoesNotParse(t *testing.T) {
	t.Parallel()
	good := record([]string{"%1", "10", "0", "", "", "@0", "$0", "80", "24", "0", "0", "1"}, "s", "m", "t")
	for name, bad := range map[string]string{
		"garbage line":      "garbage\n",
		"short record":      recordSep + "%2" + sep + "11\n",
		"length past end":   strings.Replace(record([]string{"%2", "11", "0", "", "", "@0", "$0", "80", "24", "0", "0", "0"}, "s", "m", "t"), sep+"1"+sep+"1"+sep, sep+"1"+sep+"99"+sep, 1),
		"not a pane id":     record([]string{"x2", "11", "0", "", "", "@0", "$0", "80", "24", "0", "0", "0"}, "s", "m", "t"),
		"pid not a number":  record([]string{"%2", "1x", "0", "", "", "@0", "$0", "80", "24", "0", "0", "0"}, "s", "m", "t"),
		"text after record": strings.TrimSuffix(record([]string{"%2", "11", "0", "", "", "@0", "$0", "80", "24", "0", "0", "0"}, "s", "m", "t"), "\n") + "junk\n",
	} {
		panes, skipped := parsePanes(good + bad + good)
		if len(panes) != 2 || skipped == 0 {
			t.Errorf("%s: %d panes, %d skipped, want the 2 good ones and a skip", name, len(panes), skipped)
		}
		for _, p := range panes {
			if p.ID != "%1" || p.Member != "m" {
				t.Errorf("%s: read %+v", name, p)
			}
		}
	}
	if panes, skipped := parsePanes(""); len(panes) != 0 || skipped != 0 {
		t.Errorf("empty output: %v %d", panes, skipped)
	}
}

// TestListPanesHostileValues sets the values a program in a pane can set —
// its pane's @teamctl-member option, its title, its session's name — to text
// with newlines and separators, on a real server, and lists the panes.
func TestListPanesHostileValues(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	s := &Server{Socket: "lptest"}
	t.Cleanup(func() { s.KillServer(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "w", "-x", "80", "-y", "24", "sleep", "300")
	b.Add("split-window", "-t", "%0", "sleep", "300")
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	hostile := "a\nb" + sep + "c" + recordSep + "%7" + sep + "1\nlist-panes: unexpected line"
	if _, err := s.Run(ctx, "set-option", "-p", "-t", "%0", "@teamctl-member", hostile); err != nil {
		t.Fatal(err)
	}
	s.Run(ctx, "select-pane", "-t", "%1", "-T", "t\nu"+sep+"v") // tmux may refuse it; either way it must parse
	s.Run(ctx, "rename-session", "-t", "=w", "w\nx"+recordSep)
	panes, err := s.ListPanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(panes) != 2 || panes[0].ID != "%0" || panes[1].ID != "%1" {
		t.Fatalf("panes: %+v", panes)
	}
	if panes[0].Member != hostile {
		t.Errorf("member read as %q, want %q", panes[0].Member, hostile)
	}
	if panes[0].PID <= 0 || panes[1].PID <= 0 || panes[0].Dead || panes[1].Member != "" {
		t.Errorf("panes: %+v", panes)
	}
}

// TestKillPaneOfAPaneGone: killing a pane that is gone is no error, whether
// the server has other panes ("can't find pane"), no session left ("no current
// target": its last pane just went), or is gone; another failure still is one.
func TestKillPaneOfAPaneGone(t *testing.T) {
	t.Parallel()
	s := testServer(t, "killpane")
	ctx := context.Background()
	var b Batch
	b.Add("new-session", "-d", "-s", "x", "-P", "-F", "#{pane_id}", "sleep", "1000")
	out, err := s.StartBatch(ctx, &b)
	if err != nil || len(out) != 1 {
		t.Fatal(out, err)
	}
	pane := strings.TrimSpace(out[0])
	if err := s.KillPane(ctx, "%999"); err != nil {
		t.Errorf("a pane the server never had: %v", err)
	}
	// Kept alive without a session, as a server is for a moment after its
	// last pane went.
	if _, err := s.Run(ctx, "set-option", "-g", "exit-empty", "off"); err != nil {
		t.Fatal(err)
	}
	if err := s.KillPane(ctx, pane); err != nil {
		t.Fatalf("killing the last pane: %v", err)
	}
	if err := s.KillPane(ctx, pane); err != nil {
		t.Errorf("the same pane again, on a server with no session: %v", err)
	}
	if err := s.KillPane(ctx, "not-a-pane-id"); err != nil && !strings.Contains(err.Error(), "kill-pane") {
		t.Errorf("error without the command's name: %v", err)
	}
	s.KillServer(ctx)
	if err := s.KillPane(ctx, pane); err != nil {
		t.Errorf("no server: %v", err)
	}
}

// TestListPanesWithoutUTF8Locale: with no UTF-8 locale (cron's, an ssh
// session's) tmux would print list-panes' separators as "_": every pane
// would be lost.
func TestListPanesWithoutUTF8Locale(t *testing.T) {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		t.Setenv(name, "")
	}
	s := testServer(t, "nolocale")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "é", "sleep", "100")
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	panes, err := s.ListPanes(ctx)
	if err != nil || len(panes) != 1 || panes[0].Session != "é" {
		t.Fatalf("list-panes: %+v %v", panes, err)
	}
}

package sshconn

import (
	"os/exec"
	"slices"
	"testing"
)

// TestQuote: a word reaches the host's shell as one word, as it was, however
// it is made (checked with sh itself); safe words stay bare.
func TestQuote(t *testing.T) {
	for _, w := range []string{"plain", "a b", "it's", `"$HOME"`, "`id`", "$(id)", "a;b", "*", "~", "", "new\nline", `back\slash`, "-n"} {
		out, err := exec.Command("sh", "-c", "printf '%s' "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("Quote(%q) = %s: the shell made %q (%v)", w, Quote(w), out, err)
		}
	}
	if Quote("tmux") != "tmux" || Quote("/a/b-c_d.e") != "/a/b-c_d.e" {
		t.Errorf("safe words quoted: %s %s", Quote("tmux"), Quote("/a/b-c_d.e"))
	}
}

// TestArgv: ssh runs in batch mode, the destination after "--" (never read
// as an option), the command one line of quoted words, and the shared
// connection's socket in its folder.
func TestArgv(t *testing.T) {
	h := Host{Dest: "me@gpu1", Config: "/c", ControlDir: "/s"}
	got := h.Argv("git", "-C", "a b", "status")
	want := []string{"ssh", "-F", "/c", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=3", "-o", "ServerAliveCountMax=3", "-o", "ControlMaster=auto", "-o", "ControlPath=/s/a8669d2c0260cc2d",
		"-o", "ControlPersist=60s", "--", "me@gpu1", "git -C 'a b' status"}
	if !slices.Equal(got, want) {
		t.Errorf("argv %q\nwant %q", got, want)
	}
	if HomePath("~/src/it's") != `~/'src/it'\''s'` || HomePath("/srv/app") != "/srv/app" {
		t.Errorf("HomePath: %s %s", HomePath("~/src/it's"), HomePath("/srv/app"))
	}
}

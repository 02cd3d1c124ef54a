package web

import (
	"os"
	"strings"
	"testing"
)

// TestLoadToken: a token of 256 bits is made once, 0600, kept, rotated on
// demand; a token file that is a symlink, open to others or not a token is
// refused with what is wrong.
func TestLoadToken(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a, made, err := LoadToken(false)
	if err != nil || !made || !tokenRE.MatchString(a) {
		t.Fatalf("first: %q %v %v", a, made, err)
	}
	p, _ := TokenPath()
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if b, made, err := LoadToken(false); err != nil || made || b != a {
		t.Errorf("again: %q %v %v, want the same token", b, made, err)
	}
	c, made, err := LoadToken(true)
	if err != nil || !made || c == a {
		t.Errorf("rotated: %q %v %v", c, made, err)
	}
	os.Chmod(p, 0o644)
	if _, _, err := LoadToken(false); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("mode 0644: %v", err)
	}
	os.WriteFile(p, []byte("hunter2\n"), 0o600)
	os.Chmod(p, 0o600)
	if _, _, err := LoadToken(false); err == nil || !strings.Contains(err.Error(), ":1:1: not a token") {
		t.Errorf("not a token: %v", err)
	}
	os.Remove(p)
	secret := t.TempDir() + "/secret"
	os.WriteFile(secret, []byte(strings.Repeat("a", 43)+"\n"), 0o600)
	os.Symlink(secret, p)
	if _, _, err := LoadToken(false); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink: %v", err)
	}
}

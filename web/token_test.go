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
	a, made, err := LoadToken(false, false)
	if err != nil || !made || !tokenRE.MatchString(a) {
		t.Fatalf("first: %q %v %v", a, made, err)
	}
	p, _ := TokenPath(false)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if b, made, err := LoadToken(false, false); err != nil || made || b != a {
		t.Errorf("again: %q %v %v, want the same token", b, made, err)
	}
	c, made, err := LoadToken(false, true)
	if err != nil || !made || c == a {
		t.Errorf("rotated: %q %v %v", c, made, err)
	}
	os.Chmod(p, 0o644)
	if _, _, err := LoadToken(false, false); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("mode 0644: %v", err)
	}
	os.WriteFile(p, []byte("hunter2\n"), 0o600)
	os.Chmod(p, 0o600)
	if _, _, err := LoadToken(false, false); err == nil || !strings.Contains(err.Error(), ":1:1: not a token") {
		t.Errorf("not a token: %v", err)
	}
	os.Remove(p)
	secret := t.TempDir() + "/secret"
	os.WriteFile(secret, []byte(strings.Repeat("a", 43)+"\n"), 0o600)
	os.Symlink(secret, p)
	if _, _, err := LoadToken(false, false); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink: %v", err)
	}
}

// TestReadOnlyToken: --read-only's token is one of its own, in a 0600 file of
// its own; making or rotating either leaves the other alone.
func TestReadOnlyToken(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	full, _, err := LoadToken(false, false)
	if err != nil {
		t.Fatal(err)
	}
	ro, made, err := LoadToken(true, false)
	if err != nil || !made || !tokenRE.MatchString(ro) || ro == full {
		t.Fatalf("read-only: %q %v %v, want a token of its own (the full one is %q)", ro, made, err, full)
	}
	p, _ := TokenPath(true)
	fp, _ := TokenPath(false)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 || p == fp {
		t.Fatalf("read-only token file %s: %v %v", p, fi, err)
	}
	if again, _, _ := LoadToken(true, false); again != ro {
		t.Errorf("read-only again: %q, want %q", again, ro)
	}
	ro2, _, _ := LoadToken(true, true)
	if f, _, _ := LoadToken(false, false); ro2 == ro || f != full {
		t.Errorf("rotating the read-only token: %q (was %q), full %q (was %q)", ro2, ro, f, full)
	}
}

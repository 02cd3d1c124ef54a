package web

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/state"
)

// tokenBytes is the login token's size: 256 bits.
const tokenBytes = 32

// tokenRE is what a token file holds: 32 bytes, base64url without padding,
// and a newline.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// TokenPath is where the login token is kept: serve.token in teamctl's state
// folder, and the read-only one (`serve --read-only`'s) in
// serve-read-only.token beside it (neither is a team's name, so no watch or
// listing takes it for a team). Two tokens, so that a read-only login URL
// handed to someone never logs them into a serve that acts.
func TokenPath(readOnly bool) (string, error) {
	root, err := state.Root()
	if err != nil {
		return "", err
	}
	if readOnly {
		return filepath.Join(root, "serve-read-only.token"), nil
	}
	return filepath.Join(root, "serve.token"), nil
}

// LoadToken returns the login token (the read-only one with readOnly),
// making one (0600, written atomically) when there is none or rotate asks for
// a new one; made says it is new. A token file that is a symlink, not the
// user's, open to others or not a token is refused with what is wrong, never
// read past.
func LoadToken(readOnly, rotate bool) (token string, made bool, err error) {
	if err := state.EnsureRoot(); err != nil {
		return "", false, err
	}
	p, err := TokenPath(readOnly)
	if err != nil {
		return "", false, err
	}
	if !rotate {
		t, err := readToken(p)
		if err == nil {
			return t, false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", false, err
		}
	}
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", false, fmt.Errorf("make a login token: %w", err)
	}
	t := base64.RawURLEncoding.EncodeToString(b)
	if err := atomicfile.WriteFile(p, []byte(t+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("keep the login token: %w", err)
	}
	return t, true, nil
}

func readToken(p string) (string, error) {
	f, err := safefile.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return "", fmt.Errorf("read the login token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read the login token %s: %w", p, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("login token %s is owned by uid %d, not by you: remove it (teamctl serve --new-token makes a new one)", p, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("login token %s is open to others (mode %v): anyone who read it can log in; `teamctl serve --new-token` makes a new one, 0600", p, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", fmt.Errorf("read the login token %s: %w", p, err)
	}
	t, rest, _ := strings.Cut(string(b), "\n")
	if !tokenRE.MatchString(t) || strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("login token %s:1:1: not a token teamctl made (want 43 characters of A-Z a-z 0-9 _ -, one line): `teamctl serve --new-token` makes a new one", p)
	}
	return t, nil
}

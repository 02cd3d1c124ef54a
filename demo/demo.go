// Package demo prepares `teamctl demo`: a small team of stand-in agents that
// shows teamctl working without Claude Code or an API key.
package demo

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teamctl/teamctl/configs"
	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// Team is the demo team's name.
const Team = "demo"

// Prepare writes the demo layout into the demo team's state folder, pointing at
// a teamctl binary that will outlive this process, and parses it.
func Prepare(exe string) (*layouts.Layout, error) {
	dir, err := state.EnsureDir(Team)
	if err != nil {
		return nil, err
	}
	bin, err := stableBinary(exe, dir)
	if err != nil {
		return nil, err
	}
	src, err := configs.FS.ReadFile("demo.yaml")
	if err != nil {
		return nil, fmt.Errorf("read the embedded demo layout: %w", err)
	}
	// The program is quoted as a JSON string, which is valid YAML whatever the path holds.
	data := bytes.Replace(src, []byte("command: teamctl "), []byte("command: "+strconv.Quote(bin)+" "), 1)
	path := filepath.Join(dir, "demo.yaml")
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	return layouts.Parse(path)
}

// stableBinary returns a path of the teamctl binary that stays: `go run` builds
// into a temporary folder that it removes on exit, which would strand the panes'
// program, so such a binary is copied into the state folder.
func stableBinary(exe, dir string) (string, error) {
	if !strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return exe, nil
	}
	bindir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bindir, 0o700); err != nil {
		return "", fmt.Errorf("copy teamctl for the demo: %w", err)
	}
	dst := filepath.Join(bindir, "teamctl")
	in, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("copy teamctl for the demo: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(bindir, ".teamctl-*")
	if err != nil {
		return "", fmt.Errorf("copy teamctl for the demo: %w", err)
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o700)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("copy teamctl for the demo: %w", err)
	}
	return dst, nil
}

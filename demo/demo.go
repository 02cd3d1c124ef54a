// Package demo prepares `teamctl demo`: a small team of stand-in agents that
// shows teamctl working without Claude Code or an API key.
package demo

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/teamctl/teamctl/configs"
	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// Team is the demo team's name.
const Team = "demo"

// Prepare writes the demo layout into the demo team's state folder, its agents
// run by the teamctl binary at bin (one that outlives this process, see
// internal/selfexe), and parses it.
func Prepare(bin string) (*layouts.Layout, error) {
	dir, err := state.EnsureDir(Team)
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

package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

// GlobalConfigPath is Claude Code's global config file, which holds among much
// else the folders a person trusted: $CLAUDE_CONFIG_DIR/.claude.json when that
// variable is set (Claude Code 2.1.328 then ignores $HOME/.claude.json), else
// $HOME/.claude.json.
func GlobalConfigPath(claudeConfigDir, home string) string {
	if claudeConfigDir != "" {
		return filepath.Join(claudeConfigDir, ".claude.json")
	}
	return filepath.Join(home, ".claude.json")
}

// projectTrust is the part of a projects entry that says the folder is trusted.
type projectTrust struct {
	HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
}

// Trusted reports whether Claude Code starts in dir without its trust dialog,
// going by the config file at path. As Claude Code 2.1.328 was seen to decide:
// dir or a folder above it is trusted, but inside a git checkout only up to the
// checkout's top (top; "" outside git) — a trusted folder above a repository
// does not cover it — and a linked worktree is also covered by its main
// checkout's top (main; "" for none). A config over MaxGlobalConfigBytes is
// an error, not read.
func Trusted(path, dir, top, main string) (bool, error) {
	b, err := readCappedFollow(path, "file", MaxGlobalConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read Claude Code's config: %w", err)
	}
	var cfg struct {
		Projects map[string]projectTrust `json:"projects"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return false, fmt.Errorf("read Claude Code's config %s: %w", path, err)
	}
	trusted := func(d string) bool {
		if cfg.Projects[d].HasTrustDialogAccepted {
			return true
		}
		r, err := filepath.EvalSymlinks(d)
		return err == nil && cfg.Projects[r].HasTrustDialogAccepted
	}
	if main != "" && trusted(filepath.Clean(main)) {
		return true, nil
	}
	stop := ""
	if top != "" {
		stop = filepath.Clean(top)
	}
	for d := filepath.Clean(dir); ; {
		if trusted(d) {
			return true, nil
		}
		up := filepath.Dir(d)
		if d == stop || up == d {
			return false, nil
		}
		d = up
	}
}

// Trust records dir as trusted in the config file at path, atomically, keeping
// every other key (of the file and of dir's own entry). A file that is not a
// JSON object is left alone and is an error.
func Trust(path, dir string) error {
	b, err := readCappedFollow(path, "file", MaxGlobalConfigBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read Claude Code's config: %w", err)
	}
	cfg := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &cfg); err != nil {
			return fmt.Errorf("trust %s: Claude Code's config %s is not a JSON object, left as it is: %w", dir, path, err)
		}
	}
	projects := map[string]map[string]json.RawMessage{}
	if raw, ok := cfg["projects"]; ok {
		if err := json.Unmarshal(raw, &projects); err != nil {
			return fmt.Errorf("trust %s: projects in %s: %w", dir, path, err)
		}
	}
	entry := projects[dir]
	if entry == nil {
		entry = map[string]json.RawMessage{}
	}
	entry["hasTrustDialogAccepted"] = json.RawMessage("true")
	projects[dir] = entry
	if cfg["projects"], err = json.Marshal(projects); err != nil {
		return fmt.Errorf("trust %s: %w", dir, err)
	}
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("trust %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("trust %s: %w", dir, err)
	}
	return atomicfile.WriteFile(path, append(out, '\n'), 0o600)
}

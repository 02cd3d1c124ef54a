package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// ConfigRoot is teamctl's config folder, $XDG_CONFIG_HOME/teamctl (default
// ~/.config/teamctl): what a person writes for teamctl to read (the price
// file, prices.yaml). teamctl only reads it.
func ConfigRoot() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find config folder: %w (set HOME or XDG_CONFIG_HOME)", err)
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "teamctl"), nil
}

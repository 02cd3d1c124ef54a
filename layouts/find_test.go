package layouts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindDefault: teamctl.yaml first, then the others in order; none says
// what was looked for and where.
func TestFindDefault(t *testing.T) {
	dir := t.TempDir()
	if _, err := FindDefault(dir); err == nil || !strings.Contains(err.Error(), "teamctl.yaml, teamctl.yml, .teamctl.yaml, .teamctl.yml") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("no file: %v", err)
	}
	for _, name := range []string{".teamctl.yml", ".teamctl.yaml", "teamctl.yml", "teamctl.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("team: t\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := FindDefault(dir)
		if err != nil || got != filepath.Join(dir, name) {
			t.Errorf("with %s added: %q %v", name, got, err)
		}
	}
	if got, _ := FindDefault("."); got != "" && got != "teamctl.yaml" {
		t.Errorf("a relative dir gives %q", got)
	}
}

// TestFindDefaultNotAFile: a folder of that name is not taken for a layout.
func TestFindDefaultNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "teamctl.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := FindDefault(dir); err == nil || !strings.Contains(err.Error(), "is not a file") {
		t.Errorf("a folder named teamctl.yaml: %v", err)
	}
}

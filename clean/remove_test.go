package clean

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveOwned: a folder inside its root goes, links inside it are removed
// as links; a link at the path goes alone; a path whose parent resolves
// outside the root is refused.
func TestRemoveOwned(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "teams")
	outside := filepath.Join(dir, "outside")
	precious := filepath.Join(outside, "precious.txt")
	for _, d := range []string{filepath.Join(root, "a", "inboxes"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(precious, []byte("keep"), 0o600)
	os.Symlink(outside, filepath.Join(root, "a", "inboxes", "link"))
	os.Symlink(outside, filepath.Join(root, "b")) // the team folder itself a link

	if err := removeOwned(filepath.Join(root, "a"), root); err != nil {
		t.Fatal(err)
	}
	if err := removeOwned(filepath.Join(root, "b"), root); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(root, "a")) || exists(filepath.Join(root, "b")) {
		t.Error("owned folder or link left")
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "keep" {
		t.Fatalf("a link was followed: %v", err)
	}

	// A parent that is a link out of the root: refused, nothing removed.
	os.Symlink(outside, filepath.Join(root, "c"))
	err := removeOwned(filepath.Join(root, "c", "precious.txt"), root)
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("err = %v, want a refusal", err)
	}
	if !exists(precious) {
		t.Error("removed a file outside the root through a linked parent")
	}
	if err := removeOwned(filepath.Join(root, "missing"), root); err != nil {
		t.Errorf("a missing path: %v", err)
	}
}

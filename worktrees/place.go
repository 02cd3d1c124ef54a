package worktrees

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultFolder is where members' worktrees go inside the repository
// (under <team>/<member>) unless the layout names another folder.
const DefaultFolder = ".teamctl/worktrees"

// CheckFolder refuses a worktrees folder that is the repository's
// main checkout or a folder above it: <folder>/<team>/<member> could then be
// any folder of the repository, and clean (which removes a recorded worktree
// only at such a place) could not tell the team's worktrees from it.
func CheckFolder(folder, main string) error {
	if !filepath.IsAbs(folder) {
		return fmt.Errorf("%s is not an absolute path", folder)
	}
	rel, err := filepath.Rel(filepath.Clean(folder), filepath.Clean(main))
	if err != nil || rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
		return fmt.Errorf("%s is the repository %s or a folder above it: put the worktrees beside it (../wt) or inside it", folder, main)
	}
	return nil
}

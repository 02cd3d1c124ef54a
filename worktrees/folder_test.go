package worktrees

import "testing"

// A worktrees folder may be beside the repository or inside it, never the
// repository itself or a folder above it (where <folder>/<team>/<member> could
// be any folder of the repository).
func TestCheckFolder(t *testing.T) {
	t.Parallel()
	for folder, ok := range map[string]bool{
		"/src/app/.teamctl/worktrees": true,
		"/src/app/wt":                 true,
		"/src/wt":                     true,
		"/src/..wt":                   true,
		"/src/app":                    false,
		"/src/app/":                   false,
		"/src":                        false,
		"/":                           false,
		"wt":                          false,
	} {
		if err := CheckFolder(folder, "/src/app"); (err == nil) != ok {
			t.Errorf("%s: %v, want ok=%v", folder, err, ok)
		}
	}
}

package layouts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultFiles are the layout files `up` and `validate` look for in the
// current folder when given none, in this order (as tmuxinator, smug and
// docker compose users expect a project's own file to be found).
var DefaultFiles = []string{"teamctl.yaml", "teamctl.yml", ".teamctl.yaml", ".teamctl.yml"}

// FindDefault returns the path of the first of DefaultFiles in dir, joined
// to dir as given (so "." gives "teamctl.yaml"), or an error that says what
// was looked for.
func FindDefault(dir string) (string, error) {
	for _, name := range DefaultFiles {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.Mode().IsRegular():
			return p, nil
		case err == nil:
			return "", fmt.Errorf("%s is not a file", p)
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("look for a layout file: %w", err)
		}
	}
	where := dir
	if abs, err := filepath.Abs(dir); err == nil {
		where = abs
	}
	return "", fmt.Errorf("no layout file given, and %s has none of %s", where, strings.Join(DefaultFiles, ", "))
}

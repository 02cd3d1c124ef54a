package team

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
)

// Validation is what Validate found of a layout file (`teamctl validate`,
// and its --json): one problem each; a problem not at a place in the file
// (a --settings file that cannot be read, TMUX_TMPDIR) has no line.
type Validation struct {
	File     string              `json:"file"`
	Valid    bool                `json:"valid"`
	Team     string              `json:"team,omitempty"`
	Lead     string              `json:"lead,omitempty"`
	Members  int                 `json:"members"`
	Problems []ValidationProblem `json:"problems"`
}

// ValidationProblem is one problem of a Validation.
type ValidationProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// Validate makes every check of layout file that Up would make before it
// starts anything, and says what each found. The layout's own problems come
// first, by line and column; the checks that need a layout follow only when
// it has none, and those that do not depend on it only when all else passes.
func Validate(ctx context.Context, file string) Validation {
	v := Validation{File: file, Problems: []ValidationProblem{}}
	l, err := layouts.Parse(file)
	if err != nil {
		var le *layouts.Error
		if errors.As(err, &le) {
			ps := slices.Clone(le.Problems)
			slices.SortStableFunc(ps, func(a, b layouts.Problem) int {
				return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
			})
			for _, p := range ps {
				v.Problems = append(v.Problems, ValidationProblem{File: p.File, Line: p.Line, Col: p.Col, Path: p.Path, Message: p.Msg})
			}
		} else {
			v.Problems = append(v.Problems, ValidationProblem{File: file, Message: err.Error()})
		}
		return v
	}
	v.Team, v.Lead, v.Members = l.Team, l.Lead.Name, len(l.Members)
	// A layout's own --settings must be readable: Up merges teamctl's hooks into it.
	if err := launch.CheckSettings(l); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			v.Problems = append(v.Problems, ValidationProblem{File: file, Message: line})
		}
		return v
	}
	// Every program it launches must be there: Claude Code (claude.command,
	// or TEAMCTL_CLAUDE, as up takes it) when the team has a lead, and each
	// plain process's command. A team of plain processes needs no Claude Code.
	if _, err := launch.ResolvePrograms(l, os.Getenv("TEAMCTL_CLAUDE")); err != nil {
		v.Problems = append(v.Problems, ValidationProblem{File: file, Message: err.Error()})
	}
	// Members that want a worktree where there can be none (not in a git
	// repository…): up would refuse them.
	for _, err := range CheckWorktrees(ctx, l) {
		v.Problems = append(v.Problems, ValidationProblem{File: file, Message: err.Error()})
	}
	if len(v.Problems) > 0 {
		return v
	}
	// Not the layout's fault, but up would fail on it: TMUX_TMPDIR is too long.
	if err := CheckSocket(l.Team); err != nil {
		v.Problems = append(v.Problems, ValidationProblem{File: file, Message: err.Error()})
		return v
	}
	v.Valid = true
	return v
}

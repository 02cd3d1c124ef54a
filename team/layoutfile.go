package team

import (
	"fmt"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// The layout a team was brought up from is a program run waiting to happen:
// `up --all` starts its claude.command and its members' commands. state.json
// names it (layout_path), and anyone running as the user can rewrite that
// file or, often more easily, the layout itself (it tends to sit in the
// repository the agents work in). So a layout is taken again without the
// person naming it only when it is the file the person named at up: the same
// bytes (layout_digest), owned by the user and writable by no one else, as
// up found it (layout_file). `teamctl up FILE` is the person naming it, and
// is never refused for this.

// ErrLayoutNotTrusted means a team's layout file is not, or no longer, the
// one it was brought up from: changed since, or open to others.
var ErrLayoutNotTrusted = state.ErrLayoutNotTrusted

func stampOf(path string) *state.FileStamp { return state.StampOf(path) }

func checkLayout(st *state.Team) ([]byte, error) { return st.LayoutBytes() }

// ResumeLayout is the layout team was brought up from, read for `up --all`:
// its file at state.json's layout_path, parsed from the very bytes checked
// (checkLayout), as team's. An error wrapping ErrLayoutNotTrusted says what
// is wrong with the file, for a person to look at it and name it.
func ResumeLayout(team string) (*layouts.Layout, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	data, err := checkLayout(st)
	if err != nil {
		return nil, err
	}
	l, err := layouts.ParseBytes(st.LayoutPath, data)
	if err != nil {
		return nil, err
	}
	if l.Team != team {
		return nil, fmt.Errorf("%s is now the layout of team %q, not %q", st.LayoutPath, l.Team, team)
	}
	return l, nil
}

// LayoutProblem says why team st's layout file would not be taken again
// without the person naming it (checkLayout), "" when it would.
func LayoutProblem(st *state.Team) string {
	if _, err := checkLayout(st); err != nil {
		return err.Error()
	}
	return ""
}

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
)

// workView is what a member changed, as `teamctl diff --stat` says it, and
// whose work its own would conflict with, every line text made here: the
// page shows them as they are.
type workView struct {
	Summary   string   `json:"summary"`   // "2 files +12 -3 · 1 commit, 1 uncommitted"; "no changes"
	Files     []string `json:"files"`     // "modified calc.py +10 -2"
	Conflicts []string `json:"conflicts"` // "conflicts with bob"
	Mergeable bool     `json:"mergeable"` // a worktree of its own with commits to land
}

// changesOf is member's work in c, as the page shows it.
func changesOf(c *TeamChanges, member string, conflicts []string) workView {
	v := workView{Summary: "no worktree of its own: its changes are the team checkout's", Files: []string{}, Conflicts: []string{}}
	for _, w := range conflicts {
		v.Conflicts = append(v.Conflicts, "would conflict with "+w)
	}
	if c == nil {
		return v
	}
	for _, w := range c.Work {
		if w.Member != member && !(w.Member == "" && containsName(w.Members, member)) {
			continue
		}
		if len(w.Files) == 0 && w.Commits == 0 {
			v.Summary = "no changes"
		} else {
			v.Summary = fmt.Sprintf("%s +%d -%d · %s, %d uncommitted", plural(len(w.Files), "file"), w.Added, w.Deleted, plural(w.Commits, "commit"), w.Uncommitted)
		}
		if w.Member == "" {
			v.Summary += " (a checkout shared with " + strings.Join(w.Members, ", ") + ")"
		}
		if w.Base != nil && w.Branch != "" {
			v.Summary += " · " + w.Branch + " from " + w.Base.Name
		}
		for _, f := range w.Files {
			name := f.Path
			if f.From != "" {
				name = f.From + " → " + f.Path
			}
			line := fmt.Sprintf("%s %s +%d -%d", f.Status, name, f.Added, f.Deleted)
			if f.Binary {
				line = fmt.Sprintf("%s %s (binary)", f.Status, name)
			}
			v.Files = append(v.Files, textsafe.Visible(line))
		}
		v.Summary = textsafe.Visible(v.Summary)
		v.Mergeable = w.Worktree && w.Commits > 0
		return v
	}
	return v
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// changes answers a member's work (GET /api/changes?team=&member=): the
// team's `diff --stat` through team's Actions, read anew.
func (s *Server) changes(w http.ResponseWriter, r *http.Request) {
	q := request{Team: r.URL.Query().Get("team"), Member: r.URL.Query().Get("member")}
	if err := s.check(q); err != nil {
		refuse(w, http.StatusBadRequest, "%v", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), lookTimeout)
	defer cancel()
	c, err := s.o.Backend.As(By{Via: "web", From: r.RemoteAddr}).Changes(ctx, q.Team)
	if err != nil {
		refuse(w, http.StatusConflict, "%s's changes: %v", q.Member, err)
		return
	}
	var conflicts []string
	for _, row := range s.hub.rows() {
		if row.Team == q.Team && row.Member == q.Member {
			conflicts = row.Conflicts
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(changesOf(c, q.Member, conflicts))
}

// mergedText says what a merge did, or why it did not.
func mergedText(member string, m *MergeResult) (string, error) {
	if m == nil {
		return "", fmt.Errorf("merge %s: nothing was done", member)
	}
	if m.Refused != nil {
		return "", fmt.Errorf("%s not merged: %s", m.Refused.Member, textsafe.Visible(m.Refused.Why))
	}
	for _, l := range m.Landed {
		if l.Member != member {
			continue
		}
		if l.UpToDate {
			return fmt.Sprintf("%s: %s already has all of %s", member, l.Into, l.Branch), nil
		}
		return fmt.Sprintf("merged %s into %s (%s)", member, l.Into, plural(l.Commits, "commit")), nil
	}
	return fmt.Sprintf("merged %s", member), nil
}

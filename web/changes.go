package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team/model"
)

// workView is what a member changed, as `teamctl diff --stat` says it, and
// whose work its own would conflict with, every line text made here: the
// page shows them as they are.
type workView struct {
	Summary   string   `json:"summary"`   // "2 files +12 -3 · 1 commit, 1 uncommitted"; "no changes"
	Files     []string `json:"files"`     // "modified calc.py +10 -2"
	Paths     []string `json:"paths"`     // each file's path, as /api/diff takes it back
	Conflicts []string `json:"conflicts"` // "conflicts with bob"
	Mergeable bool     `json:"mergeable"` // a worktree of its own with commits to land
}

// changesOf is member's work in c, as the page shows it.
func changesOf(c *model.Changes, member string, conflicts []string) workView {
	v := workView{Summary: "no worktree of its own: its changes are the team checkout's", Files: []string{}, Paths: []string{}, Conflicts: []string{}}
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
			v.Paths = append(v.Paths, f.Path)
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
	q, ok := s.lookAt(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), lookTimeout)
	defer cancel()
	c, err := s.o.Backend.As(model.By{Via: "web", From: r.RemoteAddr}).Changes(ctx, q.Team)
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
func mergedText(member string, m *model.MergeResult) (string, error) {
	return landedText("merged", member, m)
}

// landedText says what landing member's work did (verb: "merged",
// "finished"), or why it did not.
func landedText(verb, member string, m *model.MergeResult) (string, error) {
	if m == nil {
		return "", fmt.Errorf("%s %s: nothing was done", strings.TrimSuffix(verb, "ed"), member)
	}
	if m.Refused != nil {
		return "", fmt.Errorf("%s not %s: %s", m.Refused.Member, verb, textsafe.Visible(m.Refused.Why))
	}
	for _, l := range m.Landed {
		if l.Member != member {
			continue
		}
		if l.UpToDate {
			return fmt.Sprintf("%s %s: %s already has all of %s", verb, member, l.Into, l.Branch), nil
		}
		return fmt.Sprintf("%s %s into %s (%s)", verb, member, l.Into, plural(l.Commits, "commit")), nil
	}
	return fmt.Sprintf("%s %s", verb, member), nil
}

// maxDiffBytes bounds one file's diff as the page gets it; the rest is
// said to be cut (`teamctl diff` shows it all).
const maxDiffBytes = 256 << 10

// diffView is one file's diff as the page draws it: each line's text made
// visible here, and its kind for its colour.
type diffView struct {
	File  string     `json:"file"`
	Lines []diffLine `json:"lines"`
	Cut   string     `json:"cut,omitempty"` // said when the diff was longer than the page gets
}

type diffLine struct {
	Text string `json:"text"`
	Kind string `json:"kind"` // add, del, hunk, meta, or "" for context
}

// fileDiff answers one changed file's diff (GET
// /api/diff?team=&member=&file=): only a file the member's changes list
// (team's FileDiff refuses any other), read anew.
func (s *Server) fileDiff(w http.ResponseWriter, r *http.Request) {
	q, ok := s.lookAt(w, r)
	if !ok {
		return
	}
	file := r.URL.Query().Get("file")
	if file == "" || len(file) > 4096 {
		refuse(w, http.StatusBadRequest, "name one of %s's changed files", q.Member)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), lookTimeout)
	defer cancel()
	d, err := s.o.Backend.As(model.By{Via: "web", From: r.RemoteAddr}).FileDiff(ctx, q.Team, q.Member, file)
	if err != nil {
		refuse(w, http.StatusConflict, "%s", textsafe.Visible(err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(diffOf(file, d))
}

// diffOf is diff (git's unified diff of file) as the page draws it.
func diffOf(file, diff string) diffView {
	v := diffView{File: textsafe.Visible(file), Lines: []diffLine{}}
	if len(diff) > maxDiffBytes {
		cut := strings.LastIndexByte(diff[:maxDiffBytes], '\n')
		v.Cut = fmt.Sprintf("cut at %d of %d bytes: teamctl diff shows it all", cut+1, len(diff))
		diff = diff[:cut+1]
	}
	header := true
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		kind := ""
		switch {
		case strings.HasPrefix(l, "@@"):
			kind, header = "hunk", false
		case header:
			kind = "meta"
		case strings.HasPrefix(l, "+"):
			kind = "add"
		case strings.HasPrefix(l, "-"):
			kind = "del"
		case strings.HasPrefix(l, `\`):
			kind = "meta"
		}
		v.Lines = append(v.Lines, diffLine{Text: textsafe.Visible(strings.ReplaceAll(l, "\t", "    ")), Kind: kind})
	}
	return v
}

// planView is what finish would do for a member, as the page shows it
// before it asks to confirm.
type planView struct {
	Lines   []string `json:"lines"`
	Refused bool     `json:"refused"`
}

// finishPlan answers what finish would do (GET /api/finish-plan?team=&member=),
// read without acting.
func (s *Server) finishPlan(w http.ResponseWriter, r *http.Request) {
	q, ok := s.lookAt(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), lookTimeout)
	defer cancel()
	p, err := s.o.Backend.As(model.By{Via: "web", From: r.RemoteAddr}).PlanFinish(ctx, q.Team, q.Member)
	if err != nil {
		refuse(w, http.StatusConflict, "what finishing %s would do: %s", q.Member, textsafe.Visible(err.Error()))
		return
	}
	v := planView{Lines: []string{}, Refused: p.Refusal != ""}
	for _, l := range p.Lines() {
		v.Lines = append(v.Lines, textsafe.Visible(l))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// finishedText says what finish did, or why it did not: what landed, as
// mergedText says it, then what went.
func finishedText(member string, f *model.FinishResult) (string, error) {
	if f == nil {
		return "", fmt.Errorf("finish %s: nothing was done", member)
	}
	m := &model.MergeResult{Team: f.Team, Refused: f.Refused}
	var done *model.Finished
	for i, x := range f.Finished {
		m.Landed = append(m.Landed, x.Landed)
		if x.Member == member {
			done = &f.Finished[i]
		}
	}
	landed, err := landedText("finished", member, m)
	if err != nil || done == nil {
		return landed, err
	}
	parts := []string{landed, "worktree removed"}
	if done.Branch != "" {
		parts = append(parts, "branch "+done.Branch+" deleted")
	} else if done.Kept != "" {
		parts = append(parts, "branch kept ("+done.Kept+")")
	}
	if done.Restore != "" {
		parts = append(parts, "what it would have lost is in a snapshot: "+done.Restore)
	}
	return textsafe.Visible(strings.Join(parts, "; ")), nil
}

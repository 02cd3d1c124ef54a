// Package transcript reads Claude Code's session transcripts: where a
// session's are (projects/*/<session-id>.jsonl and its subagents' files
// beside it), and the token usage of each model response in them (and the
// API errors Claude Code records among them, usage limits included), read
// incrementally from where the last read ended (Follower). It is part of
// claudecode, the one place that knows Claude Code's files; what the files
// look like is recorded in docs/claude-code.md ("Transcripts and usage").
// It reads only; pricing and sums are package usage's.
package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/safefile"
)

// Usage is what one response used, as its message.usage says.
type Usage struct {
	Input      int64 // input_tokens: not from the cache
	Output     int64 // output_tokens
	CacheWrite int64 // cache_creation_input_tokens: written to the cache, both lifetimes
	CacheRead  int64 // cache_read_input_tokens

	// The split of CacheWrite by lifetime (usage.cache_creation), when the
	// line gives it (Split); without it all of CacheWrite is 5-minute.
	Split        bool
	CacheWrite5m int64
	CacheWrite1h int64
}

// Response is one model response (an assistant message) as one of its lines
// records it. Claude Code writes a response with several content blocks on
// one line per block, each with the same message.id and usage: Key says
// which lines are one response.
type Response struct {
	MessageID string // message.id, the API's id of the message
	RequestID string // requestId: the API's request-id header (may be absent)
	Model     string
	Time      time.Time // the line's timestamp (zero when it has none)
	Sidechain bool      // isSidechain: a subagent's
	SessionID string    // sessionId: for a subagent, its parent's session
	AgentName string    // agentName: a teammate's name
	TeamName  string    // teamName: a teammate's Claude Code team
	Usage     Usage

	// APIError is set on the message Claude Code writes itself when the
	// API refused a request and it gave up (model "<synthetic>",
	// isApiErrorMessage): a 429 of a usage or rate limit among them.
	APIError *APIError
}

// APIError is an API error as Claude Code records it in a transcript (seen
// on 2.1.328 and 2.1.332: "error":"rate_limit", "apiErrorStatus":429,
// "apiErrorType":"rate_limit_error"; no reset time).
type APIError struct {
	Status int    // apiErrorStatus: the HTTP status (429)
	Type   string // apiErrorType: the API's error type ("rate_limit_error")
	Kind   string // error: Claude Code's name for it ("rate_limit")
}

// RateLimit reports whether the error is a usage or rate limit.
func (e *APIError) RateLimit() bool {
	return e != nil && (e.Status == 429 || e.Type == "rate_limit_error" || e.Kind == "rate_limit")
}

// Key identifies the response: its message id (unique to a message, so a
// response written on several lines, or copied into another file, is one);
// the request id when a line has no message id; "" when neither is there
// (such a line is a response of its own).
func (r Response) Key() string {
	if r.MessageID != "" {
		return "m:" + r.MessageID
	}
	if r.RequestID != "" {
		return "r:" + r.RequestID
	}
	return ""
}

// ErrInvalidSession is the error (wrapped) for a session id that is not a
// UUID, before it becomes part of a path.
var ErrInvalidSession = errors.New("not a session id (a UUID)")

// Files are the transcripts of one session: its own file(s) (one per project
// folder that has it; normally one) and its subagents' (Task/Agent tool),
// which Claude Code writes to <session-id>/subagents/agent-<id>.jsonl beside
// it.
type Files struct {
	Main      []string
	Subagents []string
}

// All is Main and Subagents together.
func (f Files) All() []string { return append(append([]string(nil), f.Main...), f.Subagents...) }

// Find returns the transcripts of session id under Claude Code's folder
// configDir, found by the id's file in each project folder (never by
// re-deriving the folder name Claude Code escapes a cwd into). None is no
// error, nor is a folder that cannot be read.
func Find(configDir, id string) (Files, error) {
	if !claudecode.ValidSessionID(id) {
		return Files{}, fmt.Errorf("transcript of %q: %w", id, ErrInvalidSession)
	}
	// Each project folder's entry for the session is looked up by its name:
	// globbing projects/*/<id>.jsonl (and projects/*/<id>/subagents/) listed
	// the whole project folder, every session's file, twice for each
	// session, and a team's sessions are in one folder (a tenth of
	// bench/usage's first read, 60 sessions).
	projects := filepath.Join(configDir, "projects")
	var out Files
	for _, name := range dirNames(projects) {
		if p := filepath.Join(projects, name, id+".jsonl"); exists(p) {
			out.Main = append(out.Main, p)
		}
		out.Subagents = appendSubagents(out.Subagents, filepath.Join(projects, name), id)
	}
	sort.Strings(out.Main)
	sort.Strings(out.Subagents)
	return out, nil
}

// Subagents returns the transcripts of session id's subagents beside its
// main transcripts main (what Find found): a subagent's file comes any time
// while the session lives, where its main transcript's folder does not
// change. A folder read for it at each look costs a few system calls; Find
// reads every project folder, of which a user's configDir holds one for
// every folder Claude Code was ever run in.
func Subagents(main []string, id string) ([]string, error) {
	if !claudecode.ValidSessionID(id) {
		return nil, fmt.Errorf("transcript of %q: %w", id, ErrInvalidSession)
	}
	var out []string
	for _, m := range main {
		out = appendSubagents(out, filepath.Dir(m), id)
	}
	sort.Strings(out)
	return out, nil
}

// appendSubagents appends to out the subagents' transcripts of session id
// in project folder project.
func appendSubagents(out []string, project, id string) []string {
	subs := filepath.Join(project, id, "subagents")
	for _, n := range dirNames(subs) {
		if strings.HasSuffix(n, ".jsonl") {
			out = append(out, filepath.Join(subs, n))
		}
	}
	return out
}

// dirNames are the names in folder dir; none when it cannot be read (gone,
// not a folder), as filepath.Glob has it.
func dirNames(dir string) []string {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	return names
}

// exists reports whether there is an entry at p (not followed if a link).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// headBytes is how much of a transcript FindTeammate reads to learn whose it
// is: a teammate's first lines name it.
const headBytes = 64 << 10

// FindTeam returns, by teammate name, the sessions whose transcripts say
// they are a teammate of one of Claude Code's teams teams (their lines carry
// "teamName" and "agentName"), among the transcripts changed since since.
// This is how a teammate the lead spawned itself is found: Claude Code gives
// it a session id of its own and records it nowhere else teamctl reads.
// What a transcript says of itself is only a claim (any member can write
// one): FindTeammates gives each file, for the caller to judge.
func FindTeam(configDir string, teams []string, since time.Time) (map[string][]string, error) {
	found, err := FindTeammates(configDir, teams, since)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, f := range found {
		out[f.Name] = append(out[f.Name], f.Session)
	}
	return out, nil
}

// Teammate is a transcript that says it is a teammate's: the name its lines
// give (agentName), the session its file is named by, and where it is.
type Teammate struct {
	Name, Session, Path string
}

// FindTeammates is FindTeam file by file, sorted by name, then session.
func FindTeammates(configDir string, teams []string, since time.Time) ([]Teammate, error) {
	var want [][]byte
	for _, team := range teams {
		if claudecode.ValidName(team) {
			want = append(want, []byte(`"teamName":"`+team+`"`))
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(configDir, "projects", "*", "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("find teammates' transcripts: %w", err)
	}
	var out []Teammate
	for _, p := range files {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if !claudecode.ValidSessionID(id) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			continue
		}
		head, err := readHead(p, headBytes)
		if err != nil {
			continue
		}
		if name := teammateIn(head, want); name != "" {
			out = append(out, Teammate{Name: name, Session: id, Path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		if out[i].Session != out[j].Session {
			return out[i].Session < out[j].Session
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

var agentNameKey = []byte(`"agentName":"`)

// teammateIn is the agentName of the first line of head that names one of
// the teams in want, "" for none (or a name teamctl would not take).
func teammateIn(head []byte, want [][]byte) string {
	for _, ln := range bytes.Split(head, []byte{'\n'}) {
		i := bytes.Index(ln, agentNameKey)
		if i < 0 {
			continue
		}
		for _, w := range want {
			if !bytes.Contains(ln, w) {
				continue
			}
			rest := ln[i+len(agentNameKey):]
			if j := bytes.IndexByte(rest, '"'); j > 0 && claudecode.ValidMemberName(string(rest[:j])) {
				return string(rest[:j])
			}
		}
	}
	return ""
}

func readHead(path string, n int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// open opens a transcript to read: not through a symlink (at the file, or at
// any folder between it and projects/), and only a regular file (a FIFO
// would hold the read forever: O_NONBLOCK refuses it).
func open(path string) (*os.File, error) {
	if err := noLinksUpToProjects(path); err != nil {
		return nil, err
	}
	f, err := safefile.Open(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return f, nil
}

// noLinksUpToProjects makes sure no folder between path and the projects/
// folder above it is a symlink. projects/ itself and above are the user's to
// arrange.
func noLinksUpToProjects(path string) error {
	for d := filepath.Dir(path); filepath.Base(d) != "projects" && d != filepath.Dir(d); d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("transcript %s: %w: %s", path, safefile.ErrSymlink, d)
		}
	}
	return nil
}

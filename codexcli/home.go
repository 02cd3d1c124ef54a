package codexcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/internal/agenthome"
)

// Argv is how a member runs Codex: program and its layout args, then in
// folder dir, the approval and sandbox options that permissionMode (Claude
// Code's words, the layout's) maps to, the model, the member's own args and
// its first prompt (Codex takes one as its [PROMPT] argument).
//
// 0.171.0 takes `-a on-request|never` (it refuses `untrusted`): "" and
// manual, acceptEdits, plan ask before what the sandbox does not allow
// (on-request), plan in a read-only sandbox; auto and dontAsk never ask,
// in the workspace-write sandbox; bypassPermissions runs with neither.
func Argv(program string, programArgs []string, dir, permissionMode, model string, args []string, prompt string) []string {
	argv := options(append([]string{program}, programArgs...), dir, permissionMode, model, args)
	if prompt != "" {
		argv = append(argv, "--", prompt)
	}
	return argv
}

// ResumeArgv is Argv resuming the member's last session (`codex resume
// --last`, in its own CODEX_HOME: its own last), with the same options and
// no first prompt, which the session has.
func ResumeArgv(program string, programArgs []string, dir, permissionMode, model string, args []string) []string {
	argv := append([]string{program}, programArgs...)
	return options(append(argv, "resume", "--last"), dir, permissionMode, model, args)
}

// options appends to argv Argv's options: the folder, approval and sandbox,
// the model, the member's own args.
func options(argv []string, dir, permissionMode, model string, args []string) []string {
	argv = append(argv, "--cd", dir)
	switch permissionMode {
	case "bypassPermissions":
		argv = append(argv, "--dangerously-bypass-approvals-and-sandbox")
	case "auto", "dontAsk":
		argv = append(argv, "-a", "never", "-s", "workspace-write")
	case "plan":
		argv = append(argv, "-a", "on-request", "-s", "read-only")
	default:
		argv = append(argv, "-a", "on-request", "-s", "workspace-write")
	}
	if model != "" {
		argv = append(argv, "-m", model)
	}
	return append(argv, args...)
}

// HasSession reports whether Codex stored a session in home (a rollout file
// under sessions/YYYY/MM/DD/), which ResumeArgv resumes. Links are not
// followed.
func HasSession(home string) bool {
	found := false
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return fs.SkipAll
		}
		if d.Type().IsRegular() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// HomeEnv is the environment variable naming Codex's folder.
const HomeEnv = "CODEX_HOME"

// MakeHome makes home a Codex folder of the member's own, from the user's
// (userHome: $CODEX_HOME, else ~/.codex), never changing the user's: its
// config.toml with dir trusted (else Codex stops at its trust screen) and,
// when notify is not empty, Codex's notify program set to notify (argv; Codex
// adds the turn's JSON as its last argument), and its auth.json (the login),
// each written atomically, 0600, in a 0700 folder. A config that already
// trusts dir is taken as it is; the user's own notify, if any, is not run
// for the member (a config has one).
func MakeHome(home, userHome, dir string, notify []string) error {
	if err := agenthome.Folder(home); err != nil {
		return err
	}
	config, err := agenthome.ReadUser(filepath.Join(userHome, "config.toml"))
	if err != nil {
		return err
	}
	if len(notify) > 0 {
		config = withNotify(config, notify)
	}
	table := "[projects." + tomlString(dir) + "]"
	if !strings.Contains(string(config), table) {
		if len(config) > 0 && !strings.HasSuffix(string(config), "\n") {
			config = append(config, '\n')
		}
		config = append(config, fmt.Sprintf("\n# teamctl: the member's folder, trusted\n%s\ntrust_level = \"trusted\"\n", table)...)
	}
	if err := agenthome.Write(filepath.Join(home, "config.toml"), config); err != nil {
		return err
	}
	return agenthome.CopyIfThere(filepath.Join(userHome, "auth.json"), filepath.Join(home, "auth.json"))
}

// UserHome is the user's Codex folder: $CODEX_HOME, else ~/.codex.
func UserHome(getenv func(string) string) string {
	if h := getenv(HomeEnv); h != "" {
		return h
	}
	return filepath.Join(getenv("HOME"), ".codex")
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's; <, >
// and & as they are, as a person writes them).
func tomlString(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// notifyComment marks the notify line MakeHome writes.
const notifyComment = "# teamctl: the member's turn ends, told to teamctl"

// withNotify is config with notify as its top-level notify: the first line,
// where a top-level key must be, after any other top-level notify (a line,
// or an array over several) and teamctl's own of an earlier MakeHome are
// taken out.
func withNotify(config []byte, notify []string) []byte {
	var kept []string
	top, skipping := true, false
	for _, line := range strings.SplitAfter(string(config), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case skipping:
			skipping = !strings.Contains(t, "]")
			continue
		case top && strings.HasPrefix(t, "["):
			top = false
		case top && t == notifyComment:
			continue
		case top && (strings.HasPrefix(t, "notify ") || strings.HasPrefix(t, "notify=")):
			_, v, _ := strings.Cut(t, "=")
			v = strings.TrimSpace(v)
			skipping = strings.HasPrefix(v, "[") && !strings.Contains(v, "]")
			continue
		}
		if line != "" {
			kept = append(kept, line)
		}
	}
	quoted := make([]string, len(notify))
	for i, a := range notify {
		quoted[i] = tomlString(a)
	}
	head := notifyComment + "\nnotify = [" + strings.Join(quoted, ", ") + "]\n"
	return []byte(head + strings.Join(kept, ""))
}

// A TurnEnd is what Codex tells its notify program at the end of a turn.
type TurnEnd struct {
	Type string `json:"type"` // agent-turn-complete
	// LastMessage is the model's last answer of the turn.
	LastMessage string `json:"last-assistant-message"`
	Cwd         string `json:"cwd"`
	// Input is the turn's user messages, the conversation's so far.
	Input []string `json:"input-messages"`
}

// titlePrompt starts the prompt of the turn Codex 0.171.0 runs on a thread
// of its own, beside the member's first turn, to name the session: its end
// is told to notify too (testdata/notify-0.171.0-title.json), while the
// member's turn goes on.
const titlePrompt = "Generate a concise, single-line task title"

// ParseNotify reads the JSON Codex gives its notify program (its last
// argument); ok is false unless it says a turn of the member's conversation
// is complete (not Codex's own title turn, which ends while the member works).
func ParseNotify(data []byte) (TurnEnd, bool) {
	var e TurnEnd
	err := json.Unmarshal(data, &e)
	if err != nil || e.Type != "agent-turn-complete" {
		return e, false
	}
	return e, !(len(e.Input) == 1 && strings.HasPrefix(e.Input[0], titlePrompt))
}

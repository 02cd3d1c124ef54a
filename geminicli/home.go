package geminicli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/internal/agenthome"
)

// Argv is how a member runs Gemini CLI: program and its layout args, the
// approval mode that permissionMode (Claude Code's words, the layout's)
// maps to, the model, the member's own args and its first prompt (`-i`:
// run it, then stay interactive).
//
// 0.61.0's --approval-mode: "" and manual ask (default); acceptEdits edits
// without asking (auto_edit); plan is its read-only plan; auto, dontAsk and
// bypassPermissions approve everything (yolo).
func Argv(program string, programArgs []string, permissionMode, model string, args []string, prompt string) []string {
	argv := options(append([]string{program}, programArgs...), permissionMode, model, args)
	if prompt != "" {
		argv = append(argv, "-i", prompt)
	}
	return argv
}

// ResumeArgv is Argv resuming the member's latest session of its folder
// (`--resume latest`, in its own home), with no first prompt, which the
// session has.
func ResumeArgv(program string, programArgs []string, permissionMode, model string, args []string) []string {
	return append(options(append([]string{program}, programArgs...), permissionMode, model, args), "--resume", "latest")
}

// options appends to argv Argv's options: the approval mode, the model, the
// member's own args.
func options(argv []string, permissionMode, model string, args []string) []string {
	mode := "default"
	switch permissionMode {
	case "acceptEdits":
		mode = "auto_edit"
	case "plan":
		mode = "plan"
	case "auto", "dontAsk", "bypassPermissions":
		mode = "yolo"
	}
	argv = append(argv, "--approval-mode", mode)
	if model != "" {
		argv = append(argv, "-m", model)
	}
	return append(argv, args...)
}

// HasSession reports whether Gemini CLI stored a session in home (a file
// under .gemini/tmp/<project>/chats/), which ResumeArgv resumes.
func HasSession(home string) bool {
	m, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*"))
	return len(m) > 0
}

// HomeEnv names the folder Gemini CLI takes for the user's home (its
// .gemini/ inside).
const HomeEnv = "GEMINI_CLI_HOME"

// Env is what a member's Gemini CLI runs with besides its home: the
// member's folder trusted (else its trust dialog, whose Esc exits).
var Env = []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}

// Unset are the variables Gemini CLI must not see: with CI set 0.61.0 does
// not start its terminal UI, and the pane ends at once (docs/gemini.md).
var Unset = []string{"CI", "CONTINUOUS_INTEGRATION"}

// A Hook is the command Gemini CLI runs at the start and end of each turn
// (its BeforeAgent and AfterAgent hooks) and the variables it runs with.
type Hook struct {
	Argv []string          // the program and its arguments
	Env  map[string]string // set for it, whatever Gemini CLI passes on
}

// MakeHome makes home a Gemini CLI home of the member's own, from the
// user's (userHome: $GEMINI_CLI_HOME, else $HOME), never changing the
// user's: its .gemini/settings.json (how it logs in; with hook, when not
// nil, added to its BeforeAgent and AfterAgent hooks) and its OAuth login, each written
// atomically, 0600, in 0700 folders.
func MakeHome(home, userHome string, hook *Hook) error {
	dot := filepath.Join(home, ".gemini")
	if err := agenthome.Folder(home); err != nil {
		return err
	}
	if err := agenthome.Folder(dot); err != nil {
		return err
	}
	settings, err := agenthome.ReadUser(filepath.Join(userHome, ".gemini", "settings.json"))
	if err != nil {
		return err
	}
	if settings == nil {
		settings = []byte("{}\n")
	}
	if hook != nil {
		if settings, err = withHook(settings, *hook); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(userHome, ".gemini", "settings.json"), err)
		}
	}
	if err := agenthome.Write(filepath.Join(dot, "settings.json"), settings); err != nil {
		return err
	}
	return agenthome.CopyIfThere(filepath.Join(userHome, ".gemini", "oauth_creds.json"), filepath.Join(dot, "oauth_creds.json"))
}

// UserHome is the user's Gemini CLI home: $GEMINI_CLI_HOME, else $HOME.
func UserHome(getenv func(string) string) string {
	if h := getenv(HomeEnv); h != "" {
		return h
	}
	return getenv("HOME")
}

// hookName names teamctl's hook in settings.json, so that a home made again
// from itself holds it once.
const hookName = "teamctl"

// HookEvents are the Gemini CLI hooks teamctl's hook is set for: a turn's
// start (BeforeAgent: the member works) and its end (AfterAgent: idle).
var HookEvents = []string{"BeforeAgent", "AfterAgent"}

// withHook is settings (a JSON object) with hook among its hooks of each of
// HookEvents, every other setting and hook kept. Gemini CLI runs a hook's command
// through the shell, so hook's argv is written as one shell word each.
func withHook(settings []byte, hook Hook) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(settings, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("teamctl adds its hook to it, and it is not a JSON object: %v", err)
	}
	hooks, _ := obj["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	words := make([]string, len(hook.Argv))
	for i, a := range hook.Argv {
		words[i] = shellWord(a)
	}
	ours := map[string]any{"name": hookName, "type": "command", "command": strings.Join(words, " ")}
	if len(hook.Env) > 0 {
		ours["env"] = hook.Env
	}
	for _, event := range HookEvents {
		var groups []any
		for _, g := range asList(hooks[event]) {
			if gm, ok := g.(map[string]any); ok {
				var kept []any
				for _, h := range asList(gm["hooks"]) {
					if hm, ok := h.(map[string]any); !ok || hm["name"] != hookName {
						kept = append(kept, h)
					}
				}
				if len(kept) == 0 {
					continue
				}
				gm["hooks"] = kept
			}
			groups = append(groups, g)
		}
		hooks[event] = append(groups, map[string]any{"hooks": []any{ours}})
	}
	obj["hooks"] = hooks
	out, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func asList(v any) []any { l, _ := v.([]any); return l }

// shellWord is s as one word to a POSIX shell: in single quotes, each
// single quote in s ending the quoted part, escaped, and starting another.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// A TurnEnd is what Gemini CLI gives its BeforeAgent or AfterAgent hook on
// stdin.
type TurnEnd struct {
	Event    string `json:"hook_event_name"` // BeforeAgent or AfterAgent
	Prompt   string `json:"prompt"`          // the turn's prompt
	Response string `json:"prompt_response"` // the model's answer of the turn (AfterAgent's)
}

// Ended reports whether e says a turn ended (AfterAgent); else one started
// (BeforeAgent).
func (e TurnEnd) Ended() bool { return e.Event == "AfterAgent" }

// ParseHook reads the JSON Gemini CLI gives a hook; ok is false unless it
// says a turn started (BeforeAgent) or ended (AfterAgent).
func ParseHook(data []byte) (TurnEnd, bool) {
	var e TurnEnd
	err := json.Unmarshal(data, &e)
	return e, err == nil && slices.Contains(HookEvents, e.Event)
}

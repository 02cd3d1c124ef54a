package geminicli

import (
	"path/filepath"

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
	argv := append([]string{program}, programArgs...)
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
	argv = append(argv, args...)
	if prompt != "" {
		argv = append(argv, "-i", prompt)
	}
	return argv
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

// MakeHome makes home a Gemini CLI home of the member's own, from the
// user's (userHome: $GEMINI_CLI_HOME, else $HOME), never changing the
// user's: its .gemini/settings.json (how it logs in) and its OAuth login,
// each written atomically, 0600, in 0700 folders.
func MakeHome(home, userHome string) error {
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

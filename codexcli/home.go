package codexcli

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	argv := append([]string{program}, programArgs...)
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
	argv = append(argv, args...)
	if prompt != "" {
		argv = append(argv, "--", prompt)
	}
	return argv
}

// HomeEnv is the environment variable naming Codex's folder.
const HomeEnv = "CODEX_HOME"

// MakeHome makes home a Codex folder of the member's own, from the user's
// (userHome: $CODEX_HOME, else ~/.codex), never changing the user's: its
// config.toml with dir trusted (else Codex stops at its trust screen), and
// its auth.json (the login), each written atomically, 0600, in a 0700
// folder. A config that already trusts dir is taken as it is.
func MakeHome(home, userHome, dir string) error {
	if err := agenthome.Folder(home); err != nil {
		return err
	}
	config, err := agenthome.ReadUser(filepath.Join(userHome, "config.toml"))
	if err != nil {
		return err
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

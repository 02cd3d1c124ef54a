package layouts

import (
	"fmt"
	"strconv"
	"strings"
)

// StarterSpec says what a starter layout (`teamctl init`) is for.
type StarterSpec struct {
	Team      string // a valid team name (TeamNameFrom)
	Worktrees bool   // the teammates get worktrees: the folder is in a git repository with a commit
	// StandIn is the teamctl whose stand-in the members run instead of
	// Claude Code ("" for Claude Code itself).
	StandIn string
}

// TeamNameFrom makes a team name out of a folder's name: lower case, every
// run of characters outside [a-z0-9] one "-", no "-" at either end, at most
// 40 characters; "team" when nothing is left.
func TeamNameFrom(folder string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(folder) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	name := b.String()
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	if !nameRE.MatchString(name) {
		return "team"
	}
	return name
}

// Starter is a commented layout for a team of a lead and two teammates,
// alice and bob, as `teamctl init` writes it: the team env, each teammate in
// a worktree of its own (s.Worktrees), the watchdog's defaults spelled out.
// With s.StandIn the members run teamctl's stand-in, which needs no Claude
// Code and no API key, each with a script that shows what teamctl watches.
func Starter(s StarterSpec) []byte {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# A team for this repository, made by `teamctl init`. Bring it up with")
	w("# `teamctl up` (in this folder), watch it with `teamctl top`. Every field is")
	w("# in docs/layout.md; `teamctl validate` checks this file.")
	w("")
	w("team: %s  # 1-40 of a-z, 0-9 and -: the name of its tmux server and state", s.Team)
	w("description: What the team is for")
	w("root: .                        # where the team works: this file's folder")
	if s.StandIn != "" {
		w("")
		w("# The members run teamctl's stand-in for Claude Code: scripted agents that")
		w("# need no Claude Code and no API key (TEAMCTL_STANDIN_SCRIPT below; the")
		w("# steps are in docs/layout.md, \"The stand-in\"). Take this claude: out to")
		w("# run Claude Code itself.")
		w("claude:")
		w("  command: %s", strconv.Quote(s.StandIn))
		w("  args: [stand-in]")
	}
	w("")
	w("# The team's env, in every pane. Claude Code's agent teams need the first.")
	w("env:")
	w("  CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: \"1\"")
	w("")
	w("layout: main-vertical          # main-vertical | tiled | windows")
	w("")
	w("# The lead: a Claude Code session that leads the teammates (it gets its")
	w("# prompt as its first turn).")
	w("lead:")
	w("  prompt: Coordinate alice and bob; review what they do before it lands.")
	w("  permissionMode: manual       # acceptEdits | auto | bypassPermissions | manual | dontAsk | plan")
	if s.StandIn != "" {
		w("  env:")
		w("    TEAMCTL_STANDIN_SCRIPT: \"work:2s\"")
	}
	w("")
	w("# The teammates: Claude Code sessions that take their first prompt from")
	w("# their mailbox, as Claude Code's own teammates do.")
	w("members:")
	mate := func(name, color, prompt, script string) {
		w("  - name: %s", name)
		w("    color: %s", color)
		w("    prompt: %s", prompt)
		w("    permissionMode: acceptEdits")
		if s.Worktrees {
			w("    worktree: true             # its own git worktree, on branch teamctl/%s/%s from HEAD", s.Team, name)
		} else {
			w("    # worktree: true           # its own git worktree (in a git repository with a commit)")
		}
		if s.StandIn != "" {
			w("    env:")
			w("      TEAMCTL_STANDIN_SCRIPT: %s", strconv.Quote(script))
		}
	}
	mate("alice", "blue", "Describe alice's part of the work here.", "work:4s,ask")
	mate("bob", "green", "Describe bob's part of the work here.", "work:6s,bash:echo bob was here | tee bob.txt")
	w("  # A plain process runs beside them, as tmuxinator runs one (no shell):")
	w("  # - name: web")
	w("  #   command: [npm, run, dev]")
	w("  #   restart: always")
	w("")
	w("# The stall watchdog: a pane quiet this long is looked at for a question")
	w("# that waits for a person (these are its defaults).")
	w("watchdog:")
	w("  quiet: 2s")
	w("  defaults: true               # the built-in patterns: y/n prompts, Claude Code's dialogs")
	w("  # notify:")
	w("  #   command: [notify-send, teamctl]")
	return []byte(b.String())
}

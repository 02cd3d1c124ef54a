package launch

import (
	"os"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// TeamClaudeConfigDir is Claude Code's folder of team st, where teamctl reads and
// writes its team config, mailboxes and tasks (a relaunch gives its prompt
// there) and clean removes its folders: as up gives it to the lead
// (ClaudeConfigDir) from the team's layout and teamctl's own
// environment, else ($CLAUDE_CONFIG_DIR or ~/.claude) teamctl's environment
// alone when the layout cannot be read or is another team's. Never
// state.json's claude_config: anyone running as the user (a member's Bash
// tool) can write that file, and a folder taken from it would be where
// teamctl writes and what clean removes. "" when none can be told.
//
// The layout is read only when it is still the file up was given
// (state.Team.LayoutBytes: the same bytes, owned by the user, a regular
// file, so a FIFO put at its path cannot block this): a layout an agent
// wrote or edited does not choose the folder either. Reading that one file
// is the one thing in launch that is not pure: it is here because the
// answer is launch's own (ClaudeConfigDir), for clean, team and relaunch.
func TeamClaudeConfigDir(st *state.Team) string {
	if data, err := st.LayoutBytes(); err == nil {
		if l, err := layouts.ParseBytes(st.LayoutPath, data); err == nil && l.Team == st.Team {
			return ClaudeConfigDir(l, os.Getenv)
		}
	}
	d, _ := claudecode.ConfigDir()
	return d
}

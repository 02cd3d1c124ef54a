package layouts

import "strings"

// The keys the parser accepts. configs/layout.schema.json lists the same ones
// for editors; a test keeps the two in sync.
var (
	topKeys    = []string{"team", "description", "root", "claude", "env", "permissions", "layout", "lead", "members", "watchdog", "review", "worktrees", "trust", "budget", "limits", "agent", "agents", "hosts"}
	claudeKeys = []string{"command", "args"}
	// agentsKeys are the agent kinds other than Claude Code, each with
	// claudeKeys' command and args.
	agentsKeys = []string{AgentCodex, AgentGemini}
	// memberKeys serve both the lead and the teammates: teammateMode is
	// lead-only and command is teammate-only, but knowing them everywhere gives
	// a precise message instead of "unknown key".
	memberKeys = []string{
		"name", "agentType", "model", "color", "prompt", "planModeRequired",
		"permissionMode", "teammateMode", "cwd", "env", "args", "command", "restart", "permissions", "worktree", "budget", "agent", "host",
	}
	worktreeKeys = []string{"branch", "base"}
	// claudeOnlyKeys configure Claude Code, so they mean nothing for a member
	// that runs a plain command.
	claudeOnlyKeys = []string{"agentType", "model", "prompt", "planModeRequired", "permissionMode", "args", "permissions", "budget"}
	// claudeCodeOnlyKeys are what only Claude Code reads of claudeOnlyKeys:
	// a Codex or Gemini member takes a model, a prompt, a permissionMode
	// (mapped to its own approval options) and args.
	claudeCodeOnlyKeys = []string{"agentType", "planModeRequired", "permissions", "budget"}

	permissionsKeys = []string{"allow", "deny"}

	watchdogKeys     = []string{"quiet", "defaults", "patterns", "notify", "answer"}
	watchPatternKeys = []string{"name", "regex", "scope"}
	notifyKeys       = []string{"command", "lead"}
	answerKeys       = []string{"pattern", "keys", "option"}
	reviewKeys       = []string{"tellLead"}
	usageLimitKeys   = []string{"resume", "margin", "prompt"}
)

// didYouMean returns `; did you mean "X"?` for the known word closest to word,
// or "" when none is close enough to be a likely typo: at most 2 edits, and
// fewer for short words, where 2 edits turn "foo" into "root".
func didYouMean(word string, known []string) string {
	if len(word) > 64 {
		return "" // no key is that long; and the distance costs len(word) times a key's length
	}
	limit := min(2, len([]rune(word))/3)
	best, bestDist := "", limit+1
	for _, k := range known {
		// Case is ignored so that "Team" suggests "team".
		if d := editDistance(strings.ToLower(word), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return `; did you mean "` + best + `"?`
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// two neighbours (the commonest typo) that turn a into b: the optimal string
// alignment distance, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

package launch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
)

// hookSettings is the one --settings a Claude Code member starts with: teamctl's
// hooks (calling hookCommand), merged into the layout's own --settings when
// claude.args or the member's args set one, which is then taken out of those
// args (Claude Code takes a single --settings). Of several, the last wins, as in
// Claude Code. A settings file is read relative to the member's cwd (its
// worktree's, once Up has placed it there), where Claude Code would resolve it.
func hookSettings(programArgs []string, m layouts.Member, hookCommand string) (value string, outProgramArgs, outArgs []string, err error) {
	outProgramArgs, own, err1 := takeSettings(programArgs)
	outArgs, ownMember, err2 := takeSettings(m.Args)
	if err := errors.Join(err1, err2); err != nil {
		return "", nil, nil, fmt.Errorf("%s: %w", m.Name, err)
	}
	own = append(own, ownMember...)
	if len(own) == 0 {
		return claudecode.HookSettings(hookCommand), programArgs, m.Args, nil
	}
	data, file, err := claudecode.SettingsSource(own[len(own)-1], m.Cwd)
	if err == nil {
		value, err = claudecode.MergeHookSettings(data, hookCommand)
	}
	switch {
	case err != nil && file != "":
		return "", nil, nil, fmt.Errorf("%s: --settings file %s: %w", m.Name, file, err)
	case err != nil:
		return "", nil, nil, fmt.Errorf("%s: --settings (inline JSON): %w", m.Name, err)
	}
	return value, outProgramArgs, outArgs, nil
}

// takeSettings returns args without their --settings X / --settings=X, and the
// values, in order. It stops at "--", after which nothing is a flag.
func takeSettings(args []string) (rest, values []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), values, nil
		}
		if v, ok := strings.CutPrefix(a, "--settings="); ok {
			values = append(values, v)
			continue
		}
		if a != "--settings" {
			rest = append(rest, a)
			continue
		}
		if i+1 == len(args) {
			return nil, nil, errors.New("--settings needs a value: inline JSON or a file")
		}
		i++
		values = append(values, args[i])
	}
	return rest, values, nil
}

// CheckSettings reads every Claude Code member's own --settings, as Up would,
// and reports each that cannot be read or is not a JSON object.
func CheckSettings(l *layouts.Layout) error {
	var errs []error
	for _, m := range l.All() {
		if !m.IsClaude() {
			continue
		}
		if _, _, _, err := hookSettings(l.Claude.Args, m, "teamctl hook"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

package standin

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A step is one entry of TEAMCTL_STANDIN_SCRIPT.
type step struct {
	kind   string        // work, ask, permission, plan, busy, sleep, wait-for, exit, ignore-term, ignore-shutdown, idle, spawn, lines, prompt-at, bash, claim, teamctl
	dur    time.Duration // work, sleep; busy, idle and lines: 0 means forever
	text   string        // ask, prompt-at: the question; bash: the command; teamctl: its arguments
	code   int           // exit
	name   string        // spawn: the teammate's name
	script string        // spawn: the teammate's TEAMCTL_STANDIN_SCRIPT ("" for none), with commas
	rate   int           // lines: lines a second
	path   string        // prompt-at: the file that gets the time the question appeared; wait-for: the file waited for
}

const (
	defaultQuestion = "Overwrite? (y/n)"
	maxLineRate     = 10000 // lines a second; a faster ticker only drops ticks
)

// parseScript parses comma-separated steps such as "work:2s,ask,permission,exit:3".
// Empty entries are skipped. Steps after one that never ends (exit, busy, idle or
// lines without a duration) are an error, since they could never run.
//
// The steps:
//
//	work:DUR              a turn with the working spinner
//	ask[:TEXT]            a shell-style question ("Overwrite? (y/n)"), then reads the answer
//	permission            Claude Code's permission dialog ("1. Yes" … "3. No"), answered
//	                      as Claude Code's is: by a digit, arrows and Enter, or Esc
//	plan                  Claude Code's plan approval: two kinds of yes, no No
//	busy[:DUR]            a line every 100ms
//	sleep:DUR             nothing for DUR
//	wait-for:FILE         nothing until FILE exists (a test's go-ahead: a
//	                      condition, where a sleep would be a guess)
//	exit:N                exits with code N
//	ignore-term           ignores SIGTERM from now on
//	ignore-shutdown       answers no shutdown request from now on (as a teammate
//	                      whose model never does); until then a teammate
//	                      approves one at once, whatever step it is in, and ends
//	idle[:DUR]            the idle screen, taking turns
//	spawn:NAME[:SCRIPT]   a lead in tmux opens teammate NAME in a new pane, as Claude
//	                      Code's Agent tool does; SCRIPT is the teammate's script, with
//	                      ';' for ',' (spawn:helper:work:2s;ask)
//	lines:RATE[:DUR]      RATE lines of log output a second, evenly paced; with DUR,
//	                      RATE×DUR lines (which take longer on a busy machine)
//	prompt-at:FILE[:TEXT] like ask, and appends the time the question appeared
//	                      (RFC 3339 with ns) as a line to FILE, which cannot hold a
//	                      colon or a comma
//	bash:COMMAND          a teammate asks its lead for permission to run COMMAND with
//	                      its Bash tool (through the lead's inbox), waits for the
//	                      answer and, when allowed, runs it with /bin/sh -c
//	claim                 a lead claims its team here rather than at start-up (as a
//	                      slow Claude Code would)
//	teamctl:ARGS          runs this teamctl with ARGS (arguments split at '|') as a
//	                      child, as a lead's Bash tool runs a command:
//	                      teamctl:send|coder|please review (no permission asked)
func parseScript(s string) ([]step, error) {
	var steps []step
	for _, raw := range strings.Split(s, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if n := len(steps); n > 0 && endless(steps[n-1]) {
			return nil, fmt.Errorf("script step %q: never runs, it follows %q which does not end", raw, steps[n-1].kind)
		}
		kind, arg, hasArg := strings.Cut(raw, ":")
		st := step{kind: kind}
		var err error
		switch kind {
		case "work", "sleep":
			if !hasArg {
				return nil, fmt.Errorf("script step %q: needs a duration, like %s:2s", raw, kind)
			}
			st.dur, err = parseDur(arg)
		case "busy", "idle":
			if hasArg {
				st.dur, err = parseDur(arg)
				if err == nil && st.dur == 0 {
					err = fmt.Errorf("a duration of 0; leave out %q to mean forever", ":"+arg)
				}
			}
		case "ask":
			st.text = defaultQuestion
			if hasArg {
				if arg == "" {
					err = fmt.Errorf("empty question")
				}
				st.text = arg
			}
		case "exit":
			st.code, err = strconv.Atoi(arg)
			if err != nil || st.code < 0 || st.code > 255 {
				err = fmt.Errorf("needs an exit code from 0 to 255, like exit:3")
			}
		case "spawn":
			err = parseSpawn(&st, arg)
		case "lines":
			err = parseLines(&st, arg, hasArg)
		case "prompt-at":
			path, text, hasText := strings.Cut(arg, ":")
			st.path, st.text = path, defaultQuestion
			switch {
			case path == "":
				err = fmt.Errorf("needs a file, like prompt-at:/tmp/prompts.log")
			case hasText && text == "":
				err = fmt.Errorf("empty question")
			case hasText:
				st.text = text
			}
		case "wait-for":
			st.path = arg
			if arg == "" {
				err = fmt.Errorf("needs a file, like wait-for:/tmp/go")
			}
		case "bash":
			if strings.TrimSpace(arg) == "" {
				err = fmt.Errorf("needs a command, like bash:ls -l")
			}
			st.text = arg
		case "teamctl":
			if strings.TrimSpace(arg) == "" {
				err = fmt.Errorf("needs arguments split at '|', like teamctl:send|coder|please review")
			}
			st.text = arg
		case "permission", "plan", "ignore-term", "ignore-shutdown", "claim":
			if hasArg {
				err = fmt.Errorf("takes no argument")
			}
		default:
			err = fmt.Errorf("unknown step (want work:DUR, ask[:TEXT], permission, plan, busy[:DUR], sleep:DUR, wait-for:FILE, exit:N, " +
				"ignore-term, ignore-shutdown, idle[:DUR], spawn:NAME[:SCRIPT], lines:RATE[:DUR], prompt-at:FILE[:TEXT], bash:COMMAND, claim, teamctl:ARGS)")
		}
		if err != nil {
			return nil, fmt.Errorf("script step %q: %w", raw, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// parseSpawn reads spawn's NAME[:SCRIPT]. The teammate's script is checked here, so
// that a mistake in it shows at once and not in a pane that opens later.
func parseSpawn(st *step, arg string) error {
	name, script, hasScript := strings.Cut(arg, ":")
	st.name = name
	if !validTeammateName(name) {
		return fmt.Errorf("needs a teammate name of a-z, 0-9 and -, like spawn:helper or spawn:helper:work:2s;ask")
	}
	if !hasScript {
		return nil
	}
	if strings.TrimSpace(script) == "" {
		return fmt.Errorf("empty script; leave out %q for none", ":")
	}
	st.script = strings.ReplaceAll(script, ";", ",")
	if _, err := parseScript(st.script); err != nil {
		return fmt.Errorf("the teammate's script: %w", err)
	}
	return nil
}

func validTeammateName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// parseLines reads lines' RATE[:DUR].
func parseLines(st *step, arg string, hasArg bool) error {
	rate, dur, hasDur := strings.Cut(arg, ":")
	var err error
	st.rate, err = strconv.Atoi(rate)
	if !hasArg || err != nil || st.rate < 1 || st.rate > maxLineRate {
		return fmt.Errorf("needs a rate of 1 to %d lines a second, like lines:50:30s", maxLineRate)
	}
	if hasDur {
		if st.dur, err = parseDur(dur); err != nil {
			return err
		}
		if st.dur == 0 {
			return fmt.Errorf("a duration of 0; leave out %q to mean forever", ":"+dur)
		}
	}
	return nil
}

func endless(s step) bool {
	return s.kind == "exit" || (s.kind == "busy" || s.kind == "idle" || s.kind == "lines") && s.dur == 0
}

func parseDur(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %s", s)
	}
	return d, nil
}

package standin

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A step is one entry of TEAMCTL_STANDIN_SCRIPT.
type step struct {
	kind string        // work, ask, permission, busy, sleep, exit, ignore-term, idle
	dur  time.Duration // work, sleep; busy and idle: 0 means forever
	text string        // ask: the question
	code int           // exit
}

const defaultQuestion = "Overwrite? (y/n)"

// parseScript parses comma-separated steps such as "work:2s,ask,permission,exit:3".
// Empty entries are skipped. Steps after one that never ends (exit, busy or idle
// without a duration) are an error, since they could never run.
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
		case "permission", "ignore-term":
			if hasArg {
				err = fmt.Errorf("takes no argument")
			}
		default:
			err = fmt.Errorf("unknown step (want work:DUR, ask[:TEXT], permission, busy[:DUR], sleep:DUR, exit:N, ignore-term, idle[:DUR])")
		}
		if err != nil {
			return nil, fmt.Errorf("script step %q: %w", raw, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func endless(s step) bool {
	return s.kind == "exit" || (s.kind == "busy" || s.kind == "idle") && s.dur == 0
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

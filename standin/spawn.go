package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/layouts"
)

const tmuxTimeout = 10 * time.Second

// teammate is what a lead passes to a teammate it spawns.
type teammate struct {
	name, team, color, parentSessionID string
	script                             string // its TEAMCTL_STANDIN_SCRIPT, "" for none
}

// spawn opens teammate name in a new pane of the tmux server the lead runs in and
// records it in the lead's team config, as Claude Code's Agent tool does for a lead
// started with --teammate-mode tmux inside tmux: split-window beside the lead's pane
// (running this executable's stand-in with the teammate flags), the pane titled with
// the name, then a member with the pane's id added to config.json. Anything that
// stops it shows as an error line; the script goes on.
func (a *agent) spawn(ctx context.Context, name, script string) {
	pane, err := a.spawnTeammate(ctx, name, script)
	if err != nil {
		a.println(fmt.Sprintf("stand-in: spawn @%s: %v", name, err))
	}
	if pane != "" {
		a.last = []string{fmt.Sprintf("Spawned teammate @%s in pane %s", name, pane)}
		a.println(a.last[0])
	}
}

// spawnTeammate does spawn's work. It returns the new pane's id once there is one,
// with an error if the title or the config could not be set.
func (a *agent) spawnTeammate(ctx context.Context, name, script string) (pane string, err error) {
	switch {
	case a.teamConfig == "":
		return "", errors.New("only a lead (--session-id, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1) spawns teammates")
	case a.o.teammateMode == "in-process":
		return "", errors.New("--teammate-mode in-process opens no panes")
	}
	socket, leadPane, err := tmuxFromEnv()
	if err != nil {
		return "", err
	}
	if names, err := memberNames(a.teamConfig); err != nil {
		return "", err
	} else if slices.Contains(names, name) {
		return "", fmt.Errorf("the team has a member of that name already")
	}
	exe, err := a.executable()
	if err != nil {
		return "", err
	}
	tm := teammate{
		name:            name,
		team:            a.team,
		color:           layouts.Colors[a.spawned%len(layouts.Colors)],
		parentSessionID: a.sid,
		script:          script,
	}
	out, err := runTmux(ctx, splitArgs(socket, leadPane, exe, tm)...)
	if err != nil {
		return "", err
	}
	a.spawned++
	pane = strings.TrimSpace(out)
	if !strings.HasPrefix(pane, "%") {
		return "", fmt.Errorf("tmux split-window printed %q, not a pane id", out)
	}
	var errs []error
	if _, err := runTmux(ctx, "-S", socket, "select-pane", "-t", pane, "-T", name); err != nil {
		errs = append(errs, err)
	}
	cwd, _ := os.Getwd()
	if err := addMember(a.teamConfig, tmuxMember(tm, pane, cwd, time.Now())); err != nil {
		errs = append(errs, err)
	}
	return pane, errors.Join(errs...)
}

// tmuxFromEnv finds the tmux server and pane the stand-in runs in.
func tmuxFromEnv() (socket, pane string, err error) {
	v, pane := os.Getenv("TMUX"), os.Getenv("TMUX_PANE")
	if v == "" || pane == "" {
		return "", "", errors.New("not inside tmux ($TMUX or $TMUX_PANE is not set)")
	}
	socket, err = tmuxSocket(v)
	return socket, pane, err
}

// tmuxSocket takes the socket path out of $TMUX, which is SOCKETPATH,PID,SESSION.
// The path may hold commas itself, so it is everything before the last two.
func tmuxSocket(v string) (string, error) {
	if i := strings.LastIndexByte(v, ','); i > 0 {
		if j := strings.LastIndexByte(v[:i], ','); j > 0 {
			return v[:j], nil
		}
	}
	return "", fmt.Errorf("$TMUX is %q, not SOCKETPATH,PID,SESSION", v)
}

// splitArgs are tmux's arguments that open tm's pane beside the lead's, printing
// its id. The command is several arguments, so tmux runs it without a shell. Like
// Claude Code, it sets no remain-on-exit and no environment beyond these.
func splitArgs(socket, leadPane, exe string, tm teammate) []string {
	args := []string{"-S", socket, "split-window", "-d", "-t", leadPane, "-P", "-F", "#{pane_id}",
		"-e", "CLAUDECODE=1", "-e", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}
	if tm.script != "" {
		args = append(args, "-e", "TEAMCTL_STANDIN_SCRIPT="+tm.script)
	}
	return append(args, exe, "stand-in",
		"--agent-id", tm.name+"@"+tm.team, "--agent-name", tm.name, "--team-name", tm.team,
		"--agent-color", tm.color, "--parent-session-id", tm.parentSessionID)
}

func runTmux(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		verb := ""
		if len(args) > 2 {
			verb = args[2] // after -S SOCKET
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("tmux %s: %w: %s", verb, err, msg)
		}
		return "", fmt.Errorf("tmux %s: %w", verb, err)
	}
	return stdout.String(), nil
}

// member is a teammate's entry in config.json, its fields in Claude Code's order.
type member struct {
	AgentID       string   `json:"agentId"`
	Name          string   `json:"name"`
	AgentType     string   `json:"agentType"`
	JoinedAt      int64    `json:"joinedAt"`
	TmuxPaneID    string   `json:"tmuxPaneId"`
	Cwd           string   `json:"cwd"`
	Subscriptions []string `json:"subscriptions"`
	BackendType   string   `json:"backendType"`
	Color         string   `json:"color"`
}

func tmuxMember(tm teammate, pane, cwd string, now time.Time) member {
	return member{
		AgentID: tm.name + "@" + tm.team, Name: tm.name, AgentType: "general-purpose",
		JoinedAt: now.UnixMilli(), TmuxPaneID: pane, Cwd: cwd,
		Subscriptions: []string{}, BackendType: "tmux", Color: tm.color,
	}
}

// memberNames lists the names of a team config's members. It decodes no more than
// it needs, so that fields it does not know cannot make it fail.
func memberNames(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("team config: %w", err)
	}
	var cfg struct {
		Members []struct {
			Name string `json:"name"`
		} `json:"members"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("team config %s: %w", path, err)
	}
	var names []string
	for _, m := range cfg.Members {
		names = append(names, m.Name)
	}
	return names, nil
}

// addMember appends m to the members of the team config at path, keeping every
// other field and member as it is, in its order (claudecode.TeamConfig would drop
// fields it does not know), and replaces the file atomically.
func addMember(path string, m member) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("team config: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("team config: %w", err)
	}
	fields, err := objectFields(data)
	if err != nil {
		return fmt.Errorf("team config %s: %w", path, err)
	}
	i := slices.IndexFunc(fields, func(f field) bool { return f.key == "members" })
	if i < 0 {
		fields = append(fields, field{key: "members"})
		i = len(fields) - 1
	}
	var members []json.RawMessage
	if fields[i].value != nil {
		if err := json.Unmarshal(fields[i].value, &members); err != nil {
			return fmt.Errorf("team config %s: members: %w", path, err)
		}
	}
	entry, err := marshal(m)
	if err != nil {
		return err
	}
	if fields[i].value, err = marshal(append(members, entry)); err != nil {
		return err
	}
	var obj bytes.Buffer
	obj.WriteByte('{')
	for j, f := range fields {
		if j > 0 {
			obj.WriteByte(',')
		}
		key, err := marshal(f.key)
		if err != nil {
			return err
		}
		obj.Write(key)
		obj.WriteByte(':')
		obj.Write(f.value)
	}
	obj.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, obj.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("team config %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, out.Bytes(), fi.Mode().Perm())
}

// A field is one name and value of a JSON object.
type field struct {
	key   string
	value json.RawMessage
}

// objectFields splits a JSON object into its fields, in the order they come.
func objectFields(data []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var f field
		f.key, _ = tok.(string) // Token guarantees a string key inside an object
		if err := dec.Decode(&f.value); err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return fields, nil
}

// marshal is json.Marshal without HTML escapes (a cwd may hold '&').
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Package standin is a stand-in for Claude Code: a program that draws screens like
// Claude Code's (idle prompt, working spinner, permission dialog, shell questions),
// reads turns from its terminal and, as a teammate, from its inbox, and writes the
// lead's team config like Claude Code does. teamctl's demo and tests run it in tmux
// panes where Claude Code would run.
//
// Its behaviour is driven by Claude Code's own flags and two variables:
// TEAMCTL_STANDIN_SCRIPT (comma-separated steps run at start-up, see parseScript;
// TEAMCTL_STANDIN_RESUME_SCRIPT instead when started with --resume, if set)
// and TEAMCTL_STANDIN_WORK (the length of a turn, default 1s). A lead in tmux can
// spawn teammates into new panes of its tmux server as Claude Code does (see spawn).
package standin

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/claudecode"
)

// VersionText is what the stand-in answers to --version, as `claude
// --version` answers: teamctl doctor knows the stand-in by it.
const VersionText = "teamctl stand-in (not Claude Code)"

// Main runs the stand-in with args (Claude Code's flags and an optional prompt) and
// returns its exit code. It runs until a script step exits, a teammate takes a
// shutdown request (in whatever step) or a signal ends the process; the end of
// stdin does not end it, as a tmux pane's stdin never ends.
func Main(args []string, stdin io.Reader, stdout io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--version" || a == "-v" {
			// As `claude --version` answers (teamctl doctor asks), saying what it is.
			fmt.Fprintln(stdout, VersionText)
			return 0
		}
	}
	return run(context.Background(), args, stdin, stdout)
}

const (
	ruleWidth  = 60 // at most; narrower panes get rules as wide as they are
	spinGlyphs = "·✢✳✶✻✽"
	inboxPoll  = 200 * time.Millisecond
	spinEvery  = 100 * time.Millisecond
)

type agent struct {
	o       options
	out     io.Writer
	in      io.Reader     // stdin: a terminal in a pane, put in key mode for a dialog
	input   <-chan string // what is typed, as it arrives; nil once stdin has ended
	pending string        // typed and not yet taken
	work    time.Duration
	inbox   string     // a teammate's inbox, "" for a lead
	lead    string     // a teammate's lead's inbox (team-lead.json), "" for a lead
	stop    bool       // a teammate took a shutdown request: the run ends
	last    []string   // the last turn's lines, shown on the idle screen
	parked  bool       // the cursor sits on the idle screen's input line
	errMsg  string     // the last inbox error shown, to show each only once
	wake    *inboxWake // changes of inbox, nil when not watched

	sid        string                 // a lead's session id, "" for a teammate
	teamConfig string                 // a lead's team config.json, "" when it has none
	team       string                 // the team a lead claimed
	spawned    int                    // teammates spawned so far, for their colours
	executable func() (string, error) // the teamctl binary that spawned teammates run

	// ignoreShutdown: shutdown requests are not answered (an ignore-shutdown
	// step); read by watchShutdown's goroutine too.
	ignoreShutdown atomic.Bool
}

// run is Main with a context, so tests can stop it; it returns 0 when ctx ends.
func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) int {
	a := &agent{o: parseFlags(args), out: stdout, in: stdin, work: time.Second, executable: os.Executable}
	script := "TEAMCTL_STANDIN_SCRIPT"
	if a.o.resume != "" && os.Getenv("TEAMCTL_STANDIN_RESUME_SCRIPT") != "" {
		// A resumed conversation does not do its work again: tests say what
		// it does instead.
		script = "TEAMCTL_STANDIN_RESUME_SCRIPT"
	}
	steps, err := parseScript(os.Getenv(script))
	if err != nil {
		fmt.Fprintf(stdout, "stand-in: %s: %v\n", script, err)
		return 2
	}
	if w := os.Getenv("TEAMCTL_STANDIN_WORK"); w != "" {
		if a.work, err = parseDur(w); err != nil {
			fmt.Fprintf(stdout, "stand-in: TEAMCTL_STANDIN_WORK: %v\n", err)
			return 2
		}
	}
	// The script's leading ignore-term and ignore-shutdown hold from the first
	// screen on: run later, a request sent as soon as the banner shows could be
	// taken by the shutdown watch before them.
	for len(steps) > 0 && (steps[0].kind == "ignore-term" || steps[0].kind == "ignore-shutdown") {
		a.do(ctx, steps[0])
		steps = steps[1:]
	}
	a.clear()
	a.setUp(slices.ContainsFunc(steps, func(s step) bool { return s.kind == "claim" }))
	a.input = readInput(ctx, stdin)
	if a.inbox != "" {
		a.wake = watchInbox(ctx, a.inbox)
	}
	if a.o.prompt != "" {
		a.turn(ctx, []string{"❯ " + a.o.prompt}, a.work)
	}
	// Messages already waiting are taken in order, a shutdown request among them
	// after the turns before it.
	a.checkInbox(ctx)
	if a.stop {
		return 0
	}
	// From here a shutdown request ends whatever a teammate is doing.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var shutdown <-chan claudecode.ShutdownRequest
	if a.inbox != "" {
		shutdown = a.watchShutdown(sctx, cancel)
	}
	code := a.runSteps(sctx, steps)
	cancel()
	if shutdown == nil {
		return code
	}
	// The watch has ended once its channel is closed, so a request it took is
	// never lost.
	if req, ok := <-shutdown; ok && ctx.Err() == nil {
		a.shutDown(ctx, req)
		return 0
	}
	return code
}

// runSteps runs the script, then the idle screen; it returns the code of an
// exit step, else 0 once ctx ends or a shutdown request was taken.
func (a *agent) runSteps(ctx context.Context, steps []step) int {
	for _, s := range steps {
		if ctx.Err() != nil || a.stop {
			return 0
		}
		if s.kind == "exit" {
			a.unpark()
			return s.code
		}
		a.do(ctx, s)
	}
	if !a.stop && ctx.Err() == nil {
		a.idle(ctx, 0)
	}
	return 0
}

func (a *agent) do(ctx context.Context, s step) {
	a.unpark()
	switch s.kind {
	case "work":
		a.turn(ctx, nil, s.dur)
	case "ask":
		fmt.Fprint(a.out, s.text+" ")
		a.answer(ctx)
	case "prompt-at":
		a.promptAt(ctx, s.text, s.path)
	case "permission":
		a.permission(ctx)
	case "plan":
		a.plan(ctx)
	case "busy":
		a.busy(ctx, s.dur)
	case "sleep":
		wait(ctx, s.dur)
	case "wait-for":
		waitFor(ctx, s.path)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "ignore-shutdown":
		a.ignoreShutdown.Store(true)
	case "idle":
		a.idle(ctx, s.dur)
	case "spawn":
		a.spawn(ctx, s.name, s.script)
	case "lines":
		a.logLines(ctx, s.rate, s.dur)
	case "bash":
		a.bash(ctx, s.text)
	case "teamctl":
		a.runTeamctl(ctx, s.text)
	case "claim":
		if a.sid != "" && a.teamConfig == "" {
			a.claim()
		}
	}
}

// answer reads the answer to a question the screen shows.
func (a *agent) answer(ctx context.Context) {
	if l, ok := a.readLine(ctx); ok {
		a.last = []string{"answered: " + l}
		a.println(a.last[0])
	}
}

// promptAt asks like ask and, as soon as the question is written, appends the time
// as an RFC 3339 line to path, so that a benchmark knows when the prompt appeared.
// The file is opened before the question is written, to keep that gap small; an
// error writing it shows after the answer, so as not to hide the question.
func (a *agent) promptAt(ctx context.Context, question, path string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		a.println("stand-in: prompt-at: " + err.Error())
	}
	// The time just before the question is written: nothing can see it
	// earlier, so a latency measured from it is never below the truth.
	at := time.Now()
	fmt.Fprint(a.out, question+" ")
	if f != nil {
		_, err = f.WriteString(at.Format(time.RFC3339Nano) + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	a.answer(ctx)
	if f != nil && err != nil {
		a.println("stand-in: prompt-at: " + err.Error())
	}
}

// logMessages are what logLines prints, in turn, after a time of day.
var logMessages = []string{"build step %d ok", "test shard %d passed", "fetched chunk %d (4096 bytes)", "compiled unit %d ok"}

// logLines prints rate lines of plausible log output a second, paced by a ticker:
// rate×d of them (d 0: until ctx ends). The count is what was asked, not what
// fits in d: a ticker on a busy machine falls behind, and the lines then take
// longer than d.
func (a *agent) logLines(ctx context.Context, rate int, d time.Duration) {
	total := int(float64(rate) * d.Seconds())
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for n := 1; d == 0 || n <= total; n++ {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			a.println(now.Format("15:04:05.000 ") + fmt.Sprintf(logMessages[(n-1)%len(logMessages)], n))
		}
	}
}

func (a *agent) println(s string) { fmt.Fprintln(a.out, s) }

// clear starts a new screen with the header line.
func (a *agent) clear() {
	a.parked = false
	name := a.o.agentName
	if name == "" {
		name = "lead"
	}
	model := a.o.model
	if model == "" {
		model = "default"
	}
	fmt.Fprint(a.out, "\x1b[H\x1b[2J")
	a.println(fmt.Sprintf("✻ Claude Code (stand-in) · %s · model %s", name, model))
	a.println("")
}

// unpark moves the cursor from the idle screen's input line to below the footer,
// so that what follows does not overwrite the screen.
func (a *agent) unpark() {
	if a.parked {
		fmt.Fprint(a.out, "\x1b[2B\r\n")
		a.parked = false
	}
}

// turn shows head (the prompt or message) and works for d.
func (a *agent) turn(ctx context.Context, head []string, d time.Duration) {
	a.clear()
	for _, l := range head {
		a.println(l)
	}
	glyphs := []rune(spinGlyphs)
	tick := time.NewTicker(spinEvery)
	defer tick.Stop()
	done := time.After(d)
	start := time.Now()
spin:
	for i := 0; ; i++ {
		fmt.Fprintf(a.out, "\r\x1b[K%c Working… (esc to interrupt)", glyphs[i%len(glyphs)])
		select {
		case <-ctx.Done():
			return
		case <-done:
			break spin
		case <-tick.C:
		}
	}
	worked := fmt.Sprintf("✻ Worked for %ds", int(time.Since(start)/time.Second))
	fmt.Fprint(a.out, "\r\x1b[K"+worked+"\n")
	a.last = append(head[:len(head):len(head)], worked)
	a.notifyIdle(ctx)
}

// idle shows the idle screen and takes turns from stdin and the inbox, for d
// (0: until ctx ends).
func (a *agent) idle(ctx context.Context, d time.Duration) {
	var until <-chan time.Time
	if d > 0 {
		until = time.After(d)
	}
	poll := time.NewTicker(inboxPoll)
	defer poll.Stop()
	a.drawIdle()
	a.typedTurns(ctx) // lines typed while it was busy
	for {
		select {
		case <-ctx.Done():
			return
		case <-until:
			return
		case in, open := <-a.input:
			if !open {
				a.input = nil
				continue
			}
			a.pending += in
			a.typedTurns(ctx)
		case <-poll.C:
		case <-a.wake.C():
		}
		if a.checkInbox(ctx) && !a.stop {
			a.drawIdle()
		}
		if a.stop {
			return
		}
	}
}

// typedTurns takes a turn for each whole line typed, back at the idle screen
// after each.
func (a *agent) typedTurns(ctx context.Context) {
	for {
		l, ok := a.nextLine()
		if !ok {
			return
		}
		a.turn(ctx, []string{"❯ " + l}, a.work)
		a.drawIdle()
	}
}

func (a *agent) drawIdle() {
	a.clear()
	for _, l := range a.last {
		a.println(l)
	}
	a.println("")
	width := a.ruleWidth()
	top := strings.Repeat("─", width)
	if a.o.agentName != "" {
		label := "──── @" + a.o.agentName + " "
		top = label + strings.Repeat("─", max(4, width-len([]rune(label))))
	}
	a.println(top)
	a.println("❯ ")
	a.println(strings.Repeat("─", width))
	if a.o.permissionMode == "manual" {
		a.println("⏸ manual mode on · ? for shortcuts")
	} else {
		a.println("⏵⏵ auto mode on (shift+tab to cycle)")
	}
	// Park the cursor after "❯ " so that typing shows on the input line.
	fmt.Fprint(a.out, "\x1b[3A\r\x1b[2C")
	a.parked = true
}

// checkInbox takes a teammate's unread messages, marks them read and makes each a
// turn. It reports whether there were any.
func (a *agent) checkInbox(ctx context.Context) bool {
	if a.inbox == "" {
		return false
	}
	msgs, err := claudecode.ReadMailbox(a.inbox)
	if err == nil && !hasUnread(msgs) {
		return false
	}
	var unread []claudecode.Message
	if err == nil {
		uctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = claudecode.UpdateMailbox(uctx, a.inbox, func(msgs []claudecode.Message) ([]claudecode.Message, error) {
			for i := range msgs {
				if !msgs[i].Read {
					unread = append(unread, msgs[i])
					msgs[i].Read = true
				}
			}
			return msgs, nil
		})
		cancel()
	}
	if err != nil {
		if err.Error() != a.errMsg {
			a.errMsg = err.Error()
			a.unpark()
			a.println("stand-in: inbox: " + a.errMsg)
		}
		return false
	}
	a.errMsg = ""
	for _, m := range unread {
		if v, ok := claudecode.ParseProtocol(m.Text); ok {
			if req, ok := v.(claudecode.ShutdownRequest); ok {
				if a.ignoreShutdown.Load() {
					a.unpark()
					a.println("Shutdown request ignored: " + req.Reason)
					continue
				}
				a.shutDown(ctx, req)
				return true
			}
		}
		head := append([]string{"Message from @" + m.From + ":"}, strings.Split(m.Text, "\n")...)
		a.turn(ctx, head, a.work)
	}
	return len(unread) > 0
}

func hasUnread(msgs []claudecode.Message) bool {
	for _, m := range msgs {
		if !m.Read {
			return true
		}
	}
	return false
}

// busy prints a line every 100ms for d (0: until ctx ends), never going idle.
func (a *agent) busy(ctx context.Context, d time.Duration) {
	var until <-chan time.Time
	if d > 0 {
		until = time.After(d)
	}
	tick := time.NewTicker(spinEvery)
	defer tick.Stop()
	for n := 1; ; n++ {
		a.println(fmt.Sprintf("busy: output line %d", n))
		select {
		case <-ctx.Done():
			return
		case <-until:
			return
		case <-tick.C:
		}
	}
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// waitFor returns once path exists (or ctx ends), looking every 50 ms.
func waitFor(ctx context.Context, path string) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Lstat(path); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// ruleWidth fits the rules to the pane, so a narrow pane does not wrap them.
func (a *agent) ruleWidth() int {
	if f, ok := a.out.(*os.File); ok {
		if _, cols, err := pty.Getsize(f); err == nil && cols > 8 && cols < ruleWidth {
			return cols
		}
	}
	return ruleWidth
}

// runTeamctl runs this teamctl (the stand-in is teamctl) with args (split
// at '|') as a child of the stand-in, as a lead's Bash tool runs `teamctl
// send …`: the command runs in the lead's process tree, which is how teamctl
// tells the lead asked. Its output goes to the screen.
func (a *agent) runTeamctl(ctx context.Context, args string) {
	self, err := os.Executable()
	if err != nil {
		a.println("stand-in: teamctl: " + err.Error())
		return
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, self, strings.Split(args, "|")...)
	cmd.Stdout, cmd.Stderr = a.out, a.out
	if err := cmd.Run(); err != nil {
		a.println("stand-in: teamctl " + strings.ReplaceAll(args, "|", " ") + ": " + err.Error())
	}
	a.last = []string{"Ran: teamctl " + strings.ReplaceAll(args, "|", " ")}
}

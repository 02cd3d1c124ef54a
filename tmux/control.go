package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Notification is one line tmux sends a control client outside a command's
// reply: %output, %layout-change, %window-add, %subscription-changed, %exit, ….
type Notification struct {
	Kind string // the word after "%", e.g. "output", "layout-change"
	Pane string // %N, for "output" and "subscription-changed" (when about a pane)
	Data []byte // for "output": the pane's bytes, octal escapes decoded
	Name string // for "subscription-changed": the subscription's name
	Args string // the rest of the line (for "subscription-changed": the value after " : ")
}

// Control is one control-mode client (tmux -C) attached to a session: it sends
// commands and reads their replies, and it delivers every notification —
// pane output as it happens, layout changes, subscription updates — on Notes.
type Control struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	notes chan Notification

	kick     chan struct{} // a command was sent: stop gathering output, read its reply
	coalesce time.Duration // see ControlOptions.Coalesce

	mu      sync.Mutex
	pending []chan reply // replies arrive in the order commands were sent
	closed  bool
	done    chan struct{}
	err     error
}

type reply struct {
	lines []string
	err   error
}

// ControlBuffer is how many notifications may wait for the reader before the
// control client's reader blocks (and tmux buffers for us).
const ControlBuffer = 4096

// Control attaches a control-mode client to the session target names (an
// exact target: SessionTarget(name), or a session id $N). It returns once tmux
// has attached it (so commands have a current client), or an error at ctx's
// deadline. The client lives until Close or until the server goes.
func (s *Server) Control(ctx context.Context, target string) (*Control, error) {
	return s.ControlWith(ctx, target, ControlOptions{})
}

// ControlOptions are how a control client reads.
type ControlOptions struct {
	// Coalesce is how long the reader lets pane output pile up once it has
	// read all there was (0: DefaultCoalesce): tmux writes one %output line
	// per write, and waking for each line of a busy team costs far more than
	// the lines. The first output after a quiet spell is still read at once,
	// so stall detection loses nothing; and a command's reply is read at once
	// too (see gather). A screen drawn at 30 frames a second can gather longer.
	Coalesce time.Duration
}

// DefaultCoalesce is ControlOptions.Coalesce's default.
const DefaultCoalesce = 20 * time.Millisecond

// ControlWith is Control with o.
func (s *Server) ControlWith(ctx context.Context, target string, o ControlOptions) (*Control, error) {
	if o.Coalesce <= 0 {
		o.Coalesce = DefaultCoalesce
	}
	argv := s.argv("-u", "-N", "-L", s.Socket, "-C", "attach-session", "-t", target) // no deadline: it lives until Close
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start tmux control client: %w", err)
	}
	c := &Control{cmd: cmd, stdin: stdin, notes: make(chan Notification, ControlBuffer), done: make(chan struct{}), kick: make(chan struct{}, 1), coalesce: o.Coalesce}
	attached := make(chan struct{})
	go c.read(stdout, attached)
	select {
	case <-attached:
		return c, nil
	case <-c.done:
		c.Close()
		return nil, fmt.Errorf("tmux control client for %s: %w (%s)", target, c.err, strings.TrimSpace(stderr.String()))
	case <-ctx.Done():
		c.Close()
		return nil, fmt.Errorf("tmux control client for %s: %w", target, ctx.Err())
	}
}

// Notes delivers notifications in order; it is closed when the client ends.
func (c *Control) Notes() <-chan Notification { return c.notes }

// Done is closed when the client has ended; Err then says why.
func (c *Control) Done() <-chan struct{} { return c.done }

// Err is why the client ended (nil while it runs).
func (c *Control) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Command sends one tmux command and returns the lines of its reply. It goes
// on the client's stdin, never on a command line, with every argument quoted
// for tmux's command parser (see quote), so any value arrives as it is and is
// seen by no other user. An error names the command, never its arguments.
func (c *Control) Command(ctx context.Context, args ...string) ([]string, error) {
	line := commandLine(args)
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("tmux control client closed")
	}
	c.pending = append(c.pending, ch)
	_, werr := io.WriteString(c.stdin, line+"\n")
	c.mu.Unlock()
	if werr != nil {
		return nil, fmt.Errorf("tmux control client: %w", werr)
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.lines, fmt.Errorf("tmux %s: %s", name, redact(r.err.Error(), envValues([][]string{args})))
		}
		return r.lines, nil
	case <-c.done:
		return nil, fmt.Errorf("tmux %s: control client ended: %w", name, c.err)
	case <-ctx.Done():
		return nil, fmt.Errorf("tmux %s: %w", name, ctx.Err())
	}
}

// Close detaches the client and waits (briefly) for it to end.
func (c *Control) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.stdin.Close() // tmux ends a control client whose input closes
	}
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}: // a reader gathering output reads on, to the end
	default:
	}
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
	return nil
}

// read parses tmux's output until it ends. Output is handed on as one
// notification per pane per batch, in order with everything else.
func (c *Control) read(r io.Reader, attached chan struct{}) {
	br := bufio.NewReaderSize(r, 64<<10)
	var block []string
	var blockID string // "TIME NUMBER" of the %begin whose reply is being read
	inBlock, ours := false, false
	signalled := false
	attach := func() {
		if !signalled {
			signalled = true
			close(attached)
		}
	}
	pending := map[string][]byte{}
	var order []string
	wait := time.NewTimer(time.Hour)
	wait.Stop()
	flush := func() {
		for _, id := range order {
			c.notes <- Notification{Kind: "output", Pane: id, Data: pending[id]}
			delete(pending, id)
		}
		order = order[:0]
	}
	var err error
	for {
		var line []byte
		line, err = readLine(br)
		if err != nil {
			break
		}
		if !inBlock && bytes.HasPrefix(line, []byte("%output ")) {
			if n, ok := parseNotification(line); ok {
				if _, seen := pending[n.Pane]; !seen {
					order = append(order, n.Pane)
				}
				pending[n.Pane] = append(pending[n.Pane], n.Data...)
			}
			if br.Buffered() == 0 {
				flush()
				c.gather(wait) // let the next writes gather (see ControlOptions.Coalesce)
			}
			continue
		}
		flush()
		if inBlock {
			if end, isErr := blockEnd(line, blockID); end {
				inBlock = false
				if ours {
					c.deliver(block, isErr)
				}
				block = nil
				continue
			}
			if ours {
				block = append(block, string(line))
			}
			continue
		}
		if bytes.HasPrefix(line, []byte("%begin ")) {
			inBlock, blockID = true, blockIdentity(line)
			ours = bytes.HasSuffix(line, []byte(" 1")) // flags: 1 = a command of this client
			continue
		}
		n, ok := parseNotification(line)
		if !ok {
			continue
		}
		switch n.Kind {
		case "session-changed":
			attach()
		case "exit":
			err = errors.New("tmux said %exit: " + n.Args)
		}
		c.notes <- n
		if n.Kind == "exit" {
			break
		}
	}
	flush()
	if err == nil || errors.Is(err, io.EOF) {
		err = errors.New("tmux control client ended")
	}
	c.cmd.Wait()
	c.mu.Lock()
	c.err, c.closed = err, true
	for _, ch := range c.pending {
		ch <- reply{err: err}
	}
	c.pending = nil
	c.mu.Unlock()
	close(c.notes)
	close(c.done)
}

// gather lets output pile up for the client's coalesce, or less when a
// command is sent meanwhile: a reply is never held up for the sake of output.
func (c *Control) gather(t *time.Timer) {
	t.Reset(c.coalesce)
	select {
	case <-t.C:
	case <-c.kick:
		t.Stop()
	}
}

func (c *Control) deliver(lines []string, isErr bool) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	ch := c.pending[0]
	c.pending = c.pending[1:]
	c.mu.Unlock()
	r := reply{lines: lines}
	if isErr {
		r.err = errors.New(strings.Join(lines, "; "))
	}
	ch <- r
}

// readLine reads one line without its newline, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// blockIdentity is the time and number of a %begin, %end or %error line
// ("%end 1363006971 2 1"): tmux gives the guard lines of one reply the same.
func blockIdentity(line []byte) string {
	f := strings.Fields(string(line))
	if len(f) < 3 {
		return ""
	}
	return f[1] + " " + f[2]
}

// blockEnd reports whether line ends the reply whose %begin had identity id.
// A line of the reply itself may look like "%end …" (a captured screen shows
// what a program printed), so only the matching time and number end it.
func blockEnd(line []byte, id string) (end, isErr bool) {
	switch {
	case bytes.HasPrefix(line, []byte("%end ")):
		return blockIdentity(line) == id, false
	case bytes.HasPrefix(line, []byte("%error ")):
		return blockIdentity(line) == id, true
	}
	return false, false
}

// parseNotification reads a notification line. The data of %output is copied,
// since the reader's buffer is reused.
func parseNotification(line []byte) (Notification, bool) {
	if len(line) < 2 || line[0] != '%' {
		return Notification{}, false
	}
	kind, rest, _ := bytes.Cut(line[1:], []byte(" "))
	n := Notification{Kind: string(kind)}
	switch n.Kind {
	case "output":
		pane, data, _ := bytes.Cut(rest, []byte(" "))
		n.Pane = string(pane)
		n.Data = DecodeOutput(data)
	case "extended-output":
		pane, more, _ := bytes.Cut(rest, []byte(" "))
		_, data, _ := bytes.Cut(more, []byte(" : "))
		n.Kind, n.Pane, n.Data = "output", string(pane), DecodeOutput(data)
	case "subscription-changed":
		// %subscription-changed NAME $S @W I %P : VALUE (pane fields "-" when not about a pane)
		head, value, _ := bytes.Cut(rest, []byte(" : "))
		f := strings.Fields(string(head))
		if len(f) > 0 {
			n.Name = f[0]
		}
		if len(f) > 4 && strings.HasPrefix(f[4], "%") {
			n.Pane = f[4]
		}
		n.Args = string(value)
	default:
		n.Args = string(rest)
	}
	return n, true
}

// DecodeOutput turns %output's escaping back into the pane's bytes: tmux writes
// bytes below 32 and the backslash as a backslash and three octal digits.
func DecodeOutput(data []byte) []byte {
	if bytes.IndexByte(data, '\\') < 0 {
		return append([]byte(nil), data...)
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\\' && i+3 < len(data) && isOctal(data[i+1]) && isOctal(data[i+2]) && isOctal(data[i+3]) {
			out = append(out, (data[i+1]-'0')<<6|(data[i+2]-'0')<<3|(data[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, c)
	}
	return out
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

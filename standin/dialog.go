package standin

import (
	"context"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// A menu is one of Claude Code's dialogs, drawn and answered as Claude Code
// 2.1.328 and 2.1.332 were seen to (docs/claude-code.md): keys, not lines —
// the arrows move the selection "❯", Enter chooses the selected option, a
// numbered menu's digit chooses its option at once, Esc (where the footer
// says so) chooses No; y, n and any other key do nothing. So `n Enter`
// chooses what is selected, as it does in Claude Code.
type menu struct {
	head    []string // the lines above the options
	options []string // as drawn, "1. Yes"
	footer  string
	digits  bool // a digit chooses its option
	esc     int  // the option Esc chooses; -1: Esc does nothing
}

// permissionDialog is Claude Code's dialog for a Bash command, as it draws it.
var permissionDialog = menu{
	head:    []string{" Bash command", "", "   rm -rf build/", "", " Do you want to proceed?"},
	options: []string{"1. Yes", "2. Yes, and always allow access to build/ from this project", "3. No"},
	footer:  " Esc to cancel · Tab to amend",
	digits:  true,
	esc:     2,
}

// planDialog is Claude Code's plan approval: two kinds of yes, no No, and the
// plan's own numbered steps above the options.
var planDialog = menu{
	head: []string{" Ready to code?", "", " Here is Claude's plan:", "   1. Clean the build", "   2. Run the tests", "",
		" Claude has written up a plan and is ready to execute. Would you like to proceed?"},
	options: []string{"1. Yes, and use auto mode", "2. Yes, manually approve edits", "3. Tell Claude what to change"},
	footer:  " ctrl+g to edit in Vim",
	digits:  true,
	esc:     -1,
}

func (a *agent) permission(ctx context.Context) {
	choice, ok := a.menu(ctx, permissionDialog)
	if !ok {
		return
	}
	a.last = []string{"Running…"}
	if choice == 2 {
		a.last = []string{"Denied"}
	}
	a.println(a.last[0])
}

func (a *agent) plan(ctx context.Context) {
	if choice, ok := a.menu(ctx, planDialog); ok {
		a.last = []string{"chose: " + planDialog.options[choice]}
		a.println(a.last[0])
	}
}

// menu shows mu and returns the option chosen (ok false when ctx ended).
// Once one is chosen the dialog goes, as Claude Code's does.
func (a *agent) menu(ctx context.Context, mu menu) (choice int, ok bool) {
	defer keyMode(a.in)()
	defer func() {
		if ok {
			a.clear()
		}
	}()
	sel := 0
	a.drawMenu(mu, sel)
	for {
		k, ok := a.key(ctx)
		if !ok {
			return 0, false
		}
		switch {
		case k == "\r" || k == "\n":
			return sel, true
		case k == "\x1b" && mu.esc >= 0:
			return mu.esc, true
		case k == "\x1b[A" && sel > 0:
			sel--
			a.drawMenu(mu, sel)
		case k == "\x1b[B" && sel < len(mu.options)-1:
			sel++
			a.drawMenu(mu, sel)
		case mu.digits && len(k) == 1 && k[0] >= '1' && int(k[0]-'1') < len(mu.options):
			return int(k[0] - '1'), true
		}
	}
}

func (a *agent) drawMenu(mu menu, sel int) {
	a.clear()
	for _, l := range mu.head {
		a.println(l)
	}
	for i, o := range mu.options {
		mark := "  "
		if i == sel {
			mark = "❯ "
		}
		a.println(" " + mark + o)
	}
	a.println("")
	fmt.Fprint(a.out, mu.footer)
}

// key takes one key from what was typed: an arrow's escape sequence, a lone
// Esc, or one character.
func (a *agent) key(ctx context.Context) (string, bool) {
	for a.pending == "" {
		if !a.more(ctx) {
			return "", false
		}
	}
	p := a.pending
	n := 1
	switch {
	case p[0] == 0x1b && len(p) >= 3 && (p[1] == '[' || p[1] == 'O'):
		n = 3
	case p[0] != 0x1b:
		_, n = utf8.DecodeRuneInString(p)
	}
	a.pending = p[n:]
	return p[:n], true
}

// keyMode puts a terminal on stdin in the mode Claude Code reads its dialogs
// in, key by key and not echoed, and returns what puts it back. Anything but
// a terminal (a pipe, in tests) is left as it is.
func keyMode(in io.Reader) (restore func()) {
	f, ok := in.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(fd, unix.TCSETS, &raw) != nil {
		return func() {}
	}
	return func() { unix.IoctlSetTermios(fd, unix.TCSETS, old) }
}

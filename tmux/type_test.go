package tmux

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestTypeLongTextArrivesWhole: a 200 KiB text (over the kernel's 128 KiB
// for one argument, where send-keys failed "argument list too long" and the
// lead's message was lost) arrives in the pane whole, in order, followed by
// its Enter, and no paste buffer is left holding it; a short one as before.
func TestTypeLongTextArrivesWhole(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "got")
	// -icanon: the terminal's line editor would cut a line at 4 KiB.
	s, ctx := histServer(t, "type", "sh", "-c", `stty -icanon -echo && exec cat > "$0"`, out)
	testenv.Eventually(t, time.Minute, "cat to start", func() (bool, string) {
		outp, _ := s.Run(ctx, "display-message", "-p", "-t", "%0", "#{pane_current_command}")
		return strings.TrimSpace(outp) == "cat", outp
	})
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "word%06d ", i)
	}
	long := b.String() + "END"
	short := "short text"
	for _, text := range []string{short, long} {
		if err := s.Type(ctx, "%0", text); err != nil {
			t.Fatalf("Type %d bytes: %v", len(text), err)
		}
	}
	want := short + "\n" + long + "\n"
	testenv.Eventually(t, time.Minute, "the text in the file", func() (bool, string) {
		got, _ := os.ReadFile(out)
		return len(got) >= len(want), fmt.Sprintf("%d of %d bytes", len(got), len(want))
	})
	got, _ := os.ReadFile(out)
	if string(got) != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%d bytes arrived, want %d; they differ at byte %d", len(got), len(want), i)
	}
	if bufs, _ := s.Run(ctx, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(bufs, "teamctl-type") {
		t.Errorf("a paste buffer left: %q", bufs)
	}
}

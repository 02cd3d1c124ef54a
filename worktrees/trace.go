package worktrees

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// tracer, when set (SetTrace), gets one line per git command run: its
// arguments, its wall time and its processor time (user+system, from the
// process's own accounting), so that a benchmark's -v can say where a
// command's time goes. Arguments are paths, branch and ref names: no secret.
var tracer struct {
	mu sync.Mutex
	w  io.Writer
}

// SetTrace makes every git command this process runs from now on print a
// line to w ("trace git ARGS wall W ms cpu C ms"); nil stops it.
func SetTrace(w io.Writer) {
	tracer.mu.Lock()
	tracer.w = w
	tracer.mu.Unlock()
}

// trace prints cmd's line when tracing; ran is how long it took.
func trace(cmd *exec.Cmd, args []string, ran time.Duration) {
	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	if tracer.w == nil {
		return
	}
	var cpu time.Duration
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	fmt.Fprintf(tracer.w, "trace git %s  wall %.1f ms cpu %.1f ms\n", strings.Join(args, " "),
		float64(ran.Microseconds())/1000, float64(cpu.Microseconds())/1000)
}

package supervisor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// readsOf counts the reads of the file at path from now on (inotify's
// IN_ACCESS: the kernel queues one as the read happens, so what the daemon
// read by the time it returns is counted; a run of reads may come as one).
func readsOf(t *testing.T, path string) func() int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_ACCESS); err != nil {
		t.Fatal(err)
	}
	return func() int {
		n := 0
		buf := make([]byte, 64<<10)
		for {
			k, err := syscall.Read(fd, buf)
			if k <= 0 || err != nil {
				return n
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= k; n++ {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// TestOneFollowerPerTranscript: a member's transcript is read by one reader,
// its meter, which feeds both what it spends (budgets) and whether its last
// answer met a usage limit (limits): one offset over the file, so what the
// budgets' look read, the limits' look does not read again (the limits had
// a follower of their own, which read the whole file a second time), and
// what the limits' look read first is counted all the same.
func TestOneFollowerPerTranscript(t *testing.T) {
	w := limitWorld(t, "")
	m, _ := w.s.st.Member("mate")
	path := filepath.Join(w.s.claudeDir, "projects", "-work", m.SessionID+".jsonl")
	w.spend("mate", 2) // the budgets' look reads it (spendAs: changed(Transcripts))
	appendLine(t, path, `{"type":"assistant","isSidechain":false,"message":{"id":"x1","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}},"error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"apiErrorType":"rate_limit_error"}`)
	w.changed(filewatch.Transcripts)
	if got := w.usageOf("mate").Cost; got < 1.99 || got > 2.01 {
		t.Fatalf("the budgets see $%.2f spent, want $2", got)
	}

	reads := readsOf(t, path)
	w.output("%1", screenFile(t, "claude-idle.txt"))
	w.advance(quiet)
	if got := w.live("mate"); got.State != state.StateLimited {
		t.Fatalf("with a 429 last in the transcript: %+v, want limited", got)
	}
	if n := reads(); n != 0 {
		t.Errorf("the limits' look read the transcript again (%d reads) after the budgets' look had read it all: two readers of one file", n)
	}

	// An answer after it, read first by the limits' look: the limit ends,
	// and the budgets count it (the one reader's totals).
	appendLine(t, path, `{"type":"assistant","isSidechain":false,"message":{"id":"msg_ok","model":"claude-sonnet-4-5","usage":{"input_tokens":0,"output_tokens":100000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`)
	w.output("%1", screenFile(t, "claude-idle.txt")+" ")
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("after an answer in the transcript: %s, want idle", got)
	}
	w.changed(filewatch.Transcripts)
	if got := w.usageOf("mate").Cost; got < 3.49 || got > 3.51 {
		t.Errorf("the budgets see $%.2f spent, want $3.50 (the answer the limits read first counted too)", got)
	}

	// One follower of the file in all the daemon.
	followers := 0
	for _, mt := range w.s.spend.meters {
		for _, f := range mt.Files() {
			if f == path {
				followers++
			}
		}
	}
	if followers != 1 {
		t.Errorf("%d followers of %s, want 1", followers, path)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

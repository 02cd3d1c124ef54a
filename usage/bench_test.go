package usage

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/transcriptgen"
)

// BenchmarkFirstRead is bench/usage's timed part on 50 MB, for a profile
// (go test -bench FirstRead -cpuprofile): every member's first Update, the
// members read at once as ForTeam reads them. It also reports the process's
// CPU time per read (cpu-ms/op), steadier than the wall's on a shared
// machine.
func BenchmarkFirstRead(b *testing.B) {
	cfg := b.TempDir()
	ss, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 1, Sessions: 15, Turns: 100, Subagents: 1, PaddingBytes: 8000})
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64 // of transcripts, for MB/s
	filepath.Walk(filepath.Join(cfg, "projects"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			bytes += fi.Size()
		}
		return nil
	})
	b.SetBytes(bytes)
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	n := 0
	for b.Loop() {
		n++
		meters := make([]*Meter, len(ss))
		for i, s := range ss {
			if meters[i], err = NewMeter(cfg, []string{s.ID}, nil, time.Time{}); err != nil {
				b.Fatal(err)
			}
		}
		UpdateAll(meters, runtime.GOMAXPROCS(0))
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n)/1e6, "cpu-ms/op")
}

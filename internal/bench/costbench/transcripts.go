package costbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/transcriptgen"
)

// The transcripts' part: while the members print, the first
// Config.TranscriptMembers of them have their Claude Code transcripts grow
// (Config.Transcripts bytes a second each, whole lines every 100 ms, as Claude
// Code appends them; lines made by internal/transcriptgen), and the
// supervisor follows them (its usage meters). Its CPU in those windows, less
// its CPU in the windows interleaved with them (the same printing, no
// transcript growing), is what following the transcripts adds: the target is
// under targetTranscripts % of one core. Then, with Config.FollowedMB, that much
// more is appended to the members' transcripts at once, and once the
// supervisor has counted every response of it (live.json), its peak resident
// set (VmHWM) must be under targetRSS.
const (
	targetTranscripts = 0.5      // % of one core
	targetRSSKB       = 40 << 10 // 40 MiB
	writeEvery        = 100 * time.Millisecond
)

// transcriptWindow measures the supervisor (sup, its control client kid, the
// tmux server) while the members' transcripts grow, then the RSS check.
func transcriptWindow(ctx context.Context, cfg Config, w *world.World, log io.Writer, sup, kid, server int, hz int64) (*TranscriptReport, error) {
	sessions, err := sessionsOf(w)
	if err != nil {
		return nil, err
	}
	if n := cfg.TranscriptMembers; n > 0 && n < len(sessions) {
		sessions = sessions[:n]
	}
	tr := &TranscriptReport{Members: len(sessions), BytesPerSecond: cfg.Transcripts, TargetPercent: targetTranscripts}
	gen, err := generate(w, sessions, cfg.Transcripts*int(cfg.Duration/time.Second+1), 1)
	if err != nil {
		return nil, err
	}
	// Interleaved, in pairs of windows (transcripts still, then growing), so
	// that what else the machine does weighs on both alike.
	d := cfg.Duration / transcriptPairs
	fmt.Fprintf(log, "window 1b/3: supervisor, %d pairs of %s: transcripts still, then %d members' growing %d B/s each\n", transcriptPairs, d, len(sessions), cfg.Transcripts)
	var still, growing int64
	for i := 0; i < transcriptPairs; i++ {
		ticks, _, err := measure(ctx, d, nil, sup, kid)
		if err != nil {
			return nil, err
		}
		still += ticks[0] + ticks[1]
		ticks, _, err = measure(ctx, d, func(wctx context.Context) error {
			n, err := gen.streamFor(wctx, cfg.Transcripts)
			tr.Written += n
			return err
		}, sup, kid)
		if err != nil {
			return nil, err
		}
		growing += ticks[0] + ticks[1]
	}
	if n, err := gen.appendAll(); err != nil { // what is left of the lines made for the window
		return nil, err
	} else {
		tr.Written += n
	}
	tr.SupervisorAll = float64(growing) / float64(hz)
	tr.StillAll = float64(still) / float64(hz)
	tr.AddedPercent = 100 * (tr.SupervisorAll - tr.StillAll) / (cfg.Duration / transcriptPairs * transcriptPairs).Seconds()
	if tr.Responses, err = counted(ctx, w, gen.responses, time.Minute); err != nil {
		return nil, err
	}
	if cfg.FollowedMB <= 0 {
		return tr, nil
	}
	rest := int64(cfg.FollowedMB)<<20 - tr.Written
	fmt.Fprintf(log, "appending %d MB to the %d transcripts, for the supervisor's RSS\n", rest>>20, len(sessions))
	big, err := generate(w, sessions, int(rest)/len(sessions), 1000)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	n, err := big.appendAll()
	if err != nil {
		return nil, err
	}
	if tr.Responses, err = counted(ctx, w, gen.responses+big.responses, 10*time.Minute); err != nil {
		return nil, err
	}
	tr.FollowS = time.Since(start).Seconds()
	tr.FollowedMB = (tr.Written + n) >> 20
	kb, err := world.ProcStatusKBs(sup, "VmHWM", "VmRSS")
	if err != nil {
		return nil, err
	}
	tr.VmHWMKB, tr.VmRSSKB, tr.TargetRSSKB = kb["VmHWM"], kb["VmRSS"], targetRSSKB
	return tr, nil
}

// sessionsOf are the Claude Code sessions of the team's members, in the
// order of its state (the lead first), as up recorded them.
func sessionsOf(w *world.World) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(w.StateHome, "teamctl", team, "state.json"))
	if err != nil {
		return nil, err
	}
	var st struct {
		Members []struct {
			SessionID string `json:"session_id"`
		} `json:"members"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("state.json: %w", err)
	}
	var out []string
	for _, m := range st.Members {
		if m.SessionID != "" {
			out = append(out, m.SessionID)
		}
	}
	return out, nil
}

// transcripts are the members' transcripts being written: where each goes,
// and what is still to be written of its generated lines.
type transcripts struct {
	dst       []string
	src       [][]byte
	responses int // distinct responses written or to be written
}

// claudeDir is the world's Claude Code folder.
func claudeDir(w *world.World) string {
	for _, kv := range w.Env {
		if v, ok := bytes.CutPrefix([]byte(kv), []byte("CLAUDE_CONFIG_DIR=")); ok {
			return string(v)
		}
	}
	return ""
}

// generate makes size bytes (about) of transcript for each of sessions, in
// a folder of the world's, and returns them with where each is to go.
func generate(w *world.World, sessions []string, size int, seed uint64) (*transcripts, error) {
	src := filepath.Join(w.Dir, fmt.Sprintf("gen-%d", seed))
	t := &transcripts{}
	dst := filepath.Join(claudeDir(w), "projects", transcriptgen.EscapeCwd(w.Work))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return nil, err
	}
	for i, id := range sessions {
		// A turn comes to about 9 KB (2 KB of tool output, the rest the other lines).
		ss, err := transcriptgen.Write(src, transcriptgen.Options{Seed: seed + uint64(i), Sessions: 1, Turns: max(1, size/9000),
			Cwd: w.Work, FixedSessions: []string{id}})
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(ss[0].Main)
		if err != nil {
			return nil, err
		}
		os.Remove(ss[0].Main)
		t.src = append(t.src, b)
		t.dst = append(t.dst, filepath.Join(dst, id+".jsonl"))
		t.responses += ss[0].Responses
	}
	return t, nil
}

// transcriptPairs is how many pairs of windows the transcripts' measure
// takes.
const transcriptPairs = 3

// streamFor appends each transcript's lines at rate bytes a second, whole
// lines every writeEvery, until ctx ends (what is left stays for the next).
func (t *transcripts) streamFor(ctx context.Context, rate int) (written int64, err error) {
	files := make([]*os.File, len(t.dst))
	for i, p := range t.dst {
		if files[i], err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
			return written, err
		}
		defer files[i].Close()
	}
	budget := make([]int, len(t.dst))
	tick := time.NewTicker(writeEvery)
	defer tick.Stop()
	for {
		done := false
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
		}
		if done {
			return written, nil
		}
		for i, f := range files {
			budget[i] += rate / int(time.Second/writeEvery)
			n := bytes.LastIndexByte(t.src[i][:min(budget[i], len(t.src[i]))], '\n') + 1
			if n == 0 {
				continue
			}
			if _, err := f.Write(t.src[i][:n]); err != nil {
				return written, err
			}
			written += int64(n)
			budget[i] -= n
			t.src[i] = t.src[i][n:]
		}
	}
}

// appendAll appends every transcript's lines at once.
func (t *transcripts) appendAll() (written int64, err error) {
	for i, p := range t.dst {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return written, err
		}
		n, err := io.Copy(f, bytes.NewReader(t.src[i]))
		f.Close()
		written += n
		if err != nil {
			return written, err
		}
		t.src[i] = nil
	}
	return written, nil
}

// counted waits until the supervisor's live.json counts turns responses in
// all (every response written read), up to d.
func counted(ctx context.Context, w *world.World, turns int, d time.Duration) (int, error) {
	deadline := time.Now().Add(d)
	got := 0
	for {
		b, err := os.ReadFile(filepath.Join(w.StateHome, "teamctl", team, "live.json"))
		if err == nil {
			var l struct {
				Usage map[string]struct {
					Turns int `json:"turns"`
				} `json:"usage"`
			}
			if json.Unmarshal(b, &l) == nil {
				got = 0
				for _, u := range l.Usage {
					got += u.Turns
				}
				if got == turns {
					return got, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return got, fmt.Errorf("the supervisor counted %d responses, %d were written, after %s", got, turns, d)
		}
		if err := world.Sleep(ctx, 100*time.Millisecond); err != nil { // poll interval: live.json changes at most once a second
			return got, err
		}
	}
}

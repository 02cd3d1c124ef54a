package state

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/teamctl/teamctl/internal/safefile"
)

// The supervisor's log rotates by size: supervisor.log up to logMaxMiB, then
// renamed supervisor-<UTC time>.log; logBackups of those are kept.
const (
	logMaxMiB  = 8
	logBackups = 3
)

// OpenLog returns the writer for a background supervisor's log: the team's
// supervisor.log, rotated by size (lumberjack). lumberjack opens the file by
// name and would follow a symlink there, so the file is first made (or opened)
// here without following one: a link planted at supervisor.log is refused.
// (Links planted later, in the user's own 0700 folder, are the user's own.)
func OpenLog(team string) (io.WriteCloser, error) {
	dir, err := EnsureDir(team)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "supervisor.log")
	f, err := safefile.Open(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("supervisor log: %w", err)
	}
	f.Close()
	return &lumberjack.Logger{Filename: p, MaxSize: logMaxMiB, MaxBackups: logBackups}, nil
}

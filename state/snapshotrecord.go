package state

import "path/filepath"

// snapshotRecord is the folder, in the state root, of the record of the
// repositories teamctl took snapshots in (worktrees.SnapshotRecord): a
// dot, so no team's name.
const snapshotRecord = ".snapshots"

// SnapshotRecordDir is that folder (worktrees.SnapshotRecord's Dir); with
// create, the state root is made first, so that the folder can be.
func SnapshotRecordDir(create bool) (string, error) {
	if create {
		if err := EnsureRoot(); err != nil {
			return "", err
		}
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, snapshotRecord), nil
}

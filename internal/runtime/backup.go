package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BackupResult describes a backup Backup wrote.
type BackupResult struct {
	// Path is the backup file: Options.BackupDir joined with its name.
	Path string
	// Bytes is the size of the file.
	Bytes int64
	// Started is when the copy began; Took is how long it took.
	Started time.Time
	Took    time.Duration
}

// maxBackupName bounds the length of a backup file name.
const maxBackupName = 200

// Backup writes a consistent copy of the database into the file name inside
// Options.BackupDir (POST /api/v1/admin/backup) while instances keep
// running, and answers once the copy is complete, checked and synced. An
// empty name picks "gobpm-<UTC time>.db". The name is a plain file name —
// no directory part, no leading dot, letters, digits, '.', '_' and '-'
// only — so a caller can write nowhere but the backup directory, and an
// existing file is never overwritten (ECONFLICT). ECONFLICT too when the
// runtime has no backup directory; EINVALID for a bad name.
func (r *Runtime) Backup(ctx context.Context, name string) (BackupResult, error) {
	if r.backupDir == "" {
		return BackupResult{}, &Error{Code: ECONFLICT, Message: "backups through the API are off: start the server with --backup-dir DIR (or run 'gobpm-web backup --db FILE --to FILE')"}
	}
	// Backups are named by the wall clock, not the runtime's (possibly
	// manual) one: they are the machine's housekeeping.
	started := time.Now().UTC()
	if name == "" {
		name = "gobpm-" + started.Format("20060102T150405.000Z") + ".db"
	}
	if err := checkBackupName(name); err != nil {
		return BackupResult{}, err
	}
	if err := os.MkdirAll(r.backupDir, 0o750); err != nil {
		return BackupResult{}, fmt.Errorf("runtime: backup directory %s: %w", r.backupDir, err)
	}
	path := filepath.Join(r.backupDir, name)
	if err := r.store.Backup(ctx, path); err != nil {
		return BackupResult{}, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return BackupResult{}, fmt.Errorf("runtime: backup %s: %w", path, err)
	}
	res := BackupResult{Path: path, Bytes: info.Size(), Started: started, Took: time.Since(started)}
	r.log.Info("backup written", "path", path, "bytes", res.Bytes, "took", res.Took)
	return res, nil
}

// checkBackupName refuses a backup file name that is not a plain name.
func checkBackupName(name string) error {
	bad := func(why string) error {
		return &Error{Code: EINVALID, Field: "to", Message: fmt.Sprintf("backup name %q %s: give a plain file name such as gobpm-2025-03-01.db; the file is written into the server's --backup-dir", name, why)}
	}
	switch {
	case len(name) > maxBackupName:
		return bad(fmt.Sprintf("is longer than %d characters", maxBackupName))
	case strings.HasPrefix(name, "."):
		return bad("starts with a dot")
	case strings.HasSuffix(name, ".partial"):
		return bad("ends in .partial, the suffix of copies being written")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return bad(fmt.Sprintf("contains %q", c))
		}
	}
	return nil
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// Numeric keys (store.KeyStore, migration 0017): one entity_keys row per
// keyed entity, written by the statement that creates the entity's row,
// in its transaction, and deleted with it.
const (
	// insertKeySQL gives an entity the next key unless it has one: an
	// entity written again (a job that failed and waits for its retry, an
	// incident resolved) keeps its key, and the counter moves only for a
	// new one (an INSERT … ON CONFLICT would move it every time).
	// Arguments: kind, id.
	insertKeySQL = `INSERT INTO entity_keys (kind, id) SELECT ?1, ?2
		WHERE NOT EXISTS (SELECT 1 FROM entity_keys WHERE kind = ?1 AND id = ?2)`
	// deleteKeySQL drops the key of one entity. Arguments: kind, id.
	deleteKeySQL = `DELETE FROM entity_keys WHERE kind = ? AND id = ?`
	// deleteWaitKeySQL drops the key of a removed wait, a job or a user
	// task (two probes of the (kind, id) index; any other wait has none).
	// Arguments: id.
	deleteWaitKeySQL = `DELETE FROM entity_keys WHERE kind IN (2, 3) AND id = ?`
	// deleteInstanceWaitKeysSQL drops the keys of every job and user task
	// of an instance, before its waits go. Arguments: instanceArgs.
	deleteInstanceWaitKeysSQL = `DELETE FROM entity_keys WHERE kind IN (2, 3) AND id IN
		(SELECT id FROM waits WHERE ` + ofInstance + ` AND kind IN ('job', 'task'))`
	// deleteIncidentKeysSQL drops the keys of the incidents of an
	// instance, before they go. Arguments: instance id.
	deleteIncidentKeysSQL = `DELETE FROM entity_keys WHERE kind = 4 AND id IN
		(SELECT id FROM incidents WHERE instance_id = ?)`
	// keyOfSQL finds an entity's key by the (kind, id) index.
	keyOfSQL = `SELECT key FROM entity_keys WHERE kind = ? AND id = ?`
	// byKeySQL finds the entity of a key by the primary key; a key of
	// another kind matches no row.
	byKeySQL = `SELECT id FROM entity_keys WHERE key = ? AND kind = ?`
)

func init() {
	writeQueries = append(writeQueries, insertKeySQL, deleteKeySQL, deleteWaitKeySQL, deleteInstanceWaitKeysSQL,
		deleteIncidentKeysSQL)
	readQueries = append(readQueries, keyOfSQL, byKeySQL)
}

// keyID is the id of an entity of kind as entity_keys stores it: as the
// entity's own table stores its id (dbID for instances and waits, text for
// the others), so that the deletions can select the ids from that table.
func keyID(kind store.KeyKind, id string) any {
	switch kind {
	case store.KeyInstance, store.KeyJob, store.KeyUserTask:
		return dbID(id)
	default:
		return id
	}
}

// assignKey gives the entity of kind with id a key in st's transaction,
// unless it has one.
func assignKey(st *txStmts, kind store.KeyKind, id string) error {
	if _, err := st.exec(insertKeySQL, int(kind), keyID(kind, id)); err != nil {
		return fmt.Errorf("numeric key of %s %s: %w", kind, id, err)
	}
	return nil
}

// assignWaitKey gives w a key if it is a job or a user task.
func assignWaitKey(st *txStmts, w *store.WaitRow) error {
	if kind, ok := store.KeyKindOfWait(w.Kind); ok {
		return assignKey(st, kind, w.ID)
	}
	return nil
}

// NumericKey returns the key of the entity of kind whose id is id; a
// wrapped store.ErrNotFound when it has none.
func (db *DB) NumericKey(ctx context.Context, kind store.KeyKind, id string) (int64, error) {
	if !kind.Valid() {
		return 0, store.UnknownKeyKind(kind)
	}
	var key int64
	err := db.readOne(ctx).queryRow(keyOfSQL, int(kind), keyID(kind, id)).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: numeric key of %s %s: %w", kind, id, store.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: numeric key of %s %s: %w", kind, id, err)
	}
	return key, nil
}

// NumericKeys returns the keys of the entities of kind among ids in one
// statement (a probe of the (kind, id) index per id); ids without a key
// are absent.
func (db *DB) NumericKeys(ctx context.Context, kind store.KeyKind, ids []string) (map[string]int64, error) {
	if !kind.Valid() {
		return nil, store.UnknownKeyKind(kind)
	}
	out := make(map[string]int64, len(ids))
	for start := 0; start < len(ids); start += maxKeyArgs {
		chunk := ids[start:min(start+maxKeyArgs, len(ids))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, int(kind))
		for _, id := range chunk {
			args = append(args, keyID(kind, id))
		}
		query := `SELECT id, key FROM entity_keys WHERE kind = ? AND id IN (?` + strings.Repeat(", ?", len(chunk)-1) + `)`
		rows, err := db.readOne(ctx).query(query, args...)
		if err != nil {
			return nil, fmt.Errorf("store: numeric keys of %d %ss: %w", len(ids), kind, err)
		}
		for rows.Next() {
			var (
				id  string
				key int64
			)
			if err := rows.Scan(idDest(&id), &key); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: numeric keys of %ss: %w", kind, err)
			}
			out[id] = key
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: numeric keys of %ss: %w", kind, err)
		}
	}
	return out, nil
}

// maxKeyArgs bounds the ids of one NumericKeys statement (SQLite's limit
// on host parameters is far above it).
const maxKeyArgs = 500

// ByNumericKey returns the id of the entity of kind whose key is key; a
// wrapped store.ErrNotFound for a key of no entity or of another kind.
func (db *DB) ByNumericKey(ctx context.Context, kind store.KeyKind, key int64) (string, error) {
	if !kind.Valid() {
		return "", store.UnknownKeyKind(kind)
	}
	var id string
	err := db.readOne(ctx).queryRow(byKeySQL, key, int(kind)).Scan(idDest(&id))
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: %s of numeric key %d: %w", kind, key, store.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: %s of numeric key %d: %w", kind, key, err)
	}
	return id, nil
}

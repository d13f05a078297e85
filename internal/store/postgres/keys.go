package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
)

// Numeric keys (store.KeyStore, migration 0010): one entity_keys row per
// keyed entity, written by the statement batch or transaction that creates
// the entity's row and deleted with it. The keys come from the sequence
// entity_keys_seq, which every node draws from.
const (
	// insertKeySQL gives an entity the next key unless it has one: an
	// entity written again (a job that failed and waits for its retry, an
	// incident resolved) keeps its key, and the sequence moves only for a
	// new one (its nextval is evaluated only for a row the SELECT yields).
	// ON CONFLICT covers two transactions racing to key one entity.
	// Arguments: kind, id.
	insertKeySQL = `INSERT INTO entity_keys (kind, id) SELECT $1::smallint, $2::text
		WHERE NOT EXISTS (SELECT 1 FROM entity_keys WHERE kind = $1::smallint AND id = $2::text)
		ON CONFLICT (kind, id) DO NOTHING`
	// deleteKeySQL drops the key of one entity. Arguments: kind, id.
	deleteKeySQL = `DELETE FROM entity_keys WHERE kind = $1 AND id = $2`
	// deleteWaitKeySQL drops the key of a removed wait, a job or a user
	// task (any other wait has none). Arguments: id.
	deleteWaitKeySQL = `DELETE FROM entity_keys WHERE kind IN (2, 3) AND id = $1`
	// deleteWaitKeysSQL drops the keys of an array of removed waits.
	// Argument: ids.
	deleteWaitKeysSQL = `DELETE FROM entity_keys WHERE kind IN (2, 3) AND id = ANY ($1::text[])`
	// deleteInstanceWaitKeysSQL drops the keys of every job and user task
	// of an instance, before its waits go. Arguments: instance id.
	deleteInstanceWaitKeysSQL = `DELETE FROM entity_keys WHERE kind IN (2, 3) AND id IN
		(SELECT id FROM waits WHERE instance_id = $1 AND kind IN ('job', 'task'))`
	// deleteIncidentKeysSQL drops the keys of the incidents of an
	// instance, before they go. Arguments: instance id.
	deleteIncidentKeysSQL = `DELETE FROM entity_keys WHERE kind = 4 AND id IN
		(SELECT id FROM incidents WHERE instance_id = $1)`
	// keyOfSQL finds an entity's key by the (kind, id) index.
	keyOfSQL = `SELECT key FROM entity_keys WHERE kind = $1 AND id = $2`
	// keysOfSQL finds the keys of several entities of a kind.
	keysOfSQL = `SELECT id, key FROM entity_keys WHERE kind = $1 AND id = ANY($2)`
	// byKeySQL finds the entity of a key by the primary key; a key of
	// another kind matches no row.
	byKeySQL = `SELECT id FROM entity_keys WHERE key = $1 AND kind = $2`
)

// queueWaitKey queues, in step i, the key of w if it is a job or a user
// task.
func queueWaitKey(sb *stepBatch, i int, w *store.WaitRow) {
	if kind, ok := store.KeyKindOfWait(w.Kind); ok {
		sb.exec(i, nil, insertKeySQL, int16(kind), w.ID)
	}
}

// NumericKey returns the key of the entity of kind whose id is id; a
// wrapped store.ErrNotFound when it has none.
func (db *DB) NumericKey(ctx context.Context, kind store.KeyKind, id string) (int64, error) {
	if !kind.Valid() {
		return 0, store.UnknownKeyKind(kind)
	}
	var key int64
	if err := db.pool.QueryRow(ctx, keyOfSQL, int16(kind), id).Scan(&key); err != nil {
		return 0, fmt.Errorf("postgres store: numeric key of %s %s: %w", kind, id, notFound(err))
	}
	return key, nil
}

// NumericKeys returns the keys of the entities of kind among ids in one
// query (a probe of the (kind, id) index per id); ids without a key are
// absent.
func (db *DB) NumericKeys(ctx context.Context, kind store.KeyKind, ids []string) (map[string]int64, error) {
	if !kind.Valid() {
		return nil, store.UnknownKeyKind(kind)
	}
	out := make(map[string]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.pool.Query(ctx, keysOfSQL, int16(kind), ids)
	if err != nil {
		return nil, fmt.Errorf("postgres store: numeric keys of %d %ss: %w", len(ids), kind, err)
	}
	var (
		id  string
		key int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &key}, func() error {
		out[id] = key
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres store: numeric keys of %ss: %w", kind, err)
	}
	return out, nil
}

// ByNumericKey returns the id of the entity of kind whose key is key; a
// wrapped store.ErrNotFound for a key of no entity or of another kind.
func (db *DB) ByNumericKey(ctx context.Context, kind store.KeyKind, key int64) (string, error) {
	if !kind.Valid() {
		return "", store.UnknownKeyKind(kind)
	}
	var id string
	if err := db.pool.QueryRow(ctx, byKeySQL, key, int16(kind)).Scan(&id); err != nil {
		return "", fmt.Errorf("postgres store: %s of numeric key %d: %w", kind, key, notFound(err))
	}
	return id, nil
}

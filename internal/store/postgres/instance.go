package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
)

// The statements of a step and of the instance reads.
const (
	// insertInstanceSQL creates an instance; no row comes back if the id exists.
	// Its number is the key's counter (raised for the whole batch by
	// bumpNumberSQL earlier in the transaction) less $13, the number of
	// instances of the key the batch creates after this one; $14 is the
	// committing node, the instance's home (migration 0020).
	insertInstanceSQL = `INSERT INTO instances (id, process_key, process_version, status, business_key, parent_id,
		    parent_node_id, created_at, updated_at, ended_at, revision, state, number, home_node)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
		    (SELECT last - $13 FROM instance_numbers WHERE process_key = $2), $14)
		ON CONFLICT (id) DO NOTHING
		RETURNING seq, number`
	// bumpNumberSQL raises the instance counter of a process key by the
	// number of instances of the key a batch creates ($2), locking the
	// key's row until the commit. Arguments: process key, count.
	bumpNumberSQL = `INSERT INTO instance_numbers (process_key, last) VALUES ($1, $2)
		ON CONFLICT (process_key) DO UPDATE SET last = instance_numbers.last + excluded.last`
	// updateInstanceSQL moves the mutable columns if the revision is still
	// the one the step was computed from. Under READ COMMITTED a
	// concurrent update of the row makes this one wait and then re-check
	// the revision, so two writers of one instance never both succeed.
	// The committing node ($10) becomes the instance's home (migration
	// 0020).
	updateInstanceSQL = `UPDATE instances SET status = $1, business_key = $2, updated_at = $3, ended_at = $4,
		    revision = $5, state = $6, process_version = $9, home_node = $10
		WHERE id = $7 AND revision = $8
		RETURNING seq`
	instanceRevisionSQL = `SELECT revision FROM instances WHERE id = $1`
	upsertPartSQL       = `INSERT INTO instance_parts (instance_seq, kind, key, ord, data) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (instance_seq, kind, key) DO UPDATE SET ord = excluded.ord, data = excluded.data`
	deletePartsSQL    = `DELETE FROM instance_parts WHERE instance_seq = $1`
	upsertIncidentSQL = `INSERT INTO incidents (id, instance_id, node_id, scope_id, kind, message, created_at, resolved_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO UPDATE SET node_id = excluded.node_id, scope_id = excluded.scope_id,
		    kind = excluded.kind, message = excluded.message, resolved_at = excluded.resolved_at
		WHERE incidents.instance_id = excluded.instance_id`
	replaceStateSQL = `UPDATE instances SET state = $1 WHERE id = $2 AND revision = $3 RETURNING seq`

	// instanceColumns selects an InstanceRow (scanInstance).
	instanceColumns = `id, process_key, process_version, status, business_key, parent_id, parent_node_id,
		created_at, updated_at, ended_at, revision, number, suspended`
	selectInstanceRowSQL = `SELECT ` + instanceColumns + ` FROM instances WHERE id = $1`
	selectStateSQL       = `SELECT seq, state, ` + instanceColumns + ` FROM instances WHERE id = $1`
	selectPartsSQL       = `SELECT kind, key, ord, data FROM instance_parts WHERE instance_seq = $1 ORDER BY kind, ord, key`
	runningSQL           = `SELECT ` + instanceColumns + ` FROM instances
		WHERE status IN ('running', 'failed') ORDER BY created_at, seq`
	historySQL = `SELECT f.seq, f.at, f.kind, f.node_id, f.scope_path, f.detail
		FROM facts f WHERE f.instance_seq = (SELECT seq FROM instances WHERE id = $1) AND f.seq > $2
		ORDER BY f.seq LIMIT $3`
	instanceExistsSQL = `SELECT 1 FROM instances WHERE id = $1`
)

// whyNotUpdated explains an update of instance id from revision prev that
// matched no row: the instance is gone or its revision moved on.
func whyNotUpdated(ctx context.Context, tx pgx.Tx, id store.InstanceID, prev int64) error {
	var rev int64
	err := tx.QueryRow(ctx, instanceRevisionSQL, string(id)).Scan(&rev)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("instance does not exist: %w", store.ErrConflict)
	case err != nil:
		// The transaction failed further on too: the revision check was
		// the first failure.
		return fmt.Errorf("revision %d is not current: %w: %w", prev, store.ErrStale, store.ErrConflict)
	default:
		// Another writer (another node) stepped the instance since the
		// step read it: the step may be re-run on the new state.
		return fmt.Errorf("revision %d is not current (%d): %w: %w", prev, rev, store.ErrStale, store.ErrConflict)
	}
}

// writeParts inserts or replaces parts of instance seq.
func writeParts(ctx context.Context, tx pgx.Tx, seq int64, parts []store.Part) error {
	for _, p := range parts {
		if p.Kind == "" {
			return fmt.Errorf("part %q has no kind", p.Key)
		}
		data := p.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := tx.Exec(ctx, upsertPartSQL, seq, p.Kind, p.Key, p.Ord, data); err != nil {
			return fmt.Errorf("write part %s/%s: %w", p.Kind, p.Key, err)
		}
	}
	return nil
}

// scanInstance reads the instanceColumns of a row, after the leading
// destinations lead.
func scanInstance(row pgx.Row, lead ...any) (store.InstanceRow, error) {
	var (
		in               store.InstanceRow
		id, parent       string
		created, updated int64
		ended, number    sql.NullInt64
	)
	dest := append(lead, &id, &in.ProcessKey, &in.ProcessVersion, &in.Status, &in.BusinessKey,
		&parent, &in.ParentNodeID, &created, &updated, &ended, &in.Revision, &number, &in.Suspended)
	if err := row.Scan(dest...); err != nil {
		return in, err
	}
	in.Number = number.Int64
	in.ID, in.ParentID = store.InstanceID(id), store.InstanceID(parent)
	in.CreatedAt = decodeTime(created)
	in.UpdatedAt = decodeTime(updated)
	in.EndedAt = sqlcodec.DecodeOptTime(ended)
	return in, nil
}

// Instance returns an instance with its whole state: the header and every
// part, ordered by kind, then Ord, then key. It returns a wrapped
// store.ErrNotFound if the instance does not exist.
func (db *DB) Instance(ctx context.Context, id store.InstanceID) (store.StoredInstance, error) {
	var si store.StoredInstance
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var (
			seq int64
			err error
		)
		si.InstanceRow, err = scanInstance(tx.QueryRow(ctx, selectStateSQL, string(id)), &seq, &si.Header)
		if err != nil {
			return notFound(err)
		}
		si.Parts, err = queryRows(ctx, tx, func(row pgx.Row) (store.Part, error) {
			var p store.Part
			err := row.Scan(&p.Kind, &p.Key, &p.Ord, &p.Data)
			if len(p.Data) == 0 {
				p.Data = nil // as written: empty data is no data
			}
			return p, err
		}, selectPartsSQL, seq)
		return err
	})
	if err != nil {
		return store.StoredInstance{}, fmt.Errorf("postgres store: instance %s: %w", id, err)
	}
	return si, nil
}

// InstanceRow returns the row of an instance without its state. It returns
// a wrapped store.ErrNotFound if the instance does not exist.
func (db *DB) InstanceRow(ctx context.Context, id store.InstanceID) (store.InstanceRow, error) {
	in, err := scanInstance(db.pool.QueryRow(ctx, selectInstanceRowSQL, string(id)))
	if err != nil {
		return store.InstanceRow{}, fmt.Errorf("postgres store: instance row %s: %w", id, notFound(err))
	}
	return in, nil
}

// LegacyInstances returns nothing: a PostgreSQL database never held the
// whole-checkpoint states of SQLite's migrations before 0005.
func (db *DB) LegacyInstances(ctx context.Context, limit int) ([]store.LegacyInstance, error) {
	return nil, nil
}

// ReplaceState writes the whole state of an instance as header and parts,
// replacing every part it had, without a step; the revision stays. It
// returns a wrapped store.ErrConflict if the instance's revision is no
// longer revision and a wrapped store.ErrNotFound if it does not exist.
func (db *DB) ReplaceState(ctx context.Context, id store.InstanceID, revision int64, header []byte, parts []store.Part) error {
	if header == nil {
		header = []byte{}
	}
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		err := tx.QueryRow(ctx, replaceStateSQL, header, string(id), revision).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			var rev int64
			if err := tx.QueryRow(ctx, instanceRevisionSQL, string(id)).Scan(&rev); err != nil {
				return notFound(err)
			}
			return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, deletePartsSQL, seq); err != nil {
			return err
		}
		if err := writeParts(ctx, tx, seq, parts); err != nil {
			return err
		}
		return reindexVariables(ctx, tx, seq, parts)
	})
	if err != nil {
		return fmt.Errorf("postgres store: replace state of instance %s: %w", id, err)
	}
	return nil
}

// RunningInstances returns the rows of every running or failed instance,
// oldest first (creation time, then the order the store received them).
func (db *DB) RunningInstances(ctx context.Context) ([]store.InstanceRow, error) {
	out, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.InstanceRow, error) { return scanInstance(row) }, runningSQL)
	if err != nil {
		return nil, fmt.Errorf("postgres store: running instances: %w", err)
	}
	return out, nil
}

// History returns the facts of an instance with Seq > afterSeq in Seq order,
// at most limit of them (0 means no limit). It returns a wrapped
// store.ErrNotFound if the instance does not exist.
func (db *DB) History(ctx context.Context, id store.InstanceID, afterSeq int64, limit int) ([]store.FactRow, error) {
	var out []store.FactRow
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (store.FactRow, error) {
			var (
				f      store.FactRow
				at     int64
				detail []byte
			)
			err := row.Scan(&f.Seq, &at, &f.Kind, &f.NodeID, &f.ScopePath, &detail)
			f.At = decodeTime(at)
			if len(detail) > 0 {
				f.Detail = detail
			}
			return f, err
		}, historySQL, string(id), afterSeq, limitArg(limit))
		if err == nil && len(out) == 0 {
			return instanceExists(ctx, tx, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: history of instance %s: %w", id, err)
	}
	return out, nil
}

// Incidents lists the incidents of an instance, only the unresolved ones if
// openOnly, oldest first. An empty id lists the open incidents of all
// instances. For a non-empty id it returns a wrapped store.ErrNotFound if
// the instance does not exist.
func (db *DB) Incidents(ctx context.Context, id store.InstanceID, openOnly bool) ([]store.IncidentRow, error) {
	return db.IncidentsPage(ctx, store.IncidentFilter{InstanceID: id, OpenOnly: openOnly})
}

// IncidentsPage lists incidents like Incidents, oldest first, after the
// incident f.After names (created at f.AfterAt) and at most f.Limit (0: no
// limit).
func (db *DB) IncidentsPage(ctx context.Context, f store.IncidentFilter) ([]store.IncidentRow, error) {
	id := f.InstanceID
	var (
		a     args
		where []string
	)
	if id != "" {
		where = append(where, "c.instance_id = "+a.add(string(id)))
	}
	if f.OpenOnly || id == "" {
		where = append(where, "c.resolved_at IS NULL")
	}
	if f.After != "" {
		where = append(where, "(c.created_at, c.id) > ("+a.add(encodeTime(f.AfterAt))+", "+a.add(f.After)+")")
	}
	// The instance's process key and number come in the same query.
	query := `SELECT c.id, c.instance_id, c.node_id, c.scope_id, c.kind, c.message, c.created_at, c.resolved_at,
			i.process_key, i.number
		FROM incidents c LEFT JOIN instances i ON i.id = c.instance_id` + whereClause(where) +
		` ORDER BY c.created_at, c.id LIMIT ` + a.add(limitArg(f.Limit))
	var out []store.IncidentRow
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (store.IncidentRow, error) {
			var (
				inc      store.IncidentRow
				inst     string
				created  int64
				resolved sql.NullInt64
				key      sql.NullString
				number   sql.NullInt64
			)
			err := row.Scan(&inc.ID, &inst, &inc.NodeID, &inc.ScopeID, &inc.Kind, &inc.Message, &created, &resolved, &key, &number)
			inc.ProcessKey, inc.InstanceNumber = key.String, number.Int64
			inc.InstanceID = store.InstanceID(inst)
			inc.CreatedAt = decodeTime(created)
			inc.ResolvedAt = sqlcodec.DecodeOptTime(resolved)
			return inc, err
		}, query, a...)
		if err == nil && len(out) == 0 && id != "" {
			return instanceExists(ctx, tx, id)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: incidents of instance %q: %w", id, err)
	}
	return out, nil
}

// instanceExists returns store.ErrNotFound unless the instance exists.
func instanceExists(ctx context.Context, q querier, id store.InstanceID) error {
	var one int
	return notFound(q.QueryRow(ctx, instanceExistsSQL, string(id)).Scan(&one))
}

// Parts returns at most limit parts (limit <= 0: all) of one kind of an
// instance with Ord > afterOrd, by Ord (then key), for inspecting what is
// stored. It returns a wrapped store.ErrNotFound for an unknown instance.
func (db *DB) Parts(ctx context.Context, id store.InstanceID, kind string, afterOrd int64, limit int) ([]store.Part, error) {
	var out []store.Part
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		if err := instanceExists(ctx, tx, id); err != nil {
			return err
		}
		var err error
		out, err = queryRows(ctx, tx, func(row pgx.Row) (store.Part, error) {
			p := store.Part{Kind: kind}
			err := row.Scan(&p.Key, &p.Ord, &p.Data)
			if len(p.Data) == 0 {
				p.Data = nil // as written: empty data is no data
			}
			return p, err
		}, `SELECT p.key, p.ord, p.data FROM instance_parts p JOIN instances i ON i.seq = p.instance_seq
			WHERE i.id = $1 AND p.kind = $2 AND p.ord > $3 ORDER BY p.ord, p.key LIMIT $4`,
			string(id), kind, afterOrd, limitArg(limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: %s parts of instance %s: %w", kind, id, err)
	}
	return out, nil
}

// PartCounts returns how many parts of each kind an instance has (kinds
// without parts are absent). It returns a wrapped store.ErrNotFound for
// an unknown instance.
func (db *DB) PartCounts(ctx context.Context, id store.InstanceID) (map[string]int, error) {
	out := map[string]int{}
	err := db.readTx(ctx, func(tx pgx.Tx) error {
		if err := instanceExists(ctx, tx, id); err != nil {
			return err
		}
		rs, err := tx.Query(ctx, `SELECT p.kind, COUNT(*) FROM instance_parts p JOIN instances i ON i.seq = p.instance_seq
			WHERE i.id = $1 GROUP BY p.kind`, string(id))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var (
				kind string
				n    int
			)
			if err := rs.Scan(&kind, &n); err != nil {
				return err
			}
			out[kind] = n
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: part counts of instance %s: %w", id, err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Page sizes of ListInstances.
const (
	// DefaultListLimit is the page size when InstanceFilter.Limit is 0.
	DefaultListLimit = 50
	// MaxListLimit caps InstanceFilter.Limit.
	MaxListLimit = 500
)

// CommitSteps commits a batch of steps of distinct instances in one
// transaction, all or nothing, so the batch costs one fsync (group commit).
// A step with PrevRevision 0 creates its instance; any other updates the
// instance only if its stored revision is still PrevRevision. An existing id
// on create or a stale revision on update fails the whole batch with a
// wrapped runtime.ErrConflict naming the instance; nothing of the batch is
// written. An empty batch is a no-op.
//
// A step's RemovedWaits are deleted by id, then its Waits are inserted or
// replaced by id (a replaced job loses its lock); a wait id held by another
// instance is a conflict. A step that ends its instance (completed or
// terminated) also deletes every wait the instance still has.
func (db *DB) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if len(steps) == 0 {
		return nil
	}
	var failed runtime.InstanceID
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		st := newTxStmts(ctx, tx)
		defer st.close()
		for i := range steps {
			if err := commitStep(st, &steps[i]); err != nil {
				failed = steps[i].Instance.ID
				return err
			}
		}
		return nil
	})
	if err != nil {
		if failed != "" {
			return fmt.Errorf("store: commit step of instance %s: %w", failed, err)
		}
		return fmt.Errorf("store: commit %d steps: %w", len(steps), err)
	}
	return nil
}

// txStmts prepares each statement once per write transaction and reuses it
// for every step and row of the batch. close closes them all.
type txStmts struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// newTxStmts returns an empty statement cache for tx.
func newTxStmts(ctx context.Context, tx *sql.Tx) *txStmts {
	return &txStmts{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}}
}

// stmt returns query prepared in the transaction, preparing it on first use.
func (st *txStmts) stmt(query string) (*sql.Stmt, error) {
	if s, ok := st.stmts[query]; ok {
		return s, nil
	}
	s, err := st.tx.PrepareContext(st.ctx, query)
	if err != nil {
		return nil, err
	}
	st.stmts[query] = s
	return s, nil
}

// exec runs the prepared query with args.
func (st *txStmts) exec(query string, args ...any) (sql.Result, error) {
	s, err := st.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(st.ctx, args...)
}

// query runs the prepared query with args; the caller closes the rows.
func (st *txStmts) query(query string, args ...any) (*sql.Rows, error) {
	s, err := st.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(st.ctx, args...)
}

// close closes every prepared statement.
func (st *txStmts) close() {
	for _, s := range st.stmts {
		s.Close()
	}
	clear(st.stmts)
}

// The statements of a step.
const (
	insertInstanceSQL = `INSERT INTO instances (id, process_key, process_version, status, business_key, parent_id,
		    parent_node_id, created_at, updated_at, ended_at, revision, checkpoint)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`
	// updateInstanceSQL moves the mutable columns; the identity columns
	// (process, parent, created_at) never change after creation.
	updateInstanceSQL = `UPDATE instances SET status = ?, business_key = ?, updated_at = ?, ended_at = ?,
		    revision = ?, checkpoint = ?
		WHERE id = ? AND revision = ?`
	selectScopesSQL = `SELECT id, parent_id, node_id, path, state FROM scopes WHERE instance_id = ?`
	insertScopeSQL  = `INSERT INTO scopes (instance_id, id, parent_id, node_id, path, state) VALUES (?, ?, ?, ?, ?, ?)`
	updateScopeSQL  = `UPDATE scopes SET parent_id = ?, node_id = ?, path = ?, state = ? WHERE instance_id = ? AND id = ?`
	deleteScopeSQL  = `DELETE FROM scopes WHERE instance_id = ? AND id = ?`
	insertFactSQL   = `INSERT INTO facts (instance_id, seq, at, kind, node_id, scope_path, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`
	// upsertIncidentSQL leaves an incident of another instance alone: zero
	// rows affected.
	upsertIncidentSQL = `INSERT INTO incidents (id, instance_id, node_id, scope_id, kind, message, created_at, resolved_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET node_id = excluded.node_id, scope_id = excluded.scope_id,
		    kind = excluded.kind, message = excluded.message, resolved_at = excluded.resolved_at
		WHERE incidents.instance_id = excluded.instance_id`
)

// commitStep writes one step inside st's transaction: the instance row, its
// scopes, facts, incidents, waits and outbox rows.
func commitStep(st *txStmts, s *runtime.StepRecord) error {
	in := &s.Instance
	if in.ID == "" {
		return fmt.Errorf("instance id is empty")
	}
	if in.Revision <= s.PrevRevision {
		return fmt.Errorf("new revision %d does not follow %d", in.Revision, s.PrevRevision)
	}
	checkpoint := s.Checkpoint
	if checkpoint == nil {
		checkpoint = []byte{}
	}
	var (
		res sql.Result
		err error
	)
	if s.PrevRevision == 0 {
		res, err = st.exec(insertInstanceSQL,
			in.ID, in.ProcessKey, in.ProcessVersion, in.Status, in.BusinessKey, in.ParentID,
			in.ParentNodeID, encodeTime(in.CreatedAt), encodeTime(in.UpdatedAt), encodeOptTime(in.EndedAt),
			in.Revision, checkpoint)
	} else {
		res, err = st.exec(updateInstanceSQL,
			in.Status, in.BusinessKey, encodeTime(in.UpdatedAt), encodeOptTime(in.EndedAt),
			in.Revision, checkpoint, in.ID, s.PrevRevision)
	}
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		if s.PrevRevision == 0 {
			return fmt.Errorf("instance exists: %w", runtime.ErrConflict)
		}
		return fmt.Errorf("revision %d is not current: %w", s.PrevRevision, runtime.ErrConflict)
	}
	if err := replaceScopes(st, in.ID, s.Scopes); err != nil {
		return err
	}
	if err := insertFacts(st, in.ID, s.Facts); err != nil {
		return err
	}
	if err := upsertIncidents(st, in.ID, s.Incidents); err != nil {
		return err
	}
	if err := applyWaits(st, in, s.Waits, s.RemovedWaits); err != nil {
		return err
	}
	return insertOutbox(st, in, s.Outbox)
}

// replaceScopes makes the scope rows of an instance equal to scopes. It
// writes only the difference to the stored rows: rows whose id is gone are
// deleted, new ids inserted, and rows with any changed column updated, so a
// step that moves one scope of many touches one row. An id twice in scopes
// is an error.
func replaceScopes(st *txStmts, id runtime.InstanceID, scopes []runtime.ScopeRow) error {
	stored, err := storedScopes(st, id)
	if err != nil {
		return fmt.Errorf("read scopes: %w", err)
	}
	seen := make(map[string]bool, len(scopes))
	for _, sc := range scopes {
		if seen[sc.ID] {
			return fmt.Errorf("scope %s appears twice", sc.ID)
		}
		seen[sc.ID] = true
		old, ok := stored[sc.ID]
		switch {
		case !ok:
			if _, err := st.exec(insertScopeSQL, id, sc.ID, sc.ParentID, sc.NodeID, sc.Path, sc.State); err != nil {
				return fmt.Errorf("insert scope %s: %w", sc.ID, err)
			}
		case old != sc:
			if _, err := st.exec(updateScopeSQL, sc.ParentID, sc.NodeID, sc.Path, sc.State, id, sc.ID); err != nil {
				return fmt.Errorf("update scope %s: %w", sc.ID, err)
			}
		}
	}
	for sid := range stored {
		if seen[sid] {
			continue
		}
		if _, err := st.exec(deleteScopeSQL, id, sid); err != nil {
			return fmt.Errorf("delete scope %s: %w", sid, err)
		}
	}
	return nil
}

// storedScopes reads the scope rows of an instance by id.
func storedScopes(st *txStmts, id runtime.InstanceID) (map[string]runtime.ScopeRow, error) {
	rs, err := st.query(selectScopesSQL, id)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]runtime.ScopeRow{}
	for rs.Next() {
		var sc runtime.ScopeRow
		if err := rs.Scan(&sc.ID, &sc.ParentID, &sc.NodeID, &sc.Path, &sc.State); err != nil {
			return nil, err
		}
		out[sc.ID] = sc
	}
	return out, rs.Err()
}

// insertFacts appends facts to the history of an instance.
func insertFacts(st *txStmts, id runtime.InstanceID, facts []runtime.FactRow) error {
	for _, f := range facts {
		var detail sql.NullString
		if len(f.Detail) > 0 {
			detail = sql.NullString{String: string(f.Detail), Valid: true}
		}
		if _, err := st.exec(insertFactSQL, id, f.Seq, encodeTime(f.At), f.Kind, f.NodeID, f.ScopePath, detail); err != nil {
			return fmt.Errorf("insert fact %d: %w", f.Seq, err)
		}
	}
	return nil
}

// upsertIncidents inserts incidents or updates them by id. An incident id
// that belongs to another instance is a conflict.
func upsertIncidents(st *txStmts, id runtime.InstanceID, incidents []runtime.IncidentRow) error {
	for _, inc := range incidents {
		if inc.InstanceID != "" && inc.InstanceID != id {
			return fmt.Errorf("incident %s belongs to instance %s", inc.ID, inc.InstanceID)
		}
		res, err := st.exec(upsertIncidentSQL,
			inc.ID, id, inc.NodeID, inc.ScopeID, inc.Kind, inc.Message, encodeTime(inc.CreatedAt), encodeOptTime(inc.ResolvedAt))
		if err != nil {
			return fmt.Errorf("upsert incident %s: %w", inc.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("incident %s belongs to another instance: %w", inc.ID, runtime.ErrConflict)
		}
	}
	return nil
}

// instanceColumns selects an InstanceRow; scanInstance reads it.
const instanceColumns = `id, process_key, process_version, status, business_key, parent_id, parent_node_id,
	created_at, updated_at, ended_at, revision`

// scanInstance reads the instanceColumns of a row followed by extra destinations.
func scanInstance(row interface{ Scan(...any) error }, extra ...any) (runtime.InstanceRow, error) {
	var (
		in               runtime.InstanceRow
		created, updated int64
		ended            sql.NullInt64
	)
	dest := append([]any{&in.ID, &in.ProcessKey, &in.ProcessVersion, &in.Status, &in.BusinessKey,
		&in.ParentID, &in.ParentNodeID, &created, &updated, &ended, &in.Revision}, extra...)
	if err := row.Scan(dest...); err != nil {
		return in, err
	}
	in.CreatedAt = decodeTime(created)
	in.UpdatedAt = decodeTime(updated)
	in.EndedAt = decodeOptTime(ended)
	return in, nil
}

// Instance returns an instance with its checkpoint. It returns a wrapped
// runtime.ErrNotFound if the instance does not exist.
func (db *DB) Instance(ctx context.Context, id runtime.InstanceID) (runtime.StoredInstance, error) {
	var si runtime.StoredInstance
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		si.InstanceRow, err = scanInstance(tx.QueryRowContext(ctx,
			`SELECT `+instanceColumns+`, checkpoint FROM instances WHERE id = ?`, id), &si.Checkpoint)
		return notFound(err)
	})
	if err != nil {
		return runtime.StoredInstance{}, fmt.Errorf("store: instance %s: %w", id, err)
	}
	return si, nil
}

// ListInstances returns the instance rows matching f, newest first (by
// creation time, then id), and the total number of matches regardless of
// paging. Limit 0 means DefaultListLimit; larger than MaxListLimit is capped.
func (db *DB) ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, arg any) {
		where = append(where, cond)
		args = append(args, arg)
	}
	if f.ProcessKey != "" {
		add("process_key = ?", f.ProcessKey)
	}
	if f.ProcessVersion != 0 {
		add("process_version = ?", f.ProcessVersion)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.BusinessKey != "" {
		add("business_key = ?", f.BusinessKey)
	}
	if f.ParentID != "" {
		add("parent_id = ?", f.ParentID)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = DefaultListLimit
	case limit > MaxListLimit:
		limit = MaxListLimit
	}
	offset := max(f.Offset, 0)

	var (
		rows  []runtime.InstanceRow
		total int
	)
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM instances`+cond, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		rows, err = queryInstances(ctx, tx,
			`SELECT `+instanceColumns+` FROM instances`+cond+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
			append(args, limit, offset)...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: list instances: %w", err)
	}
	return rows, total, nil
}

// queryInstances runs an instanceColumns query and reads every row.
func queryInstances(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]runtime.InstanceRow, error) {
	rs, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []runtime.InstanceRow
	for rs.Next() {
		in, err := scanInstance(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rs.Err()
}

// RunningInstances returns every running or failed instance with its
// checkpoint, oldest first, for resuming after a restart.
func (db *DB) RunningInstances(ctx context.Context) ([]runtime.StoredInstance, error) {
	var out []runtime.StoredInstance
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx,
			`SELECT `+instanceColumns+`, checkpoint FROM instances
			 WHERE status IN (?, ?) ORDER BY created_at, id`,
			runtime.StatusRunning, runtime.StatusFailed)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var si runtime.StoredInstance
			if si.InstanceRow, err = scanInstance(rs, &si.Checkpoint); err != nil {
				return err
			}
			out = append(out, si)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: running instances: %w", err)
	}
	return out, nil
}

// Scopes returns the open scope rows of an instance ordered by path. It
// returns a wrapped runtime.ErrNotFound if the instance does not exist.
func (db *DB) Scopes(ctx context.Context, id runtime.InstanceID) ([]runtime.ScopeRow, error) {
	var out []runtime.ScopeRow
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx,
			`SELECT id, parent_id, node_id, path, state FROM scopes WHERE instance_id = ? ORDER BY path, id`, id)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var sc runtime.ScopeRow
			if err := rs.Scan(&sc.ID, &sc.ParentID, &sc.NodeID, &sc.Path, &sc.State); err != nil {
				return err
			}
			out = append(out, sc)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if len(out) == 0 {
			return instanceExists(ctx, tx, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: scopes of instance %s: %w", id, err)
	}
	return out, nil
}

// History returns the facts of an instance with Seq > afterSeq in Seq order,
// at most limit of them (0 means no limit). It returns a wrapped
// runtime.ErrNotFound if the instance does not exist.
func (db *DB) History(ctx context.Context, id runtime.InstanceID, afterSeq int64, limit int) ([]runtime.FactRow, error) {
	if limit <= 0 {
		limit = -1 // SQLite: a negative LIMIT means none.
	}
	var out []runtime.FactRow
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx,
			`SELECT seq, at, kind, node_id, scope_path, detail FROM facts
			 WHERE instance_id = ? AND seq > ? ORDER BY seq LIMIT ?`, id, afterSeq, limit)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var (
				f      runtime.FactRow
				at     int64
				detail sql.NullString
			)
			if err := rs.Scan(&f.Seq, &at, &f.Kind, &f.NodeID, &f.ScopePath, &detail); err != nil {
				return err
			}
			f.At = decodeTime(at)
			if detail.Valid {
				f.Detail = []byte(detail.String)
			}
			out = append(out, f)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if len(out) == 0 {
			return instanceExists(ctx, tx, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: history of instance %s: %w", id, err)
	}
	return out, nil
}

// Incidents lists the incidents of an instance, only the unresolved ones if
// openOnly, oldest first. An empty id lists the open incidents of all
// instances (openOnly is implied). For a non-empty id it returns a wrapped
// runtime.ErrNotFound if the instance does not exist.
func (db *DB) Incidents(ctx context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error) {
	var (
		where []string
		args  []any
	)
	if id != "" {
		where = append(where, "instance_id = ?")
		args = append(args, id)
	}
	if openOnly || id == "" {
		where = append(where, "resolved_at IS NULL")
	}
	query := `SELECT id, instance_id, node_id, scope_id, kind, message, created_at, resolved_at
		FROM incidents WHERE ` + strings.Join(where, " AND ") + ` ORDER BY created_at, id`
	var out []runtime.IncidentRow
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var (
				inc      runtime.IncidentRow
				created  int64
				resolved sql.NullInt64
			)
			if err := rs.Scan(&inc.ID, &inc.InstanceID, &inc.NodeID, &inc.ScopeID, &inc.Kind, &inc.Message,
				&created, &resolved); err != nil {
				return err
			}
			inc.CreatedAt = decodeTime(created)
			inc.ResolvedAt = decodeOptTime(resolved)
			out = append(out, inc)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if len(out) == 0 && id != "" {
			return instanceExists(ctx, tx, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: incidents of instance %q: %w", id, err)
	}
	return out, nil
}

// instanceExists returns runtime.ErrNotFound unless the instance exists.
func instanceExists(ctx context.Context, tx *sql.Tx, id runtime.InstanceID) error {
	var one int
	return notFound(tx.QueryRowContext(ctx, `SELECT 1 FROM instances WHERE id = ?`, id).Scan(&one))
}

package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// State formats of instances.state_format (migration 0005).
const (
	// formatCheckpoint marks a row whose state is a whole format-1
	// checkpoint, written before states were stored as parts.
	formatCheckpoint = 1
	// formatParts marks a row whose state is a header plus instance_parts.
	formatParts = 2
)

// The statements of a step and of the instance reads. Each is prepared once
// per pool (writeQueries, readQueries).
const (
	// insertInstanceSQL creates an instance; no row comes back if the id
	// exists.
	insertInstanceSQL = `INSERT INTO instances (id, process_key, process_version, status, business_key, parent_id,
		    parent_node_id, created_at, updated_after, ended_at, revision, state_format, state, number)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?, ?)
		ON CONFLICT (id) DO NOTHING`
	// bumpNumberSQL raises the instance counter of a process key by a
	// batch's count and returns the last number of the run. Arguments:
	// process key, count.
	bumpNumberSQL = `INSERT INTO instance_numbers (process_key, last) VALUES (?1, ?2)
		ON CONFLICT (process_key) DO UPDATE SET last = last + excluded.last
		RETURNING last`
	// updateInstanceSQL moves the mutable columns; the identity columns
	// (process key, parent, created_at) never change after creation. The
	// process version changes when the instance is migrated. A legacy
	// row (state_format 1) is never updated by a step: its parts do not
	// exist yet.
	updateInstanceSQL = `UPDATE instances SET status = ?, business_key = ?, updated_after = ? - created_at, ended_at = ?,
		    revision = ?, state = ?, process_version = ?
		WHERE id = ? AND revision = ? AND state_format = 2
		RETURNING seq, created_at`
	// instanceStateSQL explains why an update matched no row.
	instanceStateSQL = `SELECT revision, state_format FROM instances WHERE id = ?`
	upsertPartSQL    = `INSERT INTO instance_parts (instance_seq, kind, key, ord, data) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (instance_seq, kind, key) DO UPDATE SET ord = excluded.ord, data = excluded.data`
	// updatePartDataSQL replaces the data of a part whose ord stays.
	updatePartDataSQL = `UPDATE instance_parts SET data = ? WHERE instance_seq = ? AND kind = ? AND key = ? AND ord = ?`
	deletePartSQL     = `DELETE FROM instance_parts WHERE instance_seq = ? AND kind = ? AND key = ?`
	deletePartsSQL    = `DELETE FROM instance_parts WHERE instance_seq = ?`
	// insertFactsSQL writes the facts of one step (encodeFacts).
	insertFactsSQL = `INSERT INTO facts (instance_seq, seq, at, data) VALUES (?, ?, ?, ?)`
	// upsertIncidentSQL leaves an incident of another instance alone: zero
	// rows affected.
	upsertIncidentSQL = `INSERT INTO incidents (id, instance_id, node_id, scope_id, kind, message, created_at, resolved_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET node_id = excluded.node_id, scope_id = excluded.scope_id,
		    kind = excluded.kind, message = excluded.message, resolved_at = excluded.resolved_at
		WHERE incidents.instance_id = excluded.instance_id`
	// replaceStateSQL rewrites the state of an instance outside a step.
	replaceStateSQL = `UPDATE instances SET state = ?, state_format = 2 WHERE id = ? AND revision = ? RETURNING seq`

	// instanceColumns selects an InstanceRow; scanInstance reads it
	// (updated_after is relative to created_at).
	instanceColumns = `id, process_key, process_version, status, business_key, parent_id, parent_node_id,
		created_at, updated_after, ended_at, revision, number, suspended`
	// selectInstanceSQL reads an instance and its parts in one statement
	// (one snapshot without an explicit transaction): a row with t = 0 for
	// the instance, then one row with t = 1 per part. Arguments: id, id.
	selectInstanceSQL = `SELECT 0, state_format, state, NULL, NULL, NULL, NULL, ` + instanceColumns + `
		FROM instances WHERE id = ?
		UNION ALL
		SELECT 1, NULL, NULL, k.name, p.key, p.ord, p.data, ` + nullInstanceColumns + `
		FROM instance_parts p JOIN kinds k ON k.id = p.kind
		WHERE p.instance_seq = (SELECT seq FROM instances WHERE id = ?)`
	// nullInstanceColumns pads the part rows of selectInstanceSQL.
	nullInstanceColumns  = `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`
	selectInstanceRowSQL = `SELECT ` + instanceColumns + ` FROM instances WHERE id = ?`
	selectSeqSQL         = `SELECT seq FROM instances WHERE id = ?`
	// selectPartsSQL pages the parts of one kind by ord (the primary key
	// finds the instance's parts of the kind; the few are sorted).
	// Arguments: seq, kind id, after, limit.
	selectPartsSQL = `SELECT key, ord, data FROM instance_parts
		WHERE instance_seq = ? AND kind = ? AND ord > ? ORDER BY ord, key LIMIT ?`
	partCountsSQL = `SELECT k.name, COUNT(*) FROM instance_parts p JOIN kinds k ON k.id = p.kind
		WHERE p.instance_seq = ? GROUP BY p.kind`
	legacySQL = `SELECT ` + instanceColumns + `, state FROM instances INDEXED BY instances_legacy
		WHERE state_format = 1 ORDER BY created_at, seq LIMIT ?`
	runningSQL = `SELECT ` + instanceColumns + ` FROM instances INDEXED BY instances_status
		WHERE status IN ('running', 'failed') ORDER BY created_at, seq`
	// historySQL reads the fact rows holding facts after a seq: the rows
	// whose last seq is above it. Arguments: id, after, limit (a row holds
	// at least one fact).
	historySQL = `SELECT i.created_at, f.seq, f.at, f.data
		FROM instances i JOIN facts f ON f.instance_seq = i.seq
		WHERE i.id = ? AND f.seq > ? ORDER BY f.seq LIMIT ?`
	instanceExistsSQL = `SELECT 1 FROM instances WHERE id = ?`
)

// CommitSteps commits a batch of steps of distinct instances in one
// transaction, all or nothing, so the batch costs one fsync (group commit).
// A step with PrevRevision 0 creates its instance; any other updates the
// instance only if its stored revision is still PrevRevision. An existing id
// on create or a stale revision on update fails the whole batch with a
// wrapped store.ErrConflict naming the instance; nothing of the batch is
// written. An empty batch is a no-op. A step of an instance whose state is
// still a legacy checkpoint (see LegacyInstances) fails: ReplaceState must
// upgrade it first.
//
// A step's RemovedParts are deleted, then its Parts inserted or replaced
// by (Kind, Key) (a part in both ends up stored). Likewise its RemovedWaits
// are deleted by id, then its Waits inserted or replaced by id (a replaced
// job loses its lock); a wait id held by another instance is a conflict. A
// step that ends its instance (completed or terminated) also deletes every
// wait the instance still has. Parts stay: they are the ended instance's
// final state.
func (db *DB) CommitSteps(ctx context.Context, steps []store.StepRecord) error {
	if len(steps) == 0 {
		return nil
	}
	var failed store.InstanceID
	err := db.writeWith(ctx, func(st *txStmts) error {
		if err := numberInstances(st, steps); err != nil {
			return err
		}
		var stats store.StatsBatch
		for i := range steps {
			if err := commitStep(st, &stats, &steps[i]); err != nil {
				failed = steps[i].Instance.ID
				return err
			}
		}
		return writeSharedStats(st, &stats)
	})
	if err != nil {
		if failed != "" {
			return fmt.Errorf("store: commit step of instance %s: %w", failed, err)
		}
		return fmt.Errorf("store: commit %d steps: %w", len(steps), err)
	}
	return nil
}

// numberInstances sets the Number of every instance steps create: one
// counter update per process key of the batch (instance_numbers, migration
// 0012) hands out a run of numbers, given in sqlquery.NumberOrder. The
// transaction is the writer's, so no other commit can take the same run;
// a failed commit rolls the counter back with everything else.
func numberInstances(st *txStmts, steps []store.StepRecord) error {
	order := sqlquery.NumberOrder(steps)
	var keys []string
	count := map[string]int64{}
	for _, i := range order {
		k := steps[i].Instance.ProcessKey
		if count[k] == 0 {
			keys = append(keys, k)
		}
		count[k]++
	}
	next := make(map[string]int64, len(keys))
	for _, k := range keys {
		var last int64
		if err := st.queryRow(bumpNumberSQL, k, count[k]).Scan(&last); err != nil {
			return fmt.Errorf("number instances of %s: %w", k, err)
		}
		next[k] = last - count[k] + 1
	}
	for _, i := range order {
		k := steps[i].Instance.ProcessKey
		steps[i].Instance.Number = next[k]
		next[k]++
	}
	return nil
}

// commitStep writes one step inside st's transaction: the instance row, its
// parts, facts, incidents, waits and outbox rows; its changes to the shared
// statistics rows go into stats, which CommitSteps writes after the last
// step.
func commitStep(st *txStmts, stats *store.StatsBatch, s *store.StepRecord) error {
	in := &s.Instance
	if in.ID == "" {
		return fmt.Errorf("instance id is empty")
	}
	if in.Revision <= s.PrevRevision {
		return fmt.Errorf("new revision %d does not follow %d", in.Revision, s.PrevRevision)
	}
	header := s.Header
	if header == nil {
		header = []byte{}
	}
	header = abbreviate(string(in.ID), header)
	if s.LockGuard != nil {
		if err := checkLockGuard(st, s.LockGuard); err != nil {
			return err
		}
	}
	if s.FiresStartTimer != "" {
		var one int
		err := st.queryRow(startTimerExistsSQL, dbID(s.FiresStartTimer)).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("timer start %s fired or replaced meanwhile: %w", s.FiresStartTimer, store.ErrConflict)
		}
		if err != nil {
			return err
		}
	}
	var (
		seq, created int64
		err          error
	)
	if s.PrevRevision == 0 {
		created = encodeTime(in.CreatedAt)
		var res sql.Result
		res, err = st.exec(insertInstanceSQL,
			dbID(in.ID), in.ProcessKey, in.ProcessVersion, in.Status, in.BusinessKey, dbID(in.ParentID),
			in.ParentNodeID, created, encodeTime(in.UpdatedAt)-created, encodeOptTime(in.EndedAt),
			in.Revision, header, in.Number)
		if err == nil {
			seq, err = insertedRow(res)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("instance exists: %w", store.ErrConflict)
			}
		}
		if err == nil {
			err = assignKey(st, store.KeyInstance, string(in.ID))
		}
	} else {
		err = st.queryRow(updateInstanceSQL,
			in.Status, in.BusinessKey, encodeTime(in.UpdatedAt), encodeOptTime(in.EndedAt),
			in.Revision, header, in.ProcessVersion, dbID(in.ID), s.PrevRevision).Scan(&seq, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return whyNotUpdated(st, in.ID, s.PrevRevision)
		}
	}
	if err != nil {
		return err
	}
	if err := removeParts(st, seq, in.ID, s.RemovedParts); err != nil {
		return err
	}
	if err := writeParts(st, seq, in.ID, s.Parts, s.PrevRevision != 0); err != nil {
		return err
	}
	if err := insertFacts(st, seq, in.ID, created, s.Facts); err != nil {
		return err
	}
	if err := upsertIncidents(st, in.ID, s.Incidents); err != nil {
		return err
	}
	if err := applyWaits(st, in, s.PrevRevision == 0, s.Waits, s.RemovedWaits); err != nil {
		return err
	}
	if d := s.JobErrorDetails; d != nil {
		// No row changed: the step ended the job, which keeps no details.
		if _, err := st.exec(setErrorDetailsSQL, errorDetailsArg(d.Details), dbID(d.WaitID)); err != nil {
			return fmt.Errorf("error details of job %s: %w", d.WaitID, err)
		}
	}
	if err := applyTokens(st, seq, in, s.Tokens, s.RemovedTokens); err != nil {
		return err
	}
	if err := applyStats(st, stats, seq, s); err != nil {
		return err
	}
	if err := applyVariables(st, seq, s.Parts, s.RemovedParts, s.PrevRevision == 0); err != nil {
		return err
	}
	if err := insertCompletedTasks(st, seq, s.CompletedTasks); err != nil {
		return err
	}
	if err := insertIdempotency(st, s.Idempotency); err != nil {
		return err
	}
	if err := applyMessageBuffer(st, s); err != nil {
		return err
	}
	return insertOutbox(st, in, s.Outbox)
}

// insertedRow is the rowid an INSERT … ON CONFLICT DO NOTHING wrote, or
// sql.ErrNoRows when it wrote none.
func insertedRow(res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, sql.ErrNoRows
	}
	return res.LastInsertId()
}

// whyNotUpdated explains an update of instance id from revision prev that
// matched no row: a missing instance or a stale revision is a conflict, a
// legacy row an error of the caller.
func whyNotUpdated(st *txStmts, id store.InstanceID, prev int64) error {
	var rev, format int64
	err := st.queryRow(instanceStateSQL, dbID(id)).Scan(&rev, &format)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("instance does not exist: %w", store.ErrConflict)
	case err != nil:
		return err
	case rev != prev:
		return fmt.Errorf("revision %d is not current: %w", prev, store.ErrConflict)
	case format == formatCheckpoint:
		return fmt.Errorf("state is a legacy checkpoint, not yet upgraded (ReplaceState)")
	default:
		return fmt.Errorf("revision %d matched no row", prev)
	}
}

// removePartsBatch is how many keys one statement of removeParts deletes
// (deletePartsInSQL): a step that removes many parts of a kind (a
// multi-instance's 40,000 iterations cancelled: their scopes, tracks and
// waits) runs one statement per batch instead of one per part, each key
// still found by a seek of the part key index.
const removePartsBatch = 128

// deletePartsInSQL deletes up to removePartsBatch parts of one kind of an
// instance. Arguments: seq, kind id, then removePartsBatch keys (a short
// batch repeats its last key).
var deletePartsInSQL = `DELETE FROM instance_parts WHERE instance_seq = ? AND kind = ? AND key IN (?` +
	strings.Repeat(", ?", removePartsBatch-1) + `)`

func init() {
	writeQueries = append(writeQueries, deletePartsInSQL)
}

// removeParts deletes parts of instance seq (whose id is id): one
// statement per part when the step removes fewer than removePartsBatch,
// else each kind's keys in batches of removePartsBatch.
func removeParts(st *txStmts, seq int64, id store.InstanceID, refs []store.PartRef) error {
	if len(refs) < removePartsBatch {
		for _, r := range refs {
			if err := removePart(st, seq, id, r); err != nil {
				return err
			}
		}
		return nil
	}
	byKind := map[string][]any{}
	var kinds []string
	for _, r := range refs {
		if _, ok := byKind[r.Kind]; !ok {
			kinds = append(kinds, r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], partKey(id, r.Key))
	}
	args := make([]any, 2+removePartsBatch)
	for _, k := range kinds {
		kind, err := st.kindID(k)
		if err != nil {
			return err
		}
		keys := byKind[k]
		args[0], args[1] = seq, kind
		for len(keys) > 0 {
			n := copy(args[2:], keys)
			for i := 2 + n; i < len(args); i++ {
				args[i] = keys[n-1]
			}
			if _, err := st.exec(deletePartsInSQL, args...); err != nil {
				return fmt.Errorf("delete %d %s parts: %w", n, k, err)
			}
			keys = keys[n:]
		}
	}
	return nil
}

// removePart deletes one part of instance seq (whose id is id).
func removePart(st *txStmts, seq int64, id store.InstanceID, r store.PartRef) error {
	kind, err := st.kindID(r.Kind)
	if err != nil {
		return err
	}
	if _, err := st.exec(deletePartSQL, seq, kind, partKey(id, r.Key)); err != nil {
		return fmt.Errorf("delete part %s/%s: %w", r.Kind, r.Key, err)
	}
	return nil
}

// writeParts inserts or replaces parts of instance seq (whose id is id).
// If some may exist (replacing), a part whose ord stays only gets its data
// replaced.
func writeParts(st *txStmts, seq int64, id store.InstanceID, parts []store.Part, replacing bool) error {
	for _, p := range parts {
		if p.Kind == "" {
			return fmt.Errorf("part %q has no kind", p.Key)
		}
		kind, err := st.kindID(p.Kind)
		if err != nil {
			return err
		}
		data := abbreviate(string(id), p.Data)
		if data == nil {
			data = []byte{}
		}
		if replacing {
			res, err := st.exec(updatePartDataSQL, data, seq, kind, partKey(id, p.Key), p.Ord)
			if err != nil {
				return fmt.Errorf("write part %s/%s: %w", p.Kind, p.Key, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n > 0 {
				continue
			}
		}
		if _, err := st.exec(upsertPartSQL, seq, kind, partKey(id, p.Key), p.Ord, data); err != nil {
			return fmt.Errorf("write part %s/%s: %w", p.Kind, p.Key, err)
		}
	}
	return nil
}

// insertFacts appends the facts of one step to the history of instance
// seq (whose id is id, created at created), as one row.
func insertFacts(st *txStmts, seq int64, id store.InstanceID, created int64, facts []store.FactRow) error {
	if len(facts) == 0 {
		return nil
	}
	last, at, data, err := encodeFacts(id, created, facts, st.kindID)
	if err != nil {
		return err
	}
	if _, err := st.exec(insertFactsSQL, seq, last, at, data); err != nil {
		return fmt.Errorf("insert facts %d..%d: %w", facts[0].Seq, last, err)
	}
	return nil
}

// upsertIncidents inserts incidents or updates them by id. An incident id
// that belongs to another instance is a conflict.
func upsertIncidents(st *txStmts, id store.InstanceID, incidents []store.IncidentRow) error {
	for _, inc := range incidents {
		if inc.InstanceID != "" && inc.InstanceID != id {
			return fmt.Errorf("incident %s belongs to instance %s", inc.ID, inc.InstanceID)
		}
		res, err := st.exec(upsertIncidentSQL,
			inc.ID, dbID(id), inc.NodeID, inc.ScopeID, inc.Kind, inc.Message, encodeTime(inc.CreatedAt), encodeOptTime(inc.ResolvedAt))
		if err != nil {
			return fmt.Errorf("upsert incident %s: %w", inc.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("incident %s belongs to another instance: %w", inc.ID, store.ErrConflict)
		}
		if err := assignKey(st, store.KeyIncident, inc.ID); err != nil {
			return err
		}
	}
	return nil
}

// scanInstance reads the instanceColumns of a row, after the leading
// destinations lead.
func scanInstance(row interface{ Scan(...any) error }, lead ...any) (store.InstanceRow, error) {
	var (
		in               store.InstanceRow
		created, updated int64
		ended, number    sql.NullInt64
	)
	dest := append(lead, idDest(&in.ID), &in.ProcessKey, &in.ProcessVersion, &in.Status, &in.BusinessKey,
		idDest(&in.ParentID), &in.ParentNodeID, &created, &updated, &ended, &in.Revision, &number, &in.Suspended)
	if err := row.Scan(dest...); err != nil {
		return in, err
	}
	in.Number = number.Int64
	in.CreatedAt = decodeTime(created)
	in.UpdatedAt = decodeTime(created + updated)
	in.EndedAt = decodeOptTime(ended)
	return in, nil
}

// Instance returns an instance with its whole state: the header and every
// part, ordered by kind, then Ord (then key). For an instance whose state
// is still a legacy checkpoint (see LegacyInstances), Header is that whole
// format-1 checkpoint and there are no parts. It returns a wrapped
// store.ErrNotFound if the instance does not exist.
func (db *DB) Instance(ctx context.Context, id store.InstanceID) (store.StoredInstance, error) {
	si, err := readInstance(db.readOne(ctx), id)
	if err != nil {
		return store.StoredInstance{}, fmt.Errorf("store: instance %s: %w", id, err)
	}
	return si, nil
}

// readInstance runs selectInstanceSQL: the row of the instance (t = 0) and
// its parts (t = 1), in whichever order they come. A legacy row has no
// parts.
func readInstance(q querier, id store.InstanceID) (store.StoredInstance, error) {
	var (
		si    store.StoredInstance
		found bool
	)
	rs, err := q.query(selectInstanceSQL, dbID(id), dbID(id))
	if err != nil {
		return si, err
	}
	defer rs.Close()
	for rs.Next() {
		var (
			t, format sql.NullInt64
			state     []byte
			kind      sql.NullString
			key       string
			ord       sql.NullInt64
			data      []byte
			row       nullInstance
		)
		if err := rs.Scan(&t, &format, &state, &kind, partKeyDest{id, &key}, &ord, &data,
			&row.id, &row.key, &row.version, &row.status, &row.businessKey, &row.parentID, &row.parentNodeID,
			&row.created, &row.updated, &row.ended, &row.revision, &row.number, &row.suspended); err != nil {
			return si, err
		}
		if t.Int64 == 0 {
			found = true
			si.InstanceRow = row.instance()
			si.Header = state
			if format.Int64 == formatParts {
				si.Header = expand(string(id), state)
			}
			continue
		}
		si.Parts = append(si.Parts, store.Part{Kind: kind.String, Key: key, Ord: ord.Int64, Data: expand(string(id), data)})
	}
	if err := rs.Err(); err != nil {
		return si, err
	}
	if !found {
		return si, store.ErrNotFound
	}
	slices.SortFunc(si.Parts, func(a, b store.Part) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), cmp.Compare(a.Ord, b.Ord), strings.Compare(a.Key, b.Key))
	})
	return si, nil
}

// nullInstance scans the instanceColumns of a row that may be padding.
type nullInstance struct {
	id, parentID                               dbID
	key, status, businessKey, parentNodeID     sql.NullString
	version, created, updated, revision, ended sql.NullInt64
	number, suspended                          sql.NullInt64
}

// instance returns the scanned row.
func (r nullInstance) instance() store.InstanceRow {
	return store.InstanceRow{
		ID: store.InstanceID(r.id), ProcessKey: r.key.String, ProcessVersion: int(r.version.Int64),
		Status: r.status.String, BusinessKey: r.businessKey.String, ParentID: store.InstanceID(r.parentID),
		ParentNodeID: r.parentNodeID.String, CreatedAt: decodeTime(r.created.Int64), UpdatedAt: decodeTime(r.created.Int64 + r.updated.Int64),
		EndedAt: decodeOptTime(r.ended), Revision: r.revision.Int64, Number: r.number.Int64,
		Suspended: r.suspended.Int64 != 0,
	}
}

// InstanceRow returns the row of an instance without its state. It returns
// a wrapped store.ErrNotFound if the instance does not exist.
func (db *DB) InstanceRow(ctx context.Context, id store.InstanceID) (store.InstanceRow, error) {
	in, err := scanInstance(db.readOne(ctx).queryRow(selectInstanceRowSQL, dbID(id)))
	if err != nil {
		err = notFound(err)
		return store.InstanceRow{}, fmt.Errorf("store: instance row %s: %w", id, err)
	}
	return in, nil
}

// instanceSeq returns the surrogate key of instance id, or a
// store.ErrNotFound.
func instanceSeq(st *txStmts, id store.InstanceID) (int64, error) {
	var seq int64
	err := st.queryRow(selectSeqSQL, dbID(id)).Scan(&seq)
	return seq, notFound(err)
}

// Parts returns at most limit parts (limit <= 0: all) of one kind of an
// instance with Ord > afterOrd, by Ord (then key), for inspecting what is
// stored (the runtime reads whole states with Instance and pages views
// from them). It returns a wrapped store.ErrNotFound for an unknown
// instance.
func (db *DB) Parts(ctx context.Context, id store.InstanceID, kind string, afterOrd int64, limit int) ([]store.Part, error) {
	var out []store.Part
	err := db.readWith(ctx, func(st *txStmts) error {
		seq, err := instanceSeq(st, id)
		if err != nil {
			return err
		}
		kid, ok, err := st.lookupKind(kind)
		if err != nil || !ok {
			return err
		}
		rs, err := st.query(selectPartsSQL, seq, kid, afterOrd, noLimit(limit))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			p := store.Part{Kind: kind}
			if err := rs.Scan(partKeyDest{id, &p.Key}, &p.Ord, &p.Data); err != nil {
				return err
			}
			p.Data = expand(string(id), p.Data)
			out = append(out, p)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s parts of instance %s: %w", kind, id, err)
	}
	return out, nil
}

// PartCounts returns how many parts of each kind an instance has (kinds
// without parts are absent). It returns a wrapped store.ErrNotFound for
// an unknown instance.
func (db *DB) PartCounts(ctx context.Context, id store.InstanceID) (map[string]int, error) {
	out := map[string]int{}
	err := db.readWith(ctx, func(st *txStmts) error {
		seq, err := instanceSeq(st, id)
		if err != nil {
			return err
		}
		rs, err := st.query(partCountsSQL, seq)
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
		return nil, fmt.Errorf("store: part counts of instance %s: %w", id, err)
	}
	return out, nil
}

// LegacyInstances returns at most limit (limit <= 0: all) instances whose
// state is still a format-1 checkpoint, oldest first. Those are exactly
// the instances stored before migration 0005 and not yet rewritten by
// ReplaceState, whatever their status.
func (db *DB) LegacyInstances(ctx context.Context, limit int) ([]store.LegacyInstance, error) {
	var out []store.LegacyInstance
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(legacySQL, noLimit(limit))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var li store.LegacyInstance
			row, err := scanInstance(scanAfter{rs, []any{&li.Checkpoint}})
			if err != nil {
				return err
			}
			li.InstanceRow = row
			out = append(out, li)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: legacy instances: %w", err)
	}
	return out, nil
}

// scanAfter scans a row into the destinations scanInstance passes, then
// into extra: for queries whose instanceColumns come first.
type scanAfter struct {
	row   interface{ Scan(...any) error }
	extra []any
}

// Scan implements the row interface of scanInstance.
func (s scanAfter) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }

// ReplaceState writes the whole state of an instance as header and parts,
// replacing every part it had, without a step: the upgrade of a legacy
// checkpoint, after which the instance is no longer legacy. The revision
// stays: the state is the same, only its encoding changed. It returns a
// wrapped store.ErrConflict if the instance's revision is no longer
// revision and a wrapped store.ErrNotFound if it does not exist.
func (db *DB) ReplaceState(ctx context.Context, id store.InstanceID, revision int64, header []byte, parts []store.Part) error {
	header = abbreviate(string(id), header)
	if header == nil {
		header = []byte{}
	}
	err := db.writeWith(ctx, func(st *txStmts) error {
		var seq int64
		err := st.queryRow(replaceStateSQL, header, dbID(id), revision).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			var rev, format int64
			if err := st.queryRow(instanceStateSQL, dbID(id)).Scan(&rev, &format); err != nil {
				return notFound(err)
			}
			return fmt.Errorf("revision %d is not current (%d): %w", revision, rev, store.ErrConflict)
		}
		if err != nil {
			return err
		}
		if _, err := st.exec(deletePartsSQL, seq); err != nil {
			return err
		}
		if err := writeParts(st, seq, id, parts, false); err != nil {
			return err
		}
		return reindexVariables(st, seq, parts)
	})
	if err != nil {
		return fmt.Errorf("store: replace state of instance %s: %w", id, err)
	}
	return nil
}

// RunningInstances returns the rows of every running or failed instance,
// oldest first (creation time, then the order the store received them),
// for resuming after a restart.
func (db *DB) RunningInstances(ctx context.Context) ([]store.InstanceRow, error) {
	out, err := queryInstances(db.readOne(ctx), runningSQL)
	if err != nil {
		return nil, fmt.Errorf("store: running instances: %w", err)
	}
	return out, nil
}

// queryInstances runs an instanceColumns query and reads every row.
func queryInstances(st querier, query string, args ...any) ([]store.InstanceRow, error) {
	rs, err := st.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []store.InstanceRow
	for rs.Next() {
		in, err := scanInstance(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rs.Err()
}

// History returns the facts of an instance with Seq > afterSeq in Seq order,
// at most limit of them (0 means no limit). It returns a wrapped
// store.ErrNotFound if the instance does not exist.
func (db *DB) History(ctx context.Context, id store.InstanceID, afterSeq int64, limit int) ([]store.FactRow, error) {
	var out []store.FactRow
	err := db.readWith(ctx, func(st *txStmts) error {
		type factsRow struct {
			created, seq, at int64
			data             []byte
		}
		var rows []factsRow
		rs, err := st.query(historySQL, dbID(id), afterSeq, noLimit(limit))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r factsRow
			if err := rs.Scan(&r.created, &r.seq, &r.at, &r.data); err != nil {
				return err
			}
			rows = append(rows, r)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		for _, r := range rows {
			err := decodeFacts(id, r.created, r.seq, r.at, r.data, st.kindName, func(f store.FactRow) bool {
				if f.Seq <= afterSeq {
					return true
				}
				out = append(out, f)
				return limit <= 0 || len(out) < limit
			})
			if err != nil {
				return err
			}
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		if len(out) == 0 {
			return instanceExists(st, id)
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
// store.ErrNotFound if the instance does not exist. The instance's
// incidents are read through incidents_instance, the open ones of all
// instances through the partial index incidents_open.
func (db *DB) Incidents(ctx context.Context, id store.InstanceID, openOnly bool) ([]store.IncidentRow, error) {
	return db.IncidentsPage(ctx, store.IncidentFilter{InstanceID: id, OpenOnly: openOnly})
}

// IncidentsPage lists incidents like Incidents, oldest first, after the
// incident f.After names (created at f.AfterAt) and at most f.Limit (0: no
// limit): a keyset page that costs its length, whatever the offset.
func (db *DB) IncidentsPage(ctx context.Context, f store.IncidentFilter) ([]store.IncidentRow, error) {
	id := f.InstanceID
	var args []any
	if id != "" {
		args = append(args, dbID(id))
	}
	query := incidentsQuery(id != "", f.OpenOnly || id == "")
	if f.After != "" || f.Limit > 0 {
		query = incidentsPageQuery(id != "", f.OpenOnly || id == "", f.After != "")
		if f.After != "" {
			at := encodeTime(f.AfterAt)
			args = append(args, at, at, f.After)
		}
		args = append(args, noLimit(f.Limit))
		if err := db.rstmts.warm(ctx, query); err != nil {
			return nil, fmt.Errorf("store: incidents: %w", err)
		}
	}
	var out []store.IncidentRow
	err := db.readWith(ctx, func(st *txStmts) error {
		rs, err := st.query(query, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var (
				inc      store.IncidentRow
				created  int64
				resolved sql.NullInt64
				key      sql.NullString
				number   sql.NullInt64
			)
			if err := rs.Scan(&inc.ID, idDest(&inc.InstanceID), &inc.NodeID, &inc.ScopeID, &inc.Kind, &inc.Message,
				&created, &resolved, &key, &number); err != nil {
				return err
			}
			inc.ProcessKey, inc.InstanceNumber = key.String, number.Int64
			inc.CreatedAt = decodeTime(created)
			inc.ResolvedAt = decodeOptTime(resolved)
			out = append(out, inc)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if len(out) == 0 && id != "" {
			return instanceExists(st, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: incidents of instance %q: %w", id, err)
	}
	return out, nil
}

// incidentsPageQuery is incidentsQuery after a keyset position
// (arguments: at, at, id) and with a limit (argument last).
func incidentsPageQuery(byInstance, openOnly, after bool) string {
	where := incidentsWhere(byInstance, openOnly)
	if after {
		where = append(where, "(c.created_at > ? OR (c.created_at = ? AND c.id > ?))")
	}
	return incidentsSelect + whereClause(where) + ` ORDER BY c.created_at, c.id LIMIT ?`
}

// incidentsQuery is the query of Incidents: of one instance (argument:
// its id) or of all, open ones only or all.
func incidentsQuery(byInstance, openOnly bool) string {
	return incidentsSelect + whereClause(incidentsWhere(byInstance, openOnly)) + ` ORDER BY c.created_at, c.id`
}

// incidentsSelect reads incidents (c) with their instance's process key
// and number: a LEFT JOIN, so SQLite keeps incidents the outer loop (on
// incidents_instance or incidents_open) and finds each instance by its id.
const incidentsSelect = `SELECT c.id, c.instance_id, c.node_id, c.scope_id, c.kind, c.message, c.created_at, c.resolved_at,
		i.process_key, i.number
	FROM incidents c LEFT JOIN instances i ON i.id = c.instance_id`

// incidentsWhere are the conditions of incidentsQuery.
func incidentsWhere(byInstance, openOnly bool) []string {
	var where []string
	if byInstance {
		where = append(where, "c.instance_id = ?")
	}
	if openOnly {
		where = append(where, "c.resolved_at IS NULL")
	}
	return where
}

// instanceExists returns store.ErrNotFound unless the instance exists.
func instanceExists(st *txStmts, id store.InstanceID) error {
	var one int
	return notFound(st.queryRow(instanceExistsSQL, dbID(id)).Scan(&one))
}

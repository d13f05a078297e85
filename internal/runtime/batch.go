package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// Batch operations by filter: one act (cancel, retry the open incidents,
// migrate, modify, set variables, delete) on every instance a list filter
// matches, in the background.
//
// # The snapshot
//
// CreateBatch resolves the filter into the batch's items: the instances
// it matches that were created by the batch's creation, oldest first (the
// filter's CreatedBefore is bounded by it), read in pages of
// batchResolvePage, each page stored in a transaction of its own so the
// writer is never held for long. The first batchResolveInline pages are
// resolved in the call; the runner resolves the rest (the batch stays
// preparing until then). Instances created later are not added, and one
// that stops matching is still acted on (its act may then fail, which its
// item records). A batch left preparing by a stop resumes its resolution
// after the last instance it stored (BatchRecord.Cursor).
//
// # Acting once
//
// The items are acted on one at a time, paced by the runtime's pacer
// (Options.BatchRate for all batches together), so a batch never takes
// the writer from the instances' own steps for long. Each act that is a
// step carries an idempotency record ("batch <id> <instance>", for an
// incident retry "batch <id> <incident>") committed in the step's own
// transaction. Before acting, the batch looks the record up: found, the
// act committed before a stop that came before its item's outcome was
// recorded, and the item is counted done without acting again. A delete
// is not a step: an instance already gone is counted done. A migration
// also finds an instance already at the target version migrated.
//
// # Restart and cluster
//
// A batch is run by the node that holds its lease (ClaimBatch, renewed
// while it runs). ResumeInstances starts the batches a previous run left
// preparing or running; on a cluster every node polls for open batches
// every batchPoll, so a batch whose node died is taken over once its lease
// ends. A single node takes its batches over at once.
//
// # Rights
//
// The runtime checks no rights: the caller narrows the filter to the
// instances the creator may act on (the API does, at creation) and every
// act is recorded as the creator's (ActingUser).

// The operations of a batch (BatchRequest.Operation).
const (
	BatchCancel         = "cancel"
	BatchRetryIncidents = "retry-incidents"
	BatchMigrate        = "migrate"
	BatchModify         = "modify"
	BatchSetVariables   = "set-variables"
	BatchDelete         = "delete"
)

// BatchOperations are the operations CreateBatch accepts, in the order
// the API documents them. Suspend and resume join as one case each in
// actOn and checkBatch once the runtime can suspend an instance.
var BatchOperations = []string{BatchCancel, BatchRetryIncidents, BatchMigrate, BatchModify, BatchSetVariables, BatchDelete}

// DefaultBatchRate is how many instances the batches act on per second,
// all together, unless Options.BatchRate says otherwise.
const DefaultBatchRate = 50

const (
	// batchResolvePage is how many instances one page of a filter's
	// resolution reads and stores.
	batchResolvePage = 500
	// batchResolveInline is how many pages CreateBatch resolves itself
	// before it answers; the runner resolves the rest.
	batchResolveInline = 20
	// batchItemPage is how many pending items a runner reads at once.
	batchItemPage = 100
	// batchLease is how long a node's claim on a batch lasts unless renewed.
	batchLease = time.Minute
	// batchPoll is how often the nodes of a cluster look for open batches.
	batchPoll = 10 * time.Second
)

// BatchParams are an operation's parameters: Retries for
// retry-incidents (at least 1; 0 means 1), TargetVersion and Mapping for
// migrate (the filter names the process key and source version),
// Instructions for modify, Variables for set-variables (written into each
// instance's root scope).
type BatchParams struct {
	Retries       int               `json:"retries,omitempty"`
	TargetVersion int               `json:"targetVersion,omitempty"`
	Mapping       map[string]string `json:"mapping,omitempty"`
	Instructions  []Modification    `json:"instructions,omitempty"`
	Variables     map[string]any    `json:"variables,omitempty"`
	// FilterQuery is the filter as its caller wrote it (the API: list
	// query parameters), kept for showing the batch; the runtime acts on
	// BatchRequest.Filter.
	FilterQuery string `json:"filterQuery,omitempty"`
}

// BatchRequest asks for a batch: the operation, its parameters and the
// filter of the instances it acts on (InstanceFilter as ListInstances
// takes it; its paging and sort are ignored).
type BatchRequest struct {
	Operation string
	Params    BatchParams
	Filter    InstanceFilter
}

// BatchView is a batch with its progress.
type BatchView struct {
	ID        string
	Operation string
	Params    BatchParams
	Filter    InstanceFilter
	// State is one of the Batch* states (preparing, running, paused,
	// completed, cancelled).
	State      string
	CreatedBy  string
	CreatedAt  time.Time
	FinishedAt time.Time
	// Total counts the items; Done, Failed and Pending them by outcome.
	Total, Done, Failed, Pending int
}

// CountBatch checks a request as CreateBatch does and returns how many
// instances its filter matches now (a dry run), counted as the instance
// list counts: MaxListTotal+1 means more than MaxListTotal. Nothing is
// stored.
func (r *Runtime) CountBatch(ctx context.Context, req BatchRequest) (int, error) {
	req, err := r.checkBatch(ctx, req)
	if err != nil {
		return 0, err
	}
	f := req.Filter
	f.Limit = 1
	_, total, err := r.store.ListInstances(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("runtime: count batch: %w", err)
	}
	return total, nil
}

// CreateBatch checks a request, stores the batch, resolves its filter into
// items (the snapshot) and starts it in the background, acting as
// ActingUser(ctx). EINVALID names a bad operation or parameter.
func (r *Runtime) CreateBatch(ctx context.Context, req BatchRequest) (BatchView, error) {
	req, err := r.checkBatch(ctx, req)
	if err != nil {
		return BatchView{}, err
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return BatchView{}, fmt.Errorf("runtime: create batch: encode parameters: %w", err)
	}
	rec := BatchRecord{ID: r.newID(), Operation: req.Operation, Params: params, State: BatchPreparing,
		CreatedBy: ActingUser(ctx), CreatedAt: r.now().UTC()}
	// The snapshot: instances created up to now (inclusive, so a clock
	// that stands still in tests keeps them).
	if until := rec.CreatedAt.Add(time.Nanosecond); req.Filter.CreatedBefore.IsZero() || req.Filter.CreatedBefore.After(until) {
		req.Filter.CreatedBefore = until
	}
	if rec.Filter, err = json.Marshal(req.Filter); err != nil {
		return BatchView{}, fmt.Errorf("runtime: create batch: encode filter: %w", err)
	}
	if err := r.store.CreateBatch(ctx, rec); err != nil {
		return BatchView{}, fmt.Errorf("runtime: create batch: %w", err)
	}
	// Hold the lease while resolving, so that no other node's poll takes
	// the preparing batch meanwhile.
	if _, _, err := r.claimBatch(ctx, rec.ID); err != nil {
		return BatchView{}, fmt.Errorf("runtime: create batch: %w", err)
	}
	if err := r.resolveBatch(ctx, rec, batchResolveInline); err != nil {
		return BatchView{}, err
	}
	r.batches.start(rec.ID, r.runBatch)
	return r.Batch(ctx, rec.ID)
}

// checkBatch validates a request and returns it with its defaults and
// without the filter's paging.
func (r *Runtime) checkBatch(ctx context.Context, req BatchRequest) (BatchRequest, error) {
	req.Filter.Limit, req.Filter.Offset, req.Filter.After = 0, 0, ""
	req.Filter.SortBy, req.Filter.Ascending = "", true // oldest first
	p := &req.Params
	switch req.Operation {
	case BatchCancel, BatchDelete:
	case BatchRetryIncidents:
		if p.Retries < 0 {
			return req, &Error{Code: EINVALID, Field: "retries", Message: "batch: retries must be at least 1"}
		}
		p.Retries = max(p.Retries, 1)
	case BatchMigrate:
		if req.Filter.ProcessKey == "" || req.Filter.ProcessVersion <= 0 {
			return req, &Error{Code: EINVALID, Field: "filter", Message: "batch: a migration's filter names the process key and the source version"}
		}
		src, dst, err := r.migrationModels(ctx, MigrationPlan{ProcessKey: req.Filter.ProcessKey,
			SourceVersion: req.Filter.ProcessVersion, TargetVersion: p.TargetVersion})
		if err != nil {
			return req, err
		}
		if ps := engine.CheckMigrationPlan(src, dst, p.Mapping); len(ps) > 0 {
			return req, &Error{Code: EINVALID, Field: "mapping", Message: "batch: the mapping does not fit the process versions: " + ps[0].Message}
		}
	case BatchModify:
		if len(p.Instructions) == 0 {
			return req, &Error{Code: EINVALID, Field: "instructions", Message: "batch: a modification needs at least one instruction"}
		}
	case BatchSetVariables:
		if len(p.Variables) == 0 {
			return req, &Error{Code: EINVALID, Field: "variables", Message: "batch: variables must not be empty"}
		}
	default:
		return req, &Error{Code: EINVALID, Field: "operation", Message: fmt.Sprintf("batch: unknown operation %q", req.Operation)}
	}
	return req, nil
}

// resolveBatch stores the instances the filter of a preparing batch
// matches, page by page after its cursor, at most pages pages (0: all),
// and moves it to running once it stored the last.
func (r *Runtime) resolveBatch(ctx context.Context, rec BatchRecord, pages int) error {
	var f InstanceFilter
	if err := json.Unmarshal(rec.Filter, &f); err != nil {
		return fmt.Errorf("runtime: batch %s: decode filter: %w", rec.ID, err)
	}
	after := rec.Cursor
	for page := 1; ; page++ {
		f.Limit, f.After = batchResolvePage, after
		rows, _, err := r.store.ListInstances(ctx, f)
		if err != nil {
			return fmt.Errorf("runtime: batch %s: resolve the filter after %q: %w", rec.ID, after, err)
		}
		if len(rows) == 0 {
			break
		}
		ids := make([]InstanceID, len(rows))
		for i, row := range rows {
			ids[i] = row.ID
		}
		after = ids[len(ids)-1]
		if err := r.store.AddBatchItems(ctx, rec.ID, ids, after); err != nil {
			return fmt.Errorf("runtime: batch %s: %w", rec.ID, err)
		}
		if len(rows) < batchResolvePage {
			break
		}
		if page == pages {
			return nil // the runner resolves the rest
		}
	}
	if _, err := r.store.SetBatchState(ctx, rec.ID, BatchRunning, time.Time{}, BatchPreparing); err != nil {
		return fmt.Errorf("runtime: batch %s: %w", rec.ID, err)
	}
	return nil
}

// Batch returns a batch with its progress; ENOTFOUND for an unknown id.
func (r *Runtime) Batch(ctx context.Context, id string) (BatchView, error) {
	rec, err := r.store.Batch(ctx, id)
	if err != nil {
		return BatchView{}, batchErr(id, err)
	}
	return viewOfBatch(rec)
}

// Batches lists batches, newest first, and how many f matches.
func (r *Runtime) Batches(ctx context.Context, f BatchFilter) ([]BatchView, int, error) {
	recs, total, err := r.store.Batches(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]BatchView, 0, len(recs))
	for _, rec := range recs {
		v, err := viewOfBatch(rec)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, nil
}

// BatchItems returns a page of a batch's items with their outcomes;
// ENOTFOUND for an unknown batch.
func (r *Runtime) BatchItems(ctx context.Context, id string, f BatchItemFilter) ([]BatchItem, error) {
	items, err := r.store.BatchItems(ctx, id, f)
	if err != nil {
		return nil, batchErr(id, err)
	}
	return items, nil
}

// PauseBatch stops a running batch after the item in hand until
// ResumeBatch; ECONFLICT for a batch in another state (one preparing is
// paused once its instances are stored).
func (r *Runtime) PauseBatch(ctx context.Context, id string) (BatchView, error) {
	return r.moveBatch(ctx, id, BatchPaused, false, BatchRunning)
}

// ResumeBatch runs a paused batch again; ECONFLICT for a batch in another
// state.
func (r *Runtime) ResumeBatch(ctx context.Context, id string) (BatchView, error) {
	v, err := r.moveBatch(ctx, id, BatchRunning, false, BatchPaused)
	if err == nil {
		r.batches.restart(id, r.runBatch)
	}
	return v, err
}

// CancelBatch ends a batch that has not ended, leaving its pending items
// pending (they are not acted on); ECONFLICT for an ended batch.
func (r *Runtime) CancelBatch(ctx context.Context, id string) (BatchView, error) {
	return r.moveBatch(ctx, id, BatchCancelled, true, BatchPreparing, BatchRunning, BatchPaused)
}

// moveBatch moves a batch to state from one of from.
func (r *Runtime) moveBatch(ctx context.Context, id, state string, ends bool, from ...string) (BatchView, error) {
	var at time.Time
	if ends {
		at = r.now().UTC()
	}
	moved, err := r.store.SetBatchState(ctx, id, state, at, from...)
	if err != nil {
		return BatchView{}, batchErr(id, err)
	}
	v, err := r.Batch(ctx, id)
	if err != nil {
		return BatchView{}, err
	}
	if !moved {
		return v, &Error{Code: ECONFLICT, Message: fmt.Sprintf("batch %s is %s", id, v.State)}
	}
	return v, nil
}

// AwaitBatch waits until batch id stops running here (it ended, paused,
// or the runtime closed) or ctx ends; it returns at once for a batch that
// does not run here.
func (r *Runtime) AwaitBatch(ctx context.Context, id string) error {
	return r.AwaitMigration(ctx, id)
}

// batchErr names an unknown batch.
func batchErr(id string, err error) error {
	if ErrorCode(err) == ENOTFOUND {
		return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("batch %s not found", id), Err: err}
	}
	return err
}

func viewOfBatch(rec BatchRecord) (BatchView, error) {
	v := BatchView{ID: rec.ID, Operation: rec.Operation, State: rec.State, CreatedBy: rec.CreatedBy,
		CreatedAt: rec.CreatedAt, FinishedAt: rec.FinishedAt, Total: rec.Total, Done: rec.Done, Failed: rec.Failed,
		Pending: rec.Total - rec.Done - rec.Failed}
	if err := json.Unmarshal(rec.Params, &v.Params); err != nil {
		return BatchView{}, fmt.Errorf("runtime: batch %s: decode parameters: %w", rec.ID, err)
	}
	if err := json.Unmarshal(rec.Filter, &v.Filter); err != nil {
		return BatchView{}, fmt.Errorf("runtime: batch %s: decode filter: %w", rec.ID, err)
	}
	return v, nil
}

// resumeBatches starts the batches a previous run left open and, on a
// cluster, the poll that takes over those of nodes that stopped.
func (r *Runtime) resumeBatches(ctx context.Context) error {
	ids, err := r.store.OpenBatches(ctx)
	if err != nil {
		return fmt.Errorf("runtime: resume batches: %w", err)
	}
	for _, id := range ids {
		r.batches.start(id, r.runBatch)
	}
	if r.cluster != nil {
		r.batches.start("batch poll", r.pollBatches)
	}
	return nil
}

// pollBatches starts the open batches every batchPoll until the runtime
// closes; those another node holds return at their claim.
func (r *Runtime) pollBatches(string) {
	t := time.NewTicker(batchPoll)
	defer t.Stop()
	for {
		select {
		case <-r.schedStop:
			return
		case <-t.C:
		}
		ids, err := r.store.OpenBatches(context.Background())
		if err != nil {
			r.log.Error("open batches unreadable", "error", err)
			continue
		}
		for _, id := range ids {
			r.batches.start(id, r.runBatch)
		}
	}
}

// claimBatch takes or renews this node's lease on batch id. A single node
// takes any lease (one ending before twice the lease from now: every
// lease it ever took): one left by its previous run is its own.
func (r *Runtime) claimBatch(ctx context.Context, id string) (until time.Time, held bool, err error) {
	now := r.now().UTC()
	until = now.Add(batchLease)
	ended := now
	if r.cluster == nil {
		ended = until.Add(batchLease)
	}
	held, err = r.store.ClaimBatch(ctx, id, r.NodeID(), ended, until)
	return until, held, err
}

// runBatch runs batch id while this node holds it: resolves a preparing
// batch, acts on the pending items in order, records each outcome, and
// completes the batch. It stops when the batch pauses or ends, the lease
// is lost, or the runtime closes; the next start resumes it.
func (r *Runtime) runBatch(id string) {
	ctx := context.Background()
	log := r.log.With("batch_id", id)
	until, held, err := r.claimBatch(ctx, id)
	if err != nil || !held {
		if err != nil {
			log.Error("batch not claimed", "error", err)
		}
		return
	}
	rec, err := r.store.Batch(ctx, id)
	if err != nil {
		log.Error("batch unreadable", "error", err)
		return
	}
	if rec.State == BatchPreparing {
		if err := r.resolveBatch(ctx, rec, 0); err != nil {
			log.Error("batch filter not resolved", "error", err)
			return
		}
	}
	var params BatchParams
	if err := json.Unmarshal(rec.Params, &params); err != nil {
		log.Error("batch parameters unreadable", "error", err)
		return
	}
	var filter InstanceFilter
	if err := json.Unmarshal(rec.Filter, &filter); err != nil {
		log.Error("batch filter unreadable", "error", err)
		return
	}
	ctx = WithActingUser(ctx, rec.CreatedBy)
	after := int64(-1)
	for {
		items, err := r.store.BatchItems(ctx, id, BatchItemFilter{Status: BatchItemPending, AfterSeq: after, Limit: batchItemPage})
		if err != nil {
			log.Error("batch items unreadable", "error", err)
			return
		}
		if len(items) == 0 {
			break
		}
		for _, it := range items {
			if !r.pace.wait(r.schedStop) {
				return
			}
			cur, err := r.store.Batch(ctx, id)
			if err != nil || cur.State != BatchRunning {
				return // paused or ended; ResumeBatch starts it again
			}
			if r.now().After(until.Add(-batchLease / 2)) {
				if until, held, err = r.claimBatch(ctx, id); err != nil || !held {
					log.Info("batch lease lost", "error", err)
					return
				}
			}
			out := r.actOn(ctx, rec, params, filter, it.InstanceID)
			if hook := r.batches.beforeRecord; hook != nil {
				hook(id, it.InstanceID)
			}
			if _, err := r.store.SetBatchItem(ctx, id, out); err != nil {
				log.Error("batch item not recorded", "instance_id", it.InstanceID, "error", err)
				return // resumed at the next start; the act's record makes it a no-op then
			}
			if hook := r.batches.afterItem; hook != nil {
				hook(id, it.InstanceID)
			}
		}
		after = items[len(items)-1].Seq
	}
	if _, err := r.store.SetBatchState(ctx, id, BatchCompleted, r.now().UTC(), BatchRunning); err != nil {
		log.Error("batch not completed", "error", err)
	}
}

// actOn acts on one instance of a batch and returns its item's outcome.
func (r *Runtime) actOn(ctx context.Context, rec BatchRecord, p BatchParams, f InstanceFilter, id InstanceID) BatchItem {
	out := BatchItem{InstanceID: id, Status: BatchItemDone}
	var err error
	if rec.Operation == BatchDelete {
		err = r.DeleteInstance(ctx, id)
		if ErrorCode(err) == ENOTFOUND {
			out.Reason, err = "already deleted", nil
		}
	} else if rec.Operation == BatchRetryIncidents {
		out.Reason, err = r.retryAll(ctx, rec, p, id)
	} else {
		var acted bool
		acted, err = r.onceFor(ctx, rec, string(id), func(ctx context.Context) error {
			switch rec.Operation {
			case BatchCancel:
				_, err := r.step(ctx, id, engine.Cancel{Reason: "cancelled by batch " + rec.ID, By: ActingUser(ctx)}, nil)
				return err
			case BatchMigrate:
				return r.migrateInstance(ctx, MigrationRecord{ProcessKey: f.ProcessKey, SourceVersion: f.ProcessVersion,
					TargetVersion: p.TargetVersion, Mapping: p.Mapping}, id)
			case BatchModify:
				_, err := r.ModifyInstance(ctx, id, p.Instructions)
				return err
			case BatchSetVariables:
				_, err := r.SetVariables(ctx, id, "", p.Variables, false)
				return err
			}
			return &Error{Code: EINVALID, Message: fmt.Sprintf("batch: unknown operation %q", rec.Operation)}
		})
		if err == nil && !acted {
			out.Reason = "acted on before a restart"
		}
	}
	if err != nil {
		out.Status, out.Reason = BatchItemFailed, migrationReason(err)
		r.log.Info("batch item failed", "batch_id", rec.ID, "instance_id", id, "error", err)
	}
	return out
}

// retryAll retries the open incidents of one instance, each once.
func (r *Runtime) retryAll(ctx context.Context, rec BatchRecord, p BatchParams, id InstanceID) (string, error) {
	incidents, err := r.store.Incidents(ctx, id, true)
	if err != nil {
		return "", instanceErr(id, err)
	}
	if len(incidents) == 0 {
		return "no open incident", nil
	}
	var errs []error
	for _, in := range incidents {
		if _, err := r.onceFor(ctx, rec, in.ID, func(ctx context.Context) error {
			_, err := r.RetryIncident(ctx, in.ID, p.Retries)
			return err
		}); err != nil {
			errs = append(errs, fmt.Errorf("incident %s: %w", in.ID, err))
		}
	}
	return "", errors.Join(errs...)
}

// onceFor runs act, one step, unless batch rec's record for what (an
// instance or incident id) shows the act committed before; the step
// commits that record (idempotency row "batch <id> <what>") in its own
// transaction. acted is false when it had committed before.
func (r *Runtime) onceFor(ctx context.Context, rec BatchRecord, what string, act func(context.Context) error) (acted bool, err error) {
	key := "batch " + rec.ID + " " + what
	if _, ok, err := r.store.Idempotency(ctx, key, rec.CreatedAt.Add(-time.Second)); err != nil {
		return false, fmt.Errorf("runtime: batch %s: look up %s: %w", rec.ID, what, err)
	} else if ok {
		return false, nil
	}
	now := r.now().UTC()
	c := &idempotencyClaim{key: key}
	c.next.Store(&IdempotencyRow{Key: key, RequestHash: sha256.Sum256([]byte(key)), Answer: json.RawMessage("true"),
		CreatedAt: now, ExpiredBefore: now.Add(-r.idempotencyWindow)})
	return true, act(context.WithValue(ctx, idempotencyKey{}, c))
}

// pacer spaces acts evenly at a rate per second, for every batch of the
// runtime together (a token bucket of one token).
type pacer struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time // when the next act may run
}

func newPacer(perSecond int) *pacer {
	return &pacer{every: time.Second / time.Duration(max(perSecond, 1))}
}

// wait blocks until the caller's turn; false when stop closed first. It
// runs on the wall clock: pacing is load, not process time.
func (p *pacer) wait(stop <-chan struct{}) bool {
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.every)
	p.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}

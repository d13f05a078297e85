package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Several nodes on one database (docs/architecture.md "Multiple nodes").
//
// A store that several gobpm processes share implements ClusterStore; the
// runtime then runs as one node of a cluster. Nothing else changes for a
// store that does not (SQLite): no query is added to its steps and the
// single-node paths stay as they are.
//
//   - The single writer per instance holds across nodes optimistically: a
//     step commits only if its instance's revision is still the one it
//     read. A step that finds it moved on (ErrStale) has computed from an
//     old state: its cached state is already gone (acquire took it out),
//     so the step reloads and re-runs its event, at most maxStepAttempts
//     times. An event applied on two nodes commits once: the second one
//     re-runs on the state the first committed and finds its wait gone.
//     A step the engine refuses on a cached state is re-checked against
//     the store's revision (movedOn): the wait it acts on may be one
//     another node's step created since, so it re-runs as a stale step
//     rather than failing.
//   - An instance's home is the node whose step of it committed last: its
//     cache holds the instance. Job activation and due-timer claims leave
//     a job or timer of an instance homed on another registered node to
//     that node for a short grace (the store's), so an instance's steps
//     stay on one node; any node still serves any act. A starting node
//     does not resume the instances homed on another registered node
//     (homedElsewhere); the node whose heartbeat removes a silent node
//     resumes the instances homed on it (resumeHomedOn).
//   - Due timers and outbox rows are claimed by one node
//     (ClaimDueTimers, ClaimOutbox): a claim holds while its node is
//     registered; a node that stops heart-beating is removed by the
//     others' heartbeats, and its claims pass to them.
//   - A commit that makes a job activatable or arms a timer publishes a
//     Wake (LISTEN/NOTIFY on PostgreSQL) that wakes the long polls and the
//     scheduler of the other nodes. Polling is the fallback: long polls
//     look again and the scheduler runs every heartbeat.

// Defaults of the cluster options.
const (
	// DefaultHeartbeat is how often a node refreshes its registration.
	DefaultHeartbeat = 2 * time.Second
	// DefaultNodeTimeout is how long a node may go without a heartbeat
	// before the others remove it and take over its claims.
	DefaultNodeTimeout = 10 * time.Second
	// maxStepAttempts bounds how often a step re-runs after finding that
	// another node committed its instance first.
	maxStepAttempts = 16
)

// cluster is the node's membership: the heartbeat and the listener. Nil
// on a store that is not shared.
type cluster struct {
	store ClusterStore
	info  NodeInfo
	// heartbeat and timeout: see Options.Heartbeat and NodeTimeout.
	heartbeat, timeout time.Duration
	started            time.Time

	once   sync.Once
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// newCluster returns the membership of a node over store, or nil when the
// store is not shared by several nodes. A single node still has an id
// (minted here) so that GET /api/v1/cluster can name it.
func newCluster(store Store, opts Options, now time.Time) (*cluster, NodeRow) {
	info := opts.Node
	cs, ok := store.(ClusterStore)
	switch {
	case ok:
		info.ID = cs.NodeID()
	case info.ID == "":
		info.ID = uuid.Must(uuid.NewV7()).String()
	}
	self := NodeRow{ID: info.ID, Address: info.Address, Version: info.Version, StartedAt: now}
	if !ok {
		return nil, self
	}
	c := &cluster{store: cs, info: info, started: now,
		heartbeat: opts.Heartbeat, timeout: opts.NodeTimeout}
	if c.heartbeat <= 0 {
		c.heartbeat = DefaultHeartbeat
	}
	if c.timeout <= 0 {
		c.timeout = DefaultNodeTimeout
	}
	return c, self
}

// join registers the node (before it claims or commits anything: rows
// claimed by an unregistered node are anybody's) and starts the
// heartbeat and the listener. Idempotent.
func (r *Runtime) join(ctx context.Context) error {
	c := r.cluster
	if c == nil {
		return nil
	}
	var err error
	c.once.Do(func() {
		if _, err = c.store.Heartbeat(ctx, c.info, c.timeout); err != nil {
			err = fmt.Errorf("runtime: join the cluster as %s: %w", c.info.ID, err)
			return
		}
		bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
		c.cancel = cancel
		c.done.Add(2)
		go func() {
			defer c.done.Done()
			r.beat(bg)
		}()
		// Once join returns, every later commit of another node wakes
		// this one (unless the listener fails at once: then it polls).
		ready := make(chan struct{})
		go func() {
			defer c.done.Done()
			r.listen(bg, ready)
		}()
		<-ready
		r.log.Info("joined the cluster", "node_id", c.info.ID)
	})
	return err
}

// beat refreshes the node's registration every heartbeat until ctx ends.
// Each beat also runs the scheduler (the polling fallback for lost
// wake-ups); a beat that removed silent nodes retries the outbox too,
// since their rows are free now.
func (r *Runtime) beat(ctx context.Context) {
	c := r.cluster
	t := time.NewTicker(c.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		removed, err := c.store.Heartbeat(ctx, c.info, c.timeout)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.log.Error("cluster heartbeat failed", "node_id", c.info.ID, "error", err)
			continue
		case len(removed) > 0:
			r.log.Warn("silent nodes removed; their timers and outbox rows pass to the others", "nodes", removed)
			r.outboxRetry.Store(true)
			// The nodes starting meanwhile left the removed nodes'
			// instances to them (homedElsewhere): this node, the one
			// whose beat removed them, resumes them, beside the beat.
			c.done.Add(1)
			go func() {
				defer c.done.Done()
				r.resumeHomedOn(ctx, removed)
			}()
		}
		r.wakeScheduler()
	}
}

// listen receives the other nodes' wake-ups until ctx ends, listening
// again a heartbeat after a lost connection (polling covers the gap). It
// closes ready once it listens, or when its first attempt failed.
func (r *Runtime) listen(ctx context.Context, ready chan struct{}) {
	c := r.cluster
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	defer signal()
	for {
		err := c.store.Listen(ctx, signal, r.wake)
		signal()
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("cluster wake-ups interrupted; listening again", "node_id", c.info.ID, "error", err)
		t := time.NewTimer(c.heartbeat)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		r.wakeScheduler()
	}
}

// wake hands a Wake from another node to the waiting long polls and the
// scheduler.
func (r *Runtime) wake(w Wake) {
	for typ, n := range w.Jobs {
		for range n {
			r.jobReady.notify(typ)
		}
	}
	if w.Timers {
		r.wakeScheduler()
	}
}

// leave stops the heartbeat and the listener and removes the node's
// registration, so its claims pass to the others at once.
func (r *Runtime) leave() {
	c := r.cluster
	if c == nil || c.cancel == nil {
		return
	}
	c.cancel()
	c.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.store.Leave(ctx); err != nil {
		r.log.Error("leaving the cluster failed; the others remove the node once it is silent", "node_id", c.info.ID, "error", err)
	}
}

// Nodes lists the nodes of the cluster, oldest first. On a store that is
// not shared it is this one node, its heartbeat now.
func (r *Runtime) Nodes(ctx context.Context) ([]NodeRow, error) {
	if r.cluster == nil {
		self := r.self
		self.HeartbeatAt = r.now().UTC()
		return []NodeRow{self}, nil
	}
	nodes, err := r.cluster.store.Nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: cluster nodes: %w", err)
	}
	return nodes, nil
}

// NodeID is the id of this node.
func (r *Runtime) NodeID() string { return r.self.ID }

// stale reports whether a step failed because another node committed its
// instance first, so it is worth re-running.
func stale(err error) bool { return errors.Is(err, ErrStale) }

// movedOn reports whether a cached state with row's revision is behind
// the store's: on a shared store only (a single node's cache is always
// current). Its one query runs only when a step on a cached state was
// refused, never on the path of a step that commits. An error reading the
// row counts as moved on: the step then runs again on what the store
// holds, which is safe.
func (r *Runtime) movedOn(ctx context.Context, row InstanceRow) bool {
	if r.cluster == nil {
		return false
	}
	cur, err := r.store.InstanceRow(ctx, row.ID)
	return err != nil || cur.Revision != row.Revision
}

// homedElsewhere returns the set of running instances homed on another
// registered node, which a starting node does not resume: their home owes
// them their after-commit work (its outbox rows pass to the others once
// it is removed), and resuming them here would race it (a call's
// hand-over delivered twice) and fill this node's cache with states the
// home node moves on. Empty on a store that is not shared.
func (r *Runtime) homedElsewhere(ctx context.Context) (map[InstanceID]bool, error) {
	if r.cluster == nil {
		return nil, nil
	}
	ids, err := r.cluster.store.HomedElsewhere(ctx)
	if err != nil {
		return nil, fmt.Errorf("instances homed on other nodes: %w", err)
	}
	out := make(map[InstanceID]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// resumeHomedOn resumes the running instances homed on the removed nodes,
// as a start-up resumes its own (resumeOne); failures are logged.
func (r *Runtime) resumeHomedOn(ctx context.Context, removed []string) {
	ids, err := r.cluster.store.HomedOn(ctx, removed)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("listing the removed nodes' instances failed; the next node to start resumes them", "nodes", removed, "error", err)
		}
		return
	}
	resumed := 0
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		if err := r.resumeOne(ctx, id); err != nil {
			r.log.Error("resume failed", "instance_id", id, "error", err)
			continue
		}
		resumed++
	}
	if len(ids) > 0 {
		r.log.Info("instances of removed nodes resumed", "nodes", removed, "count", resumed, "failed", len(ids)-resumed)
	}
}

// dueTimers returns the due timers this node is to fire: those it claims
// on a shared store, all due ones otherwise.
func (r *Runtime) dueTimers(ctx context.Context, now time.Time, limit int) ([]WaitRow, error) {
	if r.cluster != nil {
		return r.cluster.store.ClaimDueTimers(ctx, now, limit)
	}
	return r.store.DueTimers(ctx, now, limit)
}

// nextTimer returns when the scheduler must look again for due timers.
func (r *Runtime) nextTimer(ctx context.Context) (time.Time, bool, error) {
	if r.cluster != nil {
		return r.cluster.store.NextClaimableTimer(ctx)
	}
	return r.store.NextTimer(ctx)
}

// outboxPage returns the outbox rows a drain may perform: those this node
// claims on a shared store, all of them otherwise.
func (r *Runtime) outboxPage(ctx context.Context, limit int) ([]OutboxRow, error) {
	if r.cluster != nil {
		return r.cluster.store.ClaimOutbox(ctx, limit)
	}
	return r.store.Outbox(ctx, limit)
}

// pollEvery bounds a long poll's wait between looks on a shared store,
// where a wake-up from another node may be lost; 0 on a single node.
func (r *Runtime) pollEvery() time.Duration {
	if r.cluster == nil {
		return 0
	}
	return r.cluster.heartbeat
}

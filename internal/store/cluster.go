package store

import (
	"context"
	"time"
)

// NodeInfo is what a node says about itself when it registers.
type NodeInfo struct {
	// ID names the node; "" mints one (a store shared by several nodes
	// uses its own, ClusterStore.NodeID).
	ID string
	// Address is where the node answers (its public URL or listen address).
	Address string
	// Version is the gobpm version the node runs.
	Version string
}

// NodeRow is one registered node.
type NodeRow struct {
	ID          string
	Address     string
	Version     string
	StartedAt   time.Time
	HeartbeatAt time.Time
}

// Wake is what a commit on one node asks the other nodes to look at.
type Wake struct {
	// Jobs counts, per job type, the jobs the commit made activatable.
	Jobs map[string]int
	// Timers reports that the commit armed timers.
	Timers bool
}

// ClusterStore is the optional part of a Store that several gobpm
// processes (nodes) share; the PostgreSQL store implements it. Claims are
// made for the node NodeID names and hold while that node is registered.
type ClusterStore interface {
	Store
	// NodeID is the id of this process in the cluster: the one its
	// registration, its claims and its wake-ups carry.
	NodeID() string
	// Heartbeat registers this node (n.ID is ignored: NodeID is used) or
	// refreshes its heartbeat, on the database's clock, and removes the
	// nodes whose last heartbeat is older than timeout; their claims
	// become free. It returns the ids of the nodes it removed.
	Heartbeat(ctx context.Context, n NodeInfo, timeout time.Duration) (removed []string, err error)
	// Leave removes this node's registration, freeing its claims.
	Leave(ctx context.Context) error
	// Nodes lists the registered nodes, oldest first.
	Nodes(ctx context.Context) ([]NodeRow, error)
	// ClaimDueTimers claims for this node at most limit timer and
	// start-timer waits due at now that no other registered node holds,
	// and returns them earliest first. A claim ends when the wait is
	// removed or rewritten (a re-armed start timer is free again).
	ClaimDueTimers(ctx context.Context, now time.Time, limit int) ([]WaitRow, error)
	// NextClaimableTimer returns the earliest due time of the timers this
	// node holds or could claim.
	NextClaimableTimer(ctx context.Context) (time.Time, bool, error)
	// ClaimOutbox claims for this node at most limit outbox rows that no
	// other registered node holds and returns them, oldest first. A
	// step's rows are held from their commit by the node that committed
	// them.
	ClaimOutbox(ctx context.Context, limit int) ([]OutboxRow, error)
	// HomedElsewhere returns the running (or failed) instances whose home
	// is another registered node: the node whose step of the instance
	// committed last, which (or, once it is removed, the node that takes
	// over its claims) owes them their after-commit work.
	HomedElsewhere(ctx context.Context) ([]InstanceID, error)
	// HomedOn returns the running (or failed) instances homed on one of
	// nodes.
	HomedOn(ctx context.Context, nodes []string) ([]InstanceID, error)
	// Listen calls wake for each Wake another node's commit publishes
	// until ctx ends (nil) or its connection fails (the error; wake-ups
	// published until it listens again are missed, polling catches up).
	// It calls listening once it receives every later commit's Wake.
	Listen(ctx context.Context, listening func(), wake func(Wake)) error
}

// ErrStale reports a step computed from a state another node has since
// changed: the instance's revision moved on. The step is re-run on the
// new state; ErrorCode gives ECONFLICT.
var ErrStale = &Error{Code: ECONFLICT, Message: "the instance was changed by another node"}

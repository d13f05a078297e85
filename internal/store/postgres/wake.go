package postgres

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gobpm/gobpm/internal/store"
)

// Wake-ups (store.Wake) tell the other nodes that a commit made jobs
// activatable or armed timers. They are hints — a node that misses one
// finds the work by polling — so they travel off the commit path: a
// commit only adds what it made ready to the pending wake-up, and one
// goroutine publishes it with pg_notify in a transaction of its own,
// committed asynchronously (synchronous_commit off: nothing waits for a
// WAL flush). What commits while it publishes goes out together next.
// Keeping NOTIFY out of the step's transaction also keeps PostgreSQL's
// notification queue lock, held from a notifying transaction's commit
// until it is flushed, off the commits of every node.

// maxWakePayload keeps a wake-up under PostgreSQL's NOTIFY payload limit
// (8000 bytes); job types beyond it are left out (polling finds them).
const maxWakePayload = 7000

// publishWakeSQL publishes one wake-up in a transaction that commits
// without waiting for its WAL flush.
const publishWakeSQL = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('` + wakeChannel + `', $1)`

// wakeMessage is the payload of a wake-up: the publishing node, the job
// types made activatable (with how many) and whether timers were armed.
type wakeMessage struct {
	Node   string         `json:"n"`
	Jobs   map[string]int `json:"j,omitempty"`
	Timers bool           `json:"t,omitempty"`
}

// waker gathers the wake-ups of committed batches and publishes them.
type waker struct {
	pool *pgxpool.Pool
	node string

	mu      sync.Mutex
	pending wakeMessage // guarded by mu
	size    int         // of pending's payload, roughly; guarded by mu

	kick     chan struct{} // something is pending
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// newWaker starts the publisher of node's wake-ups.
func newWaker(pool *pgxpool.Pool, node string) *waker {
	w := &waker{pool: pool, node: node, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.reset()
	go w.loop()
	return w
}

// reset empties the pending wake-up. The caller holds mu (or owns w).
func (w *waker) reset() {
	w.pending, w.size = wakeMessage{Node: w.node}, len(w.node)+16
}

// add adds what a committed batch of steps made ready: the jobs it made
// activatable (by type) and whether it armed timers.
func (w *waker) add(steps []store.StepRecord) {
	w.mu.Lock()
	added := false
	for i := range steps {
		for _, r := range steps[i].Waits {
			switch r.Kind {
			case store.WaitJob:
				if r.Retries <= 0 {
					continue // an incident: nothing to activate
				}
				if w.pending.Jobs == nil {
					w.pending.Jobs = map[string]int{}
				}
				if _, seen := w.pending.Jobs[r.Name]; !seen {
					if w.size+len(r.Name)+16 > maxWakePayload {
						continue
					}
					w.size += len(r.Name) + 16
				}
				w.pending.Jobs[r.Name]++
				added = true
			case store.WaitTimer, store.WaitStartTimer:
				w.pending.Timers, added = true, true
			}
		}
	}
	w.mu.Unlock()
	if added {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// take returns the pending wake-up's payload ("" when there is none) and
// empties it.
func (w *waker) take() string {
	w.mu.Lock()
	m := w.pending
	w.reset()
	w.mu.Unlock()
	if m.Jobs == nil && !m.Timers {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "" // a map of strings to ints always encodes
	}
	return string(b)
}

// loop publishes pending wake-ups until close. A wake-up that fails to
// publish is dropped: the other nodes poll.
func (w *waker) loop() {
	defer close(w.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-w.stop
		cancel()
	}()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		}
		if payload := w.take(); payload != "" {
			pctx, done := context.WithTimeout(ctx, 10*time.Second)
			_, _ = w.pool.Exec(pctx, publishWakeSQL, payload)
			done()
		}
	}
}

// close stops the publisher; what is pending is dropped. Idempotent.
func (w *waker) close() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
}

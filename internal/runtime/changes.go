package runtime

import (
	"sync"
	"sync/atomic"
)

// Change says what one committed step of this node changed, for live
// views (the cockpit's pushed updates). Steps committed by other nodes
// sharing the store are not seen here.
type Change struct {
	InstanceID InstanceID
	// ParentID is the caller of a called instance ("" for none).
	ParentID   InstanceID
	ProcessKey string
	Status     string
	// Tasks is true when the step may have opened, changed or closed user
	// tasks (it wrote a task or removed a wait); Incidents when it raised
	// or resolved incidents.
	Tasks     bool
	Incidents bool
}

// changeBuffer is how many changes a subscriber may fall behind before it
// loses them (and learns so: Subscription.Lost).
const changeBuffer = 256

// changeFeed hands every committed step's Change to its subscribers. A
// subscriber that falls behind loses changes rather than holding up the
// step that published them. The zero value is ready.
type changeFeed struct {
	mu   sync.Mutex
	subs map[*ChangeSubscription]struct{} // guarded by mu
}

// ChangeSubscription receives the changes committed after it subscribed.
type ChangeSubscription struct {
	ch   chan Change
	done <-chan struct{}
	lost atomic.Bool
	feed *changeFeed
	once sync.Once
}

// Done is closed when the runtime begins to shut down (BeginShutdown): a
// stream of changes should end then, so the server's shutdown does not
// wait for it.
func (s *ChangeSubscription) Done() <-chan struct{} { return s.done }

// C delivers the changes in commit order.
func (s *ChangeSubscription) C() <-chan Change { return s.ch }

// Lost reports, and forgets, whether changes were dropped because the
// subscriber fell behind: a view should then refresh whatever it shows.
func (s *ChangeSubscription) Lost() bool { return s.lost.Swap(false) }

// Close ends the subscription; C delivers nothing more.
func (s *ChangeSubscription) Close() {
	s.once.Do(func() {
		s.feed.mu.Lock()
		delete(s.feed.subs, s)
		s.feed.mu.Unlock()
	})
}

// subscribe registers a subscriber whose Done is done.
func (f *changeFeed) subscribe(done <-chan struct{}) *ChangeSubscription {
	s := &ChangeSubscription{ch: make(chan Change, changeBuffer), done: done, feed: f}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[*ChangeSubscription]struct{}{}
	}
	f.subs[s] = struct{}{}
	return s
}

// publish hands what rec changed to every subscriber without waiting for
// any; with none (no page open) it costs the lock alone.
func (f *changeFeed) publish(rec *StepRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) == 0 {
		return
	}
	c := changeOf(rec)
	for s := range f.subs {
		select {
		case s.ch <- c:
		default:
			s.lost.Store(true)
		}
	}
}

// changeOf is what a committed step changed.
func changeOf(rec *StepRecord) Change {
	c := Change{InstanceID: rec.Instance.ID, ParentID: rec.Instance.ParentID, ProcessKey: rec.Instance.ProcessKey,
		Status: rec.Instance.Status, Incidents: len(rec.Incidents) > 0, Tasks: len(rec.RemovedWaits) > 0}
	for _, w := range rec.Waits {
		c.Tasks = c.Tasks || w.Kind == WaitTask
	}
	return c
}

// SubscribeChanges subscribes to the changes of the steps this node
// commits from now on; Close the subscription when done.
func (r *Runtime) SubscribeChanges() *ChangeSubscription { return r.changes.subscribe(r.draining) }

package runtime

import "sync"

// notifier hands wake-ups for something keyed by a string (a job type) to
// the goroutines waiting for it, one wake-up per notify: a new job wakes one
// long-polling worker, not all of them, so a burst of workers does not race
// to the single writer for one job (the losers would each pay a write
// transaction to find nothing).
//
// The protocol loses no job: a waiter registers (wait) before it looks for
// work and selects on its channel only after finding none. A notify wakes
// the oldest waiter. A waiter that was woken but will not look again — it
// returns the jobs it already found, or its poll ends — passes the wake-up
// on to the next waiter when it releases (release(false)); only a waiter
// that goes back to look consumes it (release(true)). Waiters release their
// entry whatever happens, so a key nobody waits for holds no memory (job
// types come from requests: any string).
type notifier struct {
	mu     sync.Mutex
	queues map[string][]*waiter // guarded by mu; oldest first, never empty
}

// waiter is one registered wait: ch is closed when it is woken.
type waiter struct {
	ch    chan struct{}
	woken bool // guarded by the notifier's mu
}

func newNotifier() *notifier { return &notifier{queues: map[string][]*waiter{}} }

// wait registers a waiter for key. It returns the channel a notify of key
// closes, and release, which the caller must call once it no longer waits:
// release(true) when it was woken and goes on to look for the work, which
// consumes the wake-up; release(false) otherwise, which hands a wake-up it
// got on to the next waiter.
func (n *notifier) wait(key string) (<-chan struct{}, func(consumed bool)) {
	w := &waiter{ch: make(chan struct{})}
	n.mu.Lock()
	n.queues[key] = append(n.queues[key], w)
	n.mu.Unlock()
	return w.ch, func(consumed bool) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if !w.woken {
			n.remove(key, w)
			return
		}
		if !consumed {
			n.wakeOne(key)
		}
	}
}

// notify wakes the oldest waiter of key, if any.
func (n *notifier) notify(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.wakeOne(key)
}

// notifyAll wakes every waiter of every key: the time they wait for may
// have come (a manual clock moved).
func (n *notifier) notifyAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for key, q := range n.queues {
		for range q {
			n.wakeOne(key)
		}
	}
}

// wakeOne wakes and dequeues the oldest waiter of key. The caller holds mu.
func (n *notifier) wakeOne(key string) {
	q := n.queues[key]
	if len(q) == 0 {
		return
	}
	w := q[0]
	q[0] = nil
	if q = q[1:]; len(q) == 0 {
		delete(n.queues, key)
	} else {
		n.queues[key] = q
	}
	w.woken = true
	close(w.ch)
}

// remove dequeues w, which was not woken. The caller holds mu.
func (n *notifier) remove(key string, w *waiter) {
	q := n.queues[key]
	for i, x := range q {
		if x == w {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(n.queues, key)
	} else {
		n.queues[key] = q
	}
}

// len returns how many keys have waiters.
func (n *notifier) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.queues)
}

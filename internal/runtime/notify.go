package runtime

import "sync"

// notifier wakes goroutines waiting for something keyed by a string (a job
// type): wait returns a channel that is closed by the next notify of the key.
// Getting the channel before looking for work and selecting on it after
// finding none loses no wake-up. Waiters release the key when they stop
// waiting, so a key nobody waits for holds no memory (job types come from
// requests: any string).
type notifier struct {
	mu    sync.Mutex
	chans map[string]*waiters
}

// waiters is the channel of one key and how many wait on it.
type waiters struct {
	ch   chan struct{}
	refs int
}

func newNotifier() *notifier { return &notifier{chans: map[string]*waiters{}} }

// wait returns the channel the next notify of key closes, and release, which
// the caller must call once it no longer waits.
func (n *notifier) wait(key string) (<-chan struct{}, func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	w := n.chans[key]
	if w == nil {
		w = &waiters{ch: make(chan struct{})}
		n.chans[key] = w
	}
	w.refs++
	return w.ch, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		if w.refs--; w.refs == 0 && n.chans[key] == w {
			delete(n.chans, key)
		}
	}
}

func (n *notifier) notify(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w := n.chans[key]; w != nil {
		close(w.ch)
		delete(n.chans, key)
	}
}

// len returns how many keys have waiters.
func (n *notifier) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.chans)
}

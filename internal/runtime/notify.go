package runtime

import "sync"

// notifier wakes goroutines waiting for something keyed by a string (a job
// type): wait returns a channel that is closed by the next notify of the key.
// Getting the channel before looking for work and selecting on it after
// finding none loses no wake-up.
type notifier struct {
	mu    sync.Mutex
	chans map[string]chan struct{}
}

func newNotifier() *notifier { return &notifier{chans: map[string]chan struct{}{}} }

func (n *notifier) wait(key string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.chans[key]
	if ch == nil {
		ch = make(chan struct{})
		n.chans[key] = ch
	}
	return ch
}

func (n *notifier) notify(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch := n.chans[key]; ch != nil {
		close(ch)
		delete(n.chans, key)
	}
}

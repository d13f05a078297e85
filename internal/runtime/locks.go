package runtime

import "sync"

// instanceLocks hands out one mutex per instance id, so steps of one
// instance never run concurrently while steps of different instances do.
// Entries are reference-counted and dropped when unused.
type instanceLocks struct {
	mu    sync.Mutex
	locks map[InstanceID]*instanceLock
}

type instanceLock struct {
	mu   sync.Mutex
	refs int
}

func newInstanceLocks() *instanceLocks {
	return &instanceLocks{locks: map[InstanceID]*instanceLock{}}
}

// lock blocks until the caller is the instance's single writer and returns
// the function that releases it.
func (l *instanceLocks) lock(id InstanceID) (unlock func()) {
	l.mu.Lock()
	e := l.locks[id]
	if e == nil {
		e = &instanceLock{}
		l.locks[id] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		l.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(l.locks, id)
		}
		l.mu.Unlock()
	}
}

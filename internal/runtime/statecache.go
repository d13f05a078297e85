package runtime

import (
	"container/list"
	"sync"

	"github.com/gobpm/gobpm/internal/engine"
)

// DefaultStateCacheWeight bounds the decoded states the runtime keeps: the
// sum over cached instances of 1 + their scopes, tracks and waits.
const DefaultStateCacheWeight = 1 << 20

// stateCache keeps recently stepped instances decoded, so a hot instance is
// neither read nor decoded again (docs/architecture.md Persistence). An entry is only
// ever used by the holder of its instance's lock: take removes it (the
// holder owns the state while it steps), put hands it back after a commit
// succeeded. Anything that fails in between simply does not put it back,
// so a state that a failed step may have half changed is never reused.
// Least recently used entries go first when the weight is exceeded.
type stateCache struct {
	mu      sync.Mutex
	max     int
	weight  int
	lru     *list.List // of *cachedState, most recent at the front
	entries map[InstanceID]*list.Element
}

// cachedState is one instance's decoded state and the row it belongs to.
type cachedState struct {
	row    InstanceRow
	st     *engine.State
	weight int
}

// newStateCache returns a cache bounded by max weight; 0 or less disables it.
func newStateCache(max int) *stateCache {
	return &stateCache{max: max, lru: list.New(), entries: map[InstanceID]*list.Element{}}
}

// take removes and returns the cached state of id.
func (c *stateCache) take(id InstanceID) (InstanceRow, *engine.State, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		return InstanceRow{}, nil, false
	}
	cs := e.Value.(*cachedState)
	c.remove(id, e)
	return cs.row, cs.st, true
}

// put caches st as the state of row (replacing any entry of the instance).
// Ended instances are not kept: nothing steps them any more.
func (c *stateCache) put(row InstanceRow, st *engine.State) {
	if c.max <= 0 || st.Ended() {
		c.drop(row.ID)
		return
	}
	w := 1 + len(st.Tracks) + len(st.Waits) + len(st.Scopes.Scopes)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[row.ID]; ok {
		c.remove(row.ID, e)
	}
	if w > c.max {
		return
	}
	c.entries[row.ID] = c.lru.PushFront(&cachedState{row: row, st: st, weight: w})
	c.weight += w
	for c.weight > c.max {
		back := c.lru.Back()
		c.remove(back.Value.(*cachedState).row.ID, back)
	}
}

// drop forgets the state of id.
func (c *stateCache) drop(id InstanceID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[id]; ok {
		c.remove(id, e)
	}
}

// remove unlinks an entry; the caller holds mu.
func (c *stateCache) remove(id InstanceID, e *list.Element) {
	c.weight -= e.Value.(*cachedState).weight
	c.lru.Remove(e)
	delete(c.entries, id)
}

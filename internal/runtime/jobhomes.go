package runtime

import "sync"

// jobHomesGeneration bounds each generation of jobHomes: two generations
// remember the instances of the last 16–32 thousand jobs activated here.
const jobHomesGeneration = 1 << 14

// jobHomes remembers the instance of each job this runtime activated, so
// acting on the job (complete, fail, throw) can step its instance at once
// instead of reading the job's row first: the step's lock guard checks the
// token and the user in the step's own transaction, and only a refusal
// reads the row to say why (heldJob). A job activated by another process,
// or forgotten, takes the reading path; an entry can never be wrong, since
// a job never moves to another instance.
//
// It keeps two generations: a lookup finds a job in either, and a full
// current generation becomes the previous one, so memory stays bounded
// without bookkeeping per entry.
type jobHomes struct {
	mu        sync.Mutex
	cur, prev map[string]InstanceID
}

func newJobHomes() *jobHomes {
	return &jobHomes{cur: map[string]InstanceID{}}
}

// remember records the instances of activated jobs.
func (h *jobHomes) remember(rows []WaitRow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, row := range rows {
		if len(h.cur) >= jobHomesGeneration {
			h.prev, h.cur = h.cur, make(map[string]InstanceID, jobHomesGeneration)
		}
		h.cur[row.ID] = row.InstanceID
	}
}

// home returns the instance of job id, if remembered.
func (h *jobHomes) home(id string) (InstanceID, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if in, ok := h.cur[id]; ok {
		return in, true
	}
	in, ok := h.prev[id]
	return in, ok
}

// forget drops job id (it was completed or released).
func (h *jobHomes) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.cur, id)
	delete(h.prev, id)
}

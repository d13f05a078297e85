package engine

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// WaitKind is the kind of a wait.
type WaitKind string

// Wait kinds.
const (
	WaitJob     WaitKind = "job"
	WaitTask    WaitKind = "task"
	WaitTimer   WaitKind = "timer"
	WaitMessage WaitKind = "message"
	WaitSignal  WaitKind = "signal"
	// WaitCondition is a conditional event: it fires when its condition
	// turns true (evaluated after every step).
	WaitCondition WaitKind = "condition"
	// WaitCall is a call activity waiting for its child instance; the
	// wait's id is the child's instance id.
	WaitCall WaitKind = "call"
)

// Wait is something a track waits for: a job for workers, a user task, a
// timer, or a message or signal subscription. Waits are part of the
// checkpoint; the runtime mirrors them as queryable rows.
type Wait struct {
	// ID is the wait's key (job key, task id, …), unique across instances:
	// "<instance id>-w000001" (the instance's wait counter), except a call
	// activity's wait, whose id is the child instance's id, minted fresh
	// (Options.MintIDFunc) and carrying no counter.
	ID string `json:"id"`
	// Seq is the wait counter of a wait whose ID does not end in it (a
	// call wait), so waits keep their creation order; 0 otherwise.
	Seq  int64    `json:"seq,omitempty"`
	Kind WaitKind `json:"kind"`
	// TrackID is the track that waits (for a boundary: the host activity's
	// track); empty for a Handler wait, which belongs to its scope.
	TrackID string `json:"track,omitempty"`
	// NodeID is the element the wait belongs to: the task or catch event,
	// the boundary event, or the event after an event-based gateway.
	NodeID  string   `json:"node"`
	ScopeID scope.ID `json:"scope"`
	// Boundary marks a wait armed by a boundary event on the track's activity.
	Boundary bool `json:"boundary,omitempty"`
	// Gateway marks a wait armed by an event-based gateway for its target NodeID.
	Gateway bool `json:"gateway,omitempty"`
	// Handler marks a wait armed for the event sub-process NodeID in scope
	// ScopeID for as long as that scope is open.
	Handler bool `json:"handler,omitempty"`
	// Holds is the last value of a WaitCondition's condition (it fires on false → true).
	Holds bool `json:"holds,omitempty"`
	// Name is the job type, message name, signal name or task name.
	Name string `json:"name,omitempty"`
	// CorrelationKey is a message subscription's key.
	CorrelationKey string `json:"correlationKey,omitempty"`
	// DueAt is a timer's due time, a job's retry-not-before time, a task's due date.
	DueAt time.Time `json:"dueAt,omitzero"`
	// CustomHeaders are a job's static headers (bpmn.JobDef.Headers),
	// copied when the job is created so a worker sees what the version it
	// was created by says.
	CustomHeaders map[string]string `json:"customHeaders,omitempty"`
	// Retries is a job's remaining retries; Failures counts its failures.
	Retries      int    `json:"retries,omitempty"`
	Failures     int    `json:"failures,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Assignee and the candidates of a user task.
	Assignee        string   `json:"assignee,omitempty"`
	CandidateUsers  []string `json:"candidateUsers,omitempty"`
	CandidateGroups []string `json:"candidateGroups,omitempty"`
	// TimerKind, TimerText and Fired describe a timer (Fired counts firings of a cycle).
	TimerKind string    `json:"timerKind,omitempty"`
	TimerText string    `json:"timerText,omitempty"`
	Fired     int       `json:"fired,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// num returns the wait's counter: Seq, else the one its id ends in (0 if
// neither).
func (w *Wait) num() int64 {
	if w.Seq > 0 {
		return w.Seq
	}
	return suffixNum(w.ID, "-w")
}

func (w *Wait) clone() *Wait {
	c := *w
	c.CustomHeaders = maps.Clone(w.CustomHeaders)
	c.CandidateUsers = slices.Clone(w.CandidateUsers)
	c.CandidateGroups = slices.Clone(w.CandidateGroups)
	return &c
}

// Wait returns the open wait with the given id, or nil. Waits are kept in
// creation order and their ids end in an ascending counter ("…-w000012"),
// so a binary search finds one; a call wait (its counter in Seq, its id a
// UUID) and a state whose ids do not fit are scanned.
func (s *State) Wait(id string) *Wait {
	if n := suffixNum(id, "-w"); n > 0 {
		i, found := slices.BinarySearchFunc(s.Waits, n, func(w *Wait, n int64) int {
			return cmp.Compare(w.num(), n)
		})
		if found && s.Waits[i].ID == id {
			return s.Waits[i]
		}
		if numbered(s.Waits, func(w *Wait) bool { return w.num() > 0 }) {
			return nil // the search is exact: the wait is gone
		}
		for _, w := range s.Waits {
			if w.ID == id {
				return w
			}
		}
		return nil
	}
	return s.unnumberedWait(id)
}

// unnumberedWait finds the wait whose id, carrying no counter, is id
// (a call wait) through callWaits.
func (s *State) unnumberedWait(id string) *Wait {
	if w := s.callWaits[id]; w != nil && s.waitIndex(w) >= 0 {
		return w
	}
	s.callWaits = map[string]*Wait{}
	for _, w := range s.Waits {
		if suffixNum(w.ID, "-w") == 0 {
			s.callWaits[w.ID] = w
		}
	}
	return s.callWaits[id]
}

// SignalThrow asks the runtime to broadcast a signal after the step commits.
type SignalThrow struct {
	Name      string
	Variables map[string]any
}

// waitIndex returns the position of w in the state's waits, or -1.
func (s *State) waitIndex(w *Wait) int {
	if n := w.num(); n > 0 {
		i, found := slices.BinarySearchFunc(s.Waits, n, func(o *Wait, n int64) int {
			return cmp.Compare(o.num(), n)
		})
		if found && s.Waits[i] == w {
			return i
		}
	}
	return slices.Index(s.Waits, w)
}

package engine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
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
	// Listener is, for the job of an execution listener of NodeID, the
	// listener's event ("start"); "" for every other wait. ListenerIndex
	// is the listener's place among the node's listeners of that event
	// (listeners.go). An older state has neither: it holds no listener jobs.
	Listener      string `json:"listener,omitempty"`
	ListenerIndex int    `json:"listenerIndex,omitempty"`
	// TaskChange is, on a user task, the change its task listeners run
	// for (tasklisteners.go); nil when none is pending.
	TaskChange *TaskChange `json:"taskChange,omitempty"`
}

// TaskChange is a requested change of a user task that waits for the
// task's listeners of Event: an assignment (Assignee, "" for unassigning)
// or a completion by User with Variables. Corrections gather what the
// listeners corrected so far.
type TaskChange struct {
	Event       string          `json:"event"`
	Assignee    string          `json:"assignee,omitempty"`
	User        string          `json:"user,omitempty"`
	Variables   map[string]any  `json:"variables,omitempty"`
	Corrections TaskCorrections `json:"corrections,omitzero"`
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

// openWait finds an open wait of a kind and its track.
func (x *executor) openWait(id string, kind WaitKind) (*Wait, *Track, error) {
	w := x.st.Wait(id)
	if w == nil || w.Kind != kind {
		return nil, nil, fmt.Errorf("engine: %s %s in instance %s: %w", kind, id, x.st.InstanceID, ErrUnknownWait)
	}
	if w.Handler {
		return w, nil, nil // an event sub-process's wait belongs to its scope
	}
	t := x.st.Track(w.TrackID)
	if t == nil {
		return nil, nil, fmt.Errorf("engine: %s %s has no track: %w", kind, id, ErrCheckpoint)
	}
	x.markTrack(t) // an event on a wait moves its track on
	return w, t, nil
}

// finishActivity completes the activity a job or user task belongs to.
func (x *executor) finishActivity(t *Track, w *Wait) {
	n := x.node(t)
	if n == nil {
		return
	}
	t.State = TrackReady
	switch {
	case n.Kind == bpmn.KindEndEvent:
		x.finishEndEvent(t, n)
	case n.Kind == bpmn.KindIntermediateThrowEvent:
		x.thrown(t, n) // the message is sent; a multiple throw throws the rest
	default:
		x.complete(t, n)
	}
}

func (x *executor) newWait(t *Track, kind WaitKind, nodeID string) *Wait {
	return x.allocTrackWait(kind, nodeID, t.Scope, t.ID)
}

// newCallWait adds the wait of call activity nodeID on track t. Its id is
// the child instance's id: minted fresh by Options.MintIDFunc (or, without
// one, NameBasedID), never built from this instance's id, so ids stay
// short however deep a call chain goes. Its counter goes to Seq.
func (x *executor) newCallWait(t *Track, nodeID string) *Wait {
	return x.addWait(&Wait{Kind: WaitCall, NodeID: nodeID, ScopeID: t.Scope, TrackID: t.ID}, true)
}

// allocWait adds a wait. Ids are zero-padded so that, within one step (equal
// CreatedAt), their text order is their creation order: subscriptions are
// served oldest first.
func (x *executor) allocWait(kind WaitKind, nodeID string, s scope.ID) *Wait {
	return x.allocTrackWait(kind, nodeID, s, "")
}

// allocTrackWait adds a wait of track (none for "").
func (x *executor) allocTrackWait(kind WaitKind, nodeID string, s scope.ID, track string) *Wait {
	return x.addWait(&Wait{Kind: kind, NodeID: nodeID, ScopeID: s, TrackID: track}, false)
}

// addWait numbers w, names it (a fresh id for a call wait, else
// "<instance>-w%06d") and adds it to the state.
func (x *executor) addWait(w *Wait, call bool) *Wait {
	x.st.NextWait++
	w.CreatedAt = x.now
	switch {
	case !call:
		w.ID = fmt.Sprintf("%s-w%06d", x.st.InstanceID, x.st.NextWait)
	case x.opts.MintIDFunc != nil:
		w.ID, w.Seq = x.opts.MintIDFunc(), int64(x.st.NextWait)
	default:
		w.ID, w.Seq = NameBasedID(x.st.InstanceID, int64(x.st.NextWait)), int64(x.st.NextWait)
	}
	track := w.TrackID
	x.st.Waits = append(x.st.Waits, w)
	if x.st.callWaits != nil && call {
		x.st.callWaits[w.ID] = w
	}
	if x.st.waitsOf != nil && track != "" {
		x.st.waitsOf[track] = append(x.st.waitsOf[track], w)
	}
	x.touch(w.ID)
	return w
}

// withdrawWaits removes every wait of track t (its own and its boundaries').
func (x *executor) withdrawWaits(t *Track) {
	if x.sw != nil {
		for _, w := range x.sw.waits[t.ID] {
			if !x.sw.goneWaits[w] {
				x.removeWait(w)
			}
		}
		return
	}
	for _, w := range slices.Clone(x.st.trackWaits(t.ID)) {
		x.removeWait(w)
	}
}

func (x *executor) removeWait(w *Wait) {
	if x.sw != nil {
		x.sw.goneWaits[w] = true // endSweep drops it from the list
	} else if i := x.st.waitIndex(w); i >= 0 {
		x.st.Waits = slices.Delete(x.st.Waits, i, i+1)
		if x.st.waitsOf != nil && w.TrackID != "" {
			mine := slices.DeleteFunc(x.st.waitsOf[w.TrackID], func(o *Wait) bool { return o == w })
			if len(mine) == 0 {
				delete(x.st.waitsOf, w.TrackID)
			} else {
				x.st.waitsOf[w.TrackID] = mine
			}
		}
	}
	x.touch(w.ID)
	for _, in := range slices.Clone(x.st.Incidents) {
		if in.WaitID == w.ID {
			x.resolveIncidentID(in.ID, "job withdrawn")
		}
	}
	if w.Kind == WaitCall && !slices.Contains(x.consumed, w.ID) {
		x.fx.CancelChildren = append(x.fx.CancelChildren, w.ID) // the call was withdrawn: cascade
	}
}

func (x *executor) touch(id string) {
	if x.touchedSet == nil {
		x.touchedSet = map[string]bool{}
	}
	if !x.touchedSet[id] {
		x.touchedSet[id] = true
		x.touched = append(x.touched, id)
	}
}

// finishWaits turns the touched wait ids into the step's wait effects.
func (x *executor) finishWaits() {
	for _, id := range x.touched {
		if w := x.st.Wait(id); w != nil {
			x.fx.Waits = append(x.fx.Waits, *w.clone())
		} else {
			x.fx.RemovedWaits = append(x.fx.RemovedWaits, id)
		}
	}
}

package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// FormatVersion is the checkpoint format this package writes.
const FormatVersion = 1

// Instance statuses.
//
// StatusRunning: active, no open incident of its own. StatusFailed: either
// stopped on at least one open incident (not ended: it goes on once every
// incident is retried) or — with an end time, State.Failure set — ended by
// an error it could not handle and handed to its caller (final).
// StatusCompleted and StatusTerminated (cancelled) are final.
const (
	StatusRunning    = "running"
	StatusCompleted  = "completed"
	StatusTerminated = "terminated"
	StatusFailed     = "failed"
)

// TrackState says what a track is doing.
type TrackState string

// Track states.
const (
	// TrackReady tracks are about to execute their node within this step.
	TrackReady TrackState = "ready"
	// TrackJoining tracks wait at a parallel gateway for the other incoming flows.
	TrackJoining TrackState = "joining"
	// TrackInScope tracks host a sub-process and wait for its scope to drain.
	TrackInScope TrackState = "in-scope"
	// TrackIncident tracks are stopped by an incident until it is resolved.
	TrackIncident TrackState = "incident"
	// TrackWaiting tracks wait for one of their waits (job, user task,
	// timer, message, signal) to complete or fire.
	TrackWaiting TrackState = "waiting"
)

// Track is one token.
type Track struct {
	ID    string     `json:"id"`
	Scope scope.ID   `json:"scope"`
	Node  string     `json:"node"`
	State TrackState `json:"state"`
	// Via is the sequence flow the track arrived on ("" for seeded tracks).
	Via string `json:"via,omitempty"`
	// Child is the scope a TrackInScope track hosts.
	Child scope.ID `json:"child,omitempty"`
	// Incident is the id of the incident stopping a TrackIncident track.
	Incident string `json:"incident,omitempty"`
	// Inner marks a track that runs one iteration of a loop or
	// multi-instance activity: its completion ends the iteration, not the
	// activity, and the activity's boundary events guard the body instead.
	Inner bool `json:"inner,omitempty"`
	// Done marks a track stopped by an incident after its element had
	// already completed (a failing completion condition or router): a retry
	// continues by leaving the element instead of running it again.
	Done bool `json:"done,omitempty"`
	// Inputs are the variables an ad-hoc activation gave the activity the
	// track starts (docs/scopes.md#ad-hoc-sub-processes): written into the activity's own scope when
	// it is entered (again after a retry), dropped when it is left. The map
	// is replaced, never changed in place (clones share it).
	Inputs map[string]any `json:"inputs,omitempty"`
}

// Incident is an open problem of the instance that needs an operator.
type Incident struct {
	ID      string   `json:"id"`
	TrackID string   `json:"track"`
	NodeID  string   `json:"node"`
	ScopeID scope.ID `json:"scope"`
	// WaitID is the job whose retries ran out, for job incidents.
	WaitID  string    `json:"wait,omitempty"`
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
	// Resolved is set when the incident is closed (then it leaves the state).
	Resolved time.Time `json:"resolved,omitzero"`
}

// Incident kinds.
const (
	IncidentExpression   = "expression-failed"
	IncidentNoFlow       = "no-outgoing-flow"
	IncidentDepth        = "scope-depth-exceeded"
	IncidentStepBudget   = "step-budget-exceeded"
	IncidentUnknownModel = "model-mismatch"
	IncidentJobFailed    = "job-failed"
	IncidentUnhandled    = "unhandled-error"
	IncidentTimer        = "timer-invalid"
	IncidentChildMissing = "child-missing"
	// IncidentCallTreeBudget: the runtime did not launch a call because
	// the command would pass its call-tree budget (CallRefused).
	IncidentCallTreeBudget = "call-tree-budget-exceeded"
)

// State is the checkpoint of one instance: everything needed to resume it.
type State struct {
	Format         int    `json:"format"`
	InstanceID     string `json:"instanceId"`
	ProcessKey     string `json:"processKey"`
	ProcessVersion int    `json:"processVersion"`
	Status         string `json:"status"`
	// Scopes is the open scope tree.
	Scopes *scope.Tree `json:"scopes"`
	// Tracks are the live tracks in creation order.
	Tracks []*Track `json:"tracks"`
	// Incidents are the open incidents.
	Incidents []*Incident `json:"incidents,omitempty"`
	// Waits are the open waits: jobs, user tasks, timers and subscriptions.
	Waits []*Wait `json:"waits,omitempty"`
	// BusinessKey is the instance's business key ("" when none): Camunda 7
	// expressions read it (execution.processBusinessKey).
	BusinessKey string `json:"businessKey,omitempty"`
	// Counters minting deterministic ids and fact sequence numbers.
	NextTrack    int   `json:"nextTrack"`
	NextIncident int   `json:"nextIncident"`
	NextFact     int64 `json:"nextFact"`
	NextWait     int   `json:"nextWait,omitempty"`

	// Parent links a called child to its caller: the caller instance, its
	// call activity node and the call wait (nil for a top-level instance).
	Parent *ParentLink `json:"parent,omitempty"`
	// CallChain lists the process keys from the top-level instance down to
	// this one (for the call-depth guard and its error text).
	CallChain []string `json:"callChain,omitempty"`
	// Failure is set when the instance ended because of an error it could
	// not handle and handed to its caller; Status is then failed and final.
	Failure *Failure `json:"failure,omitempty"`
	// Regions are the open ad-hoc regions.
	Regions []*Region `json:"regions,omitempty"`
	// Bodies are the running loop and multi-instance bodies.
	Bodies []*Body `json:"bodies,omitempty"`
	// Entries are the completed activities that can still be compensated
	// (docs/scopes.md#tracks), in completion order.
	Entries   []*Entry `json:"entries,omitempty"`
	NextEntry int      `json:"nextEntry,omitempty"`

	// waitsOf indexes the waits of each track. It is derived from Waits,
	// built on first use (trackWaits) and kept up to date by the executor
	// that adds and removes waits; nil means not built.
	waitsOf map[string][]*Wait
	// callWaits indexes by id the waits whose id carries no counter (a
	// call activity's wait, named after its child), so a child's outcome
	// finds its wait without a scan of every wait. Like waitsOf it is
	// derived from Waits: built on first use, added to by the executor,
	// each hit checked against Waits and the index rebuilt on a miss;
	// nil means not built.
	callWaits map[string]*Wait
}

// trackWaits returns the open waits of a track (its own and its
// boundaries'), in creation order. The caller must not change the slice.
func (s *State) trackWaits(id string) []*Wait {
	if s.waitsOf == nil {
		s.waitsOf = map[string][]*Wait{}
		for _, w := range s.Waits {
			if w.TrackID != "" {
				s.waitsOf[w.TrackID] = append(s.waitsOf[w.TrackID], w)
			}
		}
	}
	return s.waitsOf[id]
}

// ParentLink is a called child's link to its caller.
type ParentLink struct {
	InstanceID string `json:"instanceId"`
	NodeID     string `json:"nodeId"`
	WaitID     string `json:"waitId"`
	// All asks the child to hand every variable of its root scope to the
	// caller when it completes (Call.ReturnAll), unless its process
	// declares an ioSpecification, whose outputs are then its contract.
	All bool `json:"all,omitempty"`
}

// Failure is the uncaught BPMN error that ended a called child.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// NewState returns the empty state of a new instance; apply a Start event to it.
func NewState(instanceID, processKey string, processVersion int) *State {
	return &State{
		Format:         FormatVersion,
		InstanceID:     instanceID,
		ProcessKey:     processKey,
		ProcessVersion: processVersion,
		Status:         StatusRunning,
		Scopes:         scope.NewTree(nil),
	}
}

// Ended reports whether the instance reached a final status.
func (s *State) Ended() bool {
	return s.Status == StatusCompleted || s.Status == StatusTerminated || s.Failure != nil
}

// Track returns the live track with the given id, or nil. Tracks are kept
// in creation order, so their numeric ids ascend: a binary search finds one
// (a step looks tracks up once per activation; a linear scan made a step
// over n tracks quadratic). A state whose ids are not ascending is scanned.
func (s *State) Track(id string) *Track {
	if n, ok := trackNum(id); ok {
		i, found := slices.BinarySearchFunc(s.Tracks, n, func(t *Track, n int) int {
			m, _ := trackNum(t.ID)
			return cmp.Compare(m, n)
		})
		if found && s.Tracks[i].ID == id {
			return s.Tracks[i]
		}
		if numbered(s.Tracks, func(t *Track) bool { _, ok := trackNum(t.ID); return ok }) {
			return nil // the search is exact: the track is gone
		}
	}
	for _, t := range s.Tracks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// trackIndex returns the position of t in the state's tracks, or -1.
func (s *State) trackIndex(t *Track) int {
	if n, ok := trackNum(t.ID); ok {
		i, found := slices.BinarySearchFunc(s.Tracks, n, func(o *Track, n int) int {
			m, _ := trackNum(o.ID)
			return cmp.Compare(m, n)
		})
		if found && s.Tracks[i] == t {
			return i
		}
	}
	return slices.Index(s.Tracks, t)
}

// numbered reports whether the first and last element of list have
// counter ids (as every state the engine builds does), so a binary search
// over them is exact and a miss needs no scan.
func numbered[T any](list []T, ok func(T) bool) bool {
	return len(list) == 0 || (ok(list[0]) && ok(list[len(list)-1]))
}

// trackNum reads the counter of a track id "t<n>".
func trackNum(id string) (int, bool) {
	if len(id) < 2 || id[0] != 't' {
		return 0, false
	}
	n, err := strconv.Atoi(id[1:])
	return n, err == nil
}

// Clone returns a deep copy of the state.
func (s *State) Clone() *State {
	c := *s
	c.waitsOf = nil // indexes the original's waits
	c.callWaits = nil
	c.Scopes = s.Scopes.Clone()
	c.Tracks = make([]*Track, len(s.Tracks))
	for i, t := range s.Tracks {
		cp := *t
		c.Tracks[i] = &cp
	}
	c.Incidents = nil
	for _, in := range s.Incidents {
		cp := *in
		c.Incidents = append(c.Incidents, &cp)
	}
	c.Waits = nil
	for _, w := range s.Waits {
		c.Waits = append(c.Waits, w.clone())
	}
	if s.Parent != nil {
		p := *s.Parent
		c.Parent = &p
	}
	c.CallChain = slices.Clone(s.CallChain)
	if s.Failure != nil {
		f := *s.Failure
		c.Failure = &f
	}
	c.Regions = nil
	for _, r := range s.Regions {
		c.Regions = append(c.Regions, r.clone())
	}
	c.Bodies = nil
	for _, b := range s.Bodies {
		c.Bodies = append(c.Bodies, b.clone())
	}
	c.Entries = nil
	for _, e := range s.Entries {
		c.Entries = append(c.Entries, e.clone())
	}
	return &c
}

// ErrCheckpoint reports a checkpoint that cannot be decoded.
var ErrCheckpoint = errors.New("invalid checkpoint")

// Marshal serializes the state as a checkpoint.
func (s *State) Marshal() ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("engine: marshal checkpoint of %s: %w", s.InstanceID, err)
	}
	return b, nil
}

// Unmarshal decodes a checkpoint written by Marshal. Numbers come back as
// json.Number so they stay exact.
func Unmarshal(data []byte) (*State, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("engine: %w: %v", ErrCheckpoint, err)
	}
	if s.Format != FormatVersion {
		return nil, fmt.Errorf("engine: %w: format %d, want %d", ErrCheckpoint, s.Format, FormatVersion)
	}
	if s.Scopes == nil || s.Scopes.Get(scope.RootID) == nil {
		return nil, fmt.Errorf("engine: %w: no root scope", ErrCheckpoint)
	}
	for _, t := range s.Tracks {
		if t == nil || s.Scopes.Get(t.Scope) == nil {
			return nil, fmt.Errorf("engine: %w: track in unknown scope", ErrCheckpoint)
		}
	}
	for _, in := range s.Incidents {
		if in == nil {
			return nil, fmt.Errorf("engine: %w: null incident", ErrCheckpoint)
		}
	}
	for _, w := range s.Waits {
		if w == nil || (w.Handler && s.Scopes.Get(w.ScopeID) == nil) || (!w.Handler && s.Track(w.TrackID) == nil) {
			return nil, fmt.Errorf("engine: %w: wait without its track or scope", ErrCheckpoint)
		}
	}
	return &s, nil
}

// HasReadyTracks reports whether a Resume step would do anything.
func (s *State) HasReadyTracks() bool {
	for _, t := range s.Tracks {
		if t.State == TrackReady {
			return true
		}
	}
	return false
}

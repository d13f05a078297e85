package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/scope"
)

// PartsFormat is the state format this package writes: a small header plus
// one part per scope, track, wait, incident, region, body, body items,
// iteration result and compensation entry. Format 1 was a single checkpoint document (see
// Unmarshal, kept to upgrade old instances).
const PartsFormat = 2

// Part kinds: what one part of a state holds.
const (
	// PartScope is an open scope with its local variables; key: scope id.
	PartScope = "scope"
	// PartTrack is a live track; key: track id.
	PartTrack = "track"
	// PartWait is an open wait; key: wait id.
	PartWait = "wait"
	// PartIncident is an open incident; key: incident id.
	PartIncident = "incident"
	// PartRegion is an open ad-hoc region; key: its scope id.
	PartRegion = "region"
	// PartBody is a loop or multi-instance body's counters; key: its scope id.
	PartBody = "body"
	// PartItems is a multi-instance body's input collection, written once
	// when the body opens; key: the body's scope id.
	PartItems = "items"
	// PartResult is one iteration's output element; key: the body's scope
	// id and the 1-based index ("s7#12").
	PartResult = "result"
)

// PartRef names one part of a state.
type PartRef struct {
	Kind string
	Key  string
}

// Part is one encoded piece of a state. Ord orders the parts of one kind
// (creation order), so decoding restores every list in its order.
type Part struct {
	Kind string
	Key  string
	Ord  int64
	Data []byte
}

// header is the part of a state that is not a list: written by every step,
// a few hundred bytes whatever the instance's size.
type header struct {
	Format         int         `json:"format"`
	InstanceID     string      `json:"instanceId"`
	ProcessKey     string      `json:"processKey"`
	ProcessVersion int         `json:"processVersion"`
	BusinessKey    string      `json:"businessKey,omitempty"`
	Status         string      `json:"status"`
	NextTrack      int         `json:"nextTrack,omitempty"`
	NextIncident   int         `json:"nextIncident,omitempty"`
	NextFact       int64       `json:"nextFact,omitempty"`
	NextWait       int         `json:"nextWait,omitempty"`
	NextScope      int         `json:"nextScope,omitempty"`
	NextEntry      int         `json:"nextEntry,omitempty"`
	Parent         *ParentLink `json:"parent,omitempty"`
	CallChain      []string    `json:"callChain,omitempty"`
	Failure        *Failure    `json:"failure,omitempty"`
}

// bodyPart is a Body without its items and results (parts of their own).
type bodyPart struct {
	NodeID     string `json:"node"`
	Count      int    `json:"count,omitempty"`
	Started    int    `json:"started,omitempty"`
	Active     int    `json:"active,omitempty"`
	Completed  int    `json:"completed,omitempty"`
	Terminated int    `json:"terminated,omitempty"`
	// Slots says the body collects results; Results is len(Body.Results),
	// the slots filled from result parts. Items says an items part exists.
	Slots   bool `json:"slots,omitempty"`
	Results int  `json:"results,omitempty"`
	Items   bool `json:"items,omitempty"`
}

// EncodeHeader encodes the state's header.
func (s *State) EncodeHeader() ([]byte, error) {
	h := header{
		Format: PartsFormat, InstanceID: s.InstanceID, ProcessKey: s.ProcessKey, ProcessVersion: s.ProcessVersion,
		BusinessKey: s.BusinessKey, Status: s.Status, NextTrack: s.NextTrack, NextIncident: s.NextIncident, NextFact: s.NextFact,
		NextWait: s.NextWait, NextScope: s.Scopes.Next, NextEntry: s.NextEntry, Parent: s.Parent, CallChain: s.CallChain, Failure: s.Failure,
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("engine: encode header of %s: %w", s.InstanceID, err)
	}
	return b, nil
}

// Parts encodes every part of the state, in kind and creation order.
func (s *State) Parts() ([]Part, error) {
	var out []Part
	add := func(kind, key string) error {
		p, ok, err := s.EncodePart(PartRef{Kind: kind, Key: key})
		if err != nil {
			return err
		}
		if ok {
			out = append(out, p)
		}
		return nil
	}
	for _, sc := range s.Scopes.All() {
		if err := add(PartScope, string(sc.ID)); err != nil {
			return nil, err
		}
	}
	for _, t := range s.Tracks {
		if err := add(PartTrack, t.ID); err != nil {
			return nil, err
		}
	}
	for _, w := range s.Waits {
		if err := add(PartWait, w.ID); err != nil {
			return nil, err
		}
	}
	for _, in := range s.Incidents {
		if err := add(PartIncident, in.ID); err != nil {
			return nil, err
		}
	}
	for _, r := range s.Regions {
		if err := add(PartRegion, string(r.ScopeID)); err != nil {
			return nil, err
		}
	}
	for _, e := range s.Entries {
		if err := add(PartEntry, e.ID); err != nil {
			return nil, err
		}
	}
	for _, b := range s.Bodies {
		if err := add(PartBody, string(b.ScopeID)); err != nil {
			return nil, err
		}
		if err := add(PartItems, string(b.ScopeID)); err != nil {
			return nil, err
		}
		for i, r := range b.Results {
			if r != nil {
				if err := add(PartResult, resultKey(b.ScopeID, i+1)); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// Delta encodes the parts named in changed: the ones the state still has
// are written, the others were removed. Its cost follows len(changed), not
// the state's size.
func (s *State) Delta(changed []PartRef) (put []Part, removed []PartRef, err error) {
	for _, ref := range changed {
		p, ok, err := s.EncodePart(ref)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			put = append(put, p)
		} else {
			removed = append(removed, ref)
		}
	}
	return put, removed, nil
}

// EncodePart encodes one part; ok is false when the state does not hold it.
func (s *State) EncodePart(ref PartRef) (p Part, ok bool, err error) {
	var v any
	var ord int64
	switch ref.Kind {
	case PartScope:
		sc := s.Scopes.Get(scope.ID(ref.Key))
		if sc == nil {
			return Part{}, false, nil
		}
		v, ord = sc, int64(sc.Seq)
	case PartTrack:
		t := s.Track(ref.Key)
		if t == nil {
			return Part{}, false, nil
		}
		n, _ := trackNum(t.ID)
		v, ord = t, int64(n)
	case PartWait:
		w := s.Wait(ref.Key)
		if w == nil {
			return Part{}, false, nil
		}
		v, ord = w, w.num()
	case PartIncident:
		in := s.incident(ref.Key)
		if in == nil {
			return Part{}, false, nil
		}
		v, ord = in, suffixNum(in.ID, "-i")
	case PartRegion:
		r := s.region(scope.ID(ref.Key))
		if r == nil {
			return Part{}, false, nil
		}
		v, ord = r, scopeNum(r.ScopeID)
	case PartBody, PartItems:
		b := s.body(scope.ID(ref.Key))
		if b == nil {
			return Part{}, false, nil
		}
		ord = scopeNum(b.ScopeID)
		if ref.Kind == PartItems {
			if b.Items == nil {
				return Part{}, false, nil
			}
			v = b.Items
		} else {
			v = bodyPart{NodeID: b.NodeID, Count: b.Count, Started: b.Started, Active: b.Active, Completed: b.Completed,
				Terminated: b.Terminated, Slots: b.Results != nil, Results: len(b.Results), Items: b.Items != nil}
		}
	case PartEntry:
		e := s.entry(ref.Key)
		if e == nil {
			return Part{}, false, nil
		}
		v, ord = e, entryNum(e.ID)
	case PartResult:
		sid, i, okKey := parseResultKey(ref.Key)
		b := s.body(sid)
		if !okKey || b == nil || i < 1 || i > len(b.Results) || b.Results[i-1] == nil {
			return Part{}, false, nil
		}
		v, ord = b.Results[i-1], int64(i)
	default:
		return Part{}, false, fmt.Errorf("engine: encode part of %s: unknown kind %q", s.InstanceID, ref.Kind)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Part{}, false, fmt.Errorf("engine: encode %s %s of %s: %w", ref.Kind, ref.Key, s.InstanceID, err)
	}
	return Part{Kind: ref.Kind, Key: ref.Key, Ord: ord, Data: data}, true, nil
}

// Decode rebuilds a state from its header and parts (in any order). It
// checks that the parts fit together: a root scope, every track in a known
// scope, every wait with its track or scope.
func Decode(headerData []byte, parts []Part) (*State, error) {
	var h header
	if err := decodeJSON(headerData, &h); err != nil {
		return nil, fmt.Errorf("engine: %w: header: %v", ErrCheckpoint, err)
	}
	if h.Format != PartsFormat {
		return nil, fmt.Errorf("engine: %w: header format %d, want %d", ErrCheckpoint, h.Format, PartsFormat)
	}
	s := &State{
		Format: FormatVersion, InstanceID: h.InstanceID, ProcessKey: h.ProcessKey, ProcessVersion: h.ProcessVersion,
		BusinessKey: h.BusinessKey, Status: h.Status, NextTrack: h.NextTrack, NextIncident: h.NextIncident, NextFact: h.NextFact, NextWait: h.NextWait, NextEntry: h.NextEntry,
		Parent: h.Parent, CallChain: h.CallChain, Failure: h.Failure,
		Scopes: &scope.Tree{Scopes: map[scope.ID]*scope.Scope{}, Next: h.NextScope},
	}
	sorted := slices.Clone(parts)
	slices.SortStableFunc(sorted, func(a, b Part) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Ord, b.Ord), cmp.Compare(a.Key, b.Key))
	})
	type result struct {
		body  scope.ID
		index int
		value any
	}
	var (
		results []result
		items   = map[scope.ID][]any{}
	)
	for _, p := range sorted {
		bad := func(err error) error {
			return fmt.Errorf("engine: %w: %s %s: %v", ErrCheckpoint, p.Kind, p.Key, err)
		}
		switch p.Kind {
		case PartScope:
			var sc scope.Scope
			if err := decodeJSON(p.Data, &sc); err != nil {
				return nil, bad(err)
			}
			if sc.Vars == nil {
				sc.Vars = map[string]any{}
			}
			s.Scopes.Scopes[sc.ID] = &sc
		case PartTrack:
			var t Track
			if err := decodeJSON(p.Data, &t); err != nil {
				return nil, bad(err)
			}
			s.Tracks = append(s.Tracks, &t)
		case PartWait:
			var w Wait
			if err := decodeJSON(p.Data, &w); err != nil {
				return nil, bad(err)
			}
			s.Waits = append(s.Waits, &w)
		case PartIncident:
			var in Incident
			if err := decodeJSON(p.Data, &in); err != nil {
				return nil, bad(err)
			}
			s.Incidents = append(s.Incidents, &in)
		case PartRegion:
			var r Region
			if err := decodeJSON(p.Data, &r); err != nil {
				return nil, bad(err)
			}
			s.Regions = append(s.Regions, &r)
		case PartBody:
			var bp bodyPart
			if err := decodeJSON(p.Data, &bp); err != nil {
				return nil, bad(err)
			}
			if bp.Results < 0 || bp.Results > maxDecodedSlots {
				return nil, bad(fmt.Errorf("%d result slots", bp.Results))
			}
			b := &Body{ScopeID: scope.ID(p.Key), NodeID: bp.NodeID, Count: bp.Count, Started: bp.Started, Active: bp.Active,
				Completed: bp.Completed, Terminated: bp.Terminated}
			if bp.Slots {
				b.Results = make([]any, bp.Results)
			}
			if bp.Items {
				b.Items = []any{} // filled from the items part
			}
			s.Bodies = append(s.Bodies, b)
		case PartEntry:
			var e Entry
			if err := decodeJSON(p.Data, &e); err != nil {
				return nil, bad(err)
			}
			s.Entries = append(s.Entries, &e)
		case PartItems:
			var v []any
			if err := decodeJSON(p.Data, &v); err != nil {
				return nil, bad(err)
			}
			if v == nil {
				v = []any{}
			}
			items[scope.ID(p.Key)] = v
		case PartResult:
			sid, i, ok := parseResultKey(p.Key)
			if !ok {
				return nil, bad(fmt.Errorf("malformed key"))
			}
			var v any
			if err := decodeJSON(p.Data, &v); err != nil {
				return nil, bad(err)
			}
			results = append(results, result{sid, i, v})
		default:
			return nil, fmt.Errorf("engine: %w: unknown part kind %q", ErrCheckpoint, p.Kind)
		}
	}
	for _, b := range s.Bodies {
		if b.Items == nil {
			continue
		}
		v, ok := items[b.ScopeID]
		if !ok || len(v) != b.Count {
			return nil, fmt.Errorf("engine: %w: body %s has %d items, want %d", ErrCheckpoint, b.ScopeID, len(v), b.Count)
		}
		b.Items = v
	}
	for _, r := range results {
		b := s.body(r.body)
		if b == nil || r.index < 1 || r.index > len(b.Results) {
			return nil, fmt.Errorf("engine: %w: result %s#%d has no slot", ErrCheckpoint, r.body, r.index)
		}
		b.Results[r.index-1] = r.value
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// check verifies that a decoded state fits together.
func (s *State) check() error {
	if s.Scopes == nil || s.Scopes.Get(scope.RootID) == nil {
		return fmt.Errorf("engine: %w: no root scope", ErrCheckpoint)
	}
	for _, t := range s.Tracks {
		if t == nil || s.Scopes.Get(t.Scope) == nil {
			return fmt.Errorf("engine: %w: track in unknown scope", ErrCheckpoint)
		}
	}
	for _, in := range s.Incidents {
		if in == nil {
			return fmt.Errorf("engine: %w: null incident", ErrCheckpoint)
		}
	}
	for _, w := range s.Waits {
		if w == nil || (w.Handler && s.Scopes.Get(w.ScopeID) == nil) || (!w.Handler && s.Track(w.TrackID) == nil) {
			return fmt.Errorf("engine: %w: wait without its track or scope", ErrCheckpoint)
		}
	}
	return nil
}

// decodeJSON decodes one document keeping numbers exact (json.Number).
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// CheckChanges verifies that changed names every part in which after
// differs from before (created, changed or removed). It encodes both
// states whole, so it is for tests and debugging, never for the hot path.
func CheckChanges(before, after *State, changed []PartRef) error {
	old, err := partMap(before)
	if err != nil {
		return err
	}
	cur, err := partMap(after)
	if err != nil {
		return err
	}
	listed := make(map[PartRef]bool, len(changed))
	for _, r := range changed {
		listed[r] = true
	}
	var missed []string
	for ref, p := range cur {
		if o, ok := old[ref]; (!ok || !bytes.Equal(o.Data, p.Data) || o.Ord != p.Ord) && !listed[ref] {
			missed = append(missed, fmt.Sprintf("%s %s changed", ref.Kind, ref.Key))
		}
	}
	for ref := range old {
		if _, ok := cur[ref]; !ok && !listed[ref] {
			missed = append(missed, fmt.Sprintf("%s %s removed", ref.Kind, ref.Key))
		}
	}
	if len(missed) > 0 {
		slices.Sort(missed)
		return fmt.Errorf("engine: step did not report %d changed parts: %s", len(missed), strings.Join(missed, "; "))
	}
	return nil
}

func partMap(s *State) (map[PartRef]Part, error) {
	parts, err := s.Parts()
	if err != nil {
		return nil, err
	}
	m := make(map[PartRef]Part, len(parts))
	for _, p := range parts {
		m[PartRef{Kind: p.Kind, Key: p.Key}] = p
	}
	return m, nil
}

// resultKey is the key of iteration i's result part of the body in scope s.
func resultKey(s scope.ID, i int) string { return string(s) + "#" + strconv.Itoa(i) }

// parseResultKey reads a resultKey.
func parseResultKey(key string) (scope.ID, int, bool) {
	at := strings.LastIndexByte(key, '#')
	if at < 0 {
		return "", 0, false
	}
	i, err := strconv.Atoi(key[at+1:])
	return scope.ID(key[:at]), i, err == nil
}

// suffixNum reads the counter after the last sep in an id ("…-w000012" → 12); 0 if none.
func suffixNum(id, sep string) int64 {
	at := strings.LastIndex(id, sep)
	if at < 0 {
		return 0
	}
	n, err := strconv.ParseInt(id[at+len(sep):], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// scopeNum reads the counter of a scope id "s<n>" (0 for the root).
func scopeNum(id scope.ID) int64 {
	if len(id) < 2 || id[0] != 's' {
		return 0
	}
	n, err := strconv.ParseInt(string(id[1:]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// incident returns the open incident with the given id, or nil.
func (s *State) incident(id string) *Incident {
	for _, in := range s.Incidents {
		if in.ID == id {
			return in
		}
	}
	return nil
}

// region returns the open ad-hoc region of scope id, or nil.
func (s *State) region(id scope.ID) *Region {
	for _, r := range s.Regions {
		if r.ScopeID == id {
			return r
		}
	}
	return nil
}

// body returns the running body of scope id, or nil.
func (s *State) body(id scope.ID) *Body {
	for _, b := range s.Bodies {
		if b.ScopeID == id {
			return b
		}
	}
	return nil
}

// DecodeStored decodes a state as a store holds it: a header and parts, or
// (legacy true) one whole format-1 checkpoint written before states were
// stored as parts, which the caller should rewrite as parts.
func DecodeStored(headerData []byte, parts []Part) (st *State, legacy bool, err error) {
	if len(parts) == 0 { // a parts state always has its root scope
		st, err := Unmarshal(headerData)
		return st, err == nil, err
	}
	st, err = Decode(headerData, parts)
	return st, false, err
}

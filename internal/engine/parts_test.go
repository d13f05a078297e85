package engine

import (
	"errors"
	"fmt"
	"testing"
)

// fataler is what the test helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// mustEncode encodes a state's header and every part.
func mustEncode(tb fataler, st *State) ([]byte, []Part) {
	tb.Helper()
	h, err := st.EncodeHeader()
	if err != nil {
		tb.Fatal(err)
	}
	parts, err := st.Parts()
	if err != nil {
		tb.Fatal(err)
	}
	return h, parts
}

// roundTrip stores st as header and parts and decodes it again, as the
// runtime does between steps, and fails unless the copy equals st.
func roundTrip(tb fataler, st *State) *State {
	tb.Helper()
	h, parts := mustEncode(tb, st)
	back, err := Decode(h, parts)
	if err != nil {
		tb.Fatal(err)
	}
	if a, b := fmt.Sprint(h, parts), fmt.Sprint(mustEncode(tb, back)); a != b {
		tb.Fatalf("parts round trip differs:\n%s\n%s", a, b)
	}
	return back
}

// partStore is a store of one instance's parts, written incrementally.
type partStore struct {
	header []byte
	parts  map[PartRef]Part
}

// commit writes what a step reports: the header and its delta.
func (ps *partStore) commit(tb testing.TB, st *State, changed []PartRef) {
	tb.Helper()
	h, err := st.EncodeHeader()
	if err != nil {
		tb.Fatal(err)
	}
	put, removed, err := st.Delta(changed)
	if err != nil {
		tb.Fatal(err)
	}
	ps.header = h
	if ps.parts == nil {
		ps.parts = map[PartRef]Part{}
	}
	for _, p := range put {
		ps.parts[PartRef{p.Kind, p.Key}] = p
	}
	for _, r := range removed {
		delete(ps.parts, r)
	}
}

// load decodes the stored instance.
func (ps *partStore) load(tb testing.TB) *State {
	tb.Helper()
	var all []Part
	for _, p := range ps.parts {
		all = append(all, p)
	}
	st, err := Decode(ps.header, all)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// TestIncrementalPartsFollowEverySteps runs instances of many fixtures
// through a store that receives only each step's delta, and checks that
// what it holds always decodes to the live state.
func TestIncrementalPartsFollowEverySteps(t *testing.T) {
	t.Parallel()
	type step struct {
		ev func(st *State) Event
	}
	firstWait := func(kind WaitKind) func(st *State) Event {
		return func(st *State) Event {
			for _, w := range st.Waits {
				if w.Kind == kind {
					switch kind {
					case WaitJob:
						return JobCompleted{Key: w.ID}
					case WaitTask:
						return TaskCompleted{TaskID: w.ID, User: "u"}
					}
				}
			}
			return nil
		}
	}
	cases := []struct {
		file  string
		vars  map[string]any
		steps []step
	}{
		{"job.bpmn", nil, []step{{firstWait(WaitJob)}}},
		{"reentry.bpmn", map[string]any{"amount": num("0.1")}, nil},
		{"nested.bpmn", map[string]any{"n": num("1")}, nil},
		{"terminate_sub.bpmn", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := mustProcess(t, c.file)
			var ps partStore
			st := NewState("i1", p.ID, 1)
			live, fx, err := Apply(p, st, Start{Variables: c.vars}, t0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			all, err := live.Parts()
			if err != nil {
				t.Fatal(err)
			}
			var refs []PartRef
			for _, p := range all {
				refs = append(refs, PartRef{p.Kind, p.Key})
			}
			ps.commit(t, live, append(refs, fx.Changed...))
			for i, s := range c.steps {
				ev := s.ev(live)
				if ev == nil {
					t.Fatalf("step %d: no event applies", i)
				}
				if live, fx, err = Apply(p, ps.load(t), ev, t0, Options{}); err != nil {
					t.Fatal(err)
				}
				ps.commit(t, live, fx.Changed)
				if back := ps.load(t); !sameState(t, live, back) {
					t.Fatalf("step %d: stored parts differ from the state:\n%s\n%s", i, canonical(t, live), canonical(t, back))
				}
			}
		})
	}
}

func TestDecodeRejectsBadParts(t *testing.T) {
	t.Parallel()
	root := Part{Kind: PartScope, Key: "root", Data: []byte(`{"id":"root","path":"/","vars":{}}`)}
	h := []byte(`{"format":2,"instanceId":"i1","processKey":"p","processVersion":1,"status":"running"}`)
	for name, c := range map[string]struct {
		header []byte
		parts  []Part
	}{
		"bad header":         {[]byte(`{`), []Part{root}},
		"old format":         {[]byte(`{"format":1}`), []Part{root}},
		"no root":            {h, nil},
		"track nowhere":      {h, []Part{root, {Kind: PartTrack, Key: "t1", Ord: 1, Data: []byte(`{"id":"t1","scope":"s9"}`)}}},
		"wait without track": {h, []Part{root, {Kind: PartWait, Key: "i1-w000001", Ord: 1, Data: []byte(`{"id":"i1-w000001","track":"t1"}`)}}},
		"unknown kind":       {h, []Part{root, {Kind: "nope", Key: "x"}}},
		"bad json":           {h, []Part{root, {Kind: PartTrack, Key: "t1", Data: []byte(`{`)}}},
		"result slotless":    {h, []Part{root, {Kind: PartResult, Key: "s1#1", Data: []byte(`1`)}}},
		"items missing":      {h, []Part{root, {Kind: PartBody, Key: "s1", Data: []byte(`{"node":"n","count":2,"items":true}`)}}},
		"items short": {h, []Part{root, {Kind: PartBody, Key: "s1", Data: []byte(`{"node":"n","count":2,"items":true}`)},
			{Kind: PartItems, Key: "s1", Data: []byte(`[1]`)}}},
	} {
		if _, err := Decode(c.header, c.parts); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("%s: err = %v, want ErrCheckpoint", name, err)
		}
	}
}

// FuzzDecode feeds the parts decoder stored data it did not write: it must
// refuse or decode, never panic, and what it decodes must encode and decode
// again to the same parts.
func FuzzDecode(f *testing.F) {
	h := `{"format":2,"instanceId":"i1","processKey":"p","processVersion":1,"status":"running","nextTrack":1,"nextScope":1}`
	f.Add(h, `{"id":"root","path":"/","vars":{"a":1}}`, `{"id":"t1","scope":"root","node":"n","state":"waiting"}`,
		`{"id":"i1-w000001","kind":"job","track":"t1","node":"n","scope":"root","createdAt":"2026-01-01T00:00:00Z"}`, `{"node":"n","count":2,"slots":true,"results":2}`, `[1,"x"]`)
	f.Add(h, `{"id":"root","path":"/"}`, `{"id":"t1","scope":"s1"}`, `{}`, `{}`, `null`)
	f.Add(`{"format":1}`, `{`, ``, `[]`, `{"results":-1,"slots":true}`, `{}`)
	f.Fuzz(func(t *testing.T, header, scopeData, trackData, waitData, bodyData, resultData string) {
		parts := []Part{
			{Kind: PartScope, Key: "root", Data: []byte(scopeData)},
			{Kind: PartScope, Key: "s1", Ord: 1, Data: []byte(`{"id":"s1","parent":"root","path":"/n","kind":"body","seq":1}`)},
			{Kind: PartTrack, Key: "t1", Ord: 1, Data: []byte(trackData)},
			{Kind: PartWait, Key: "i1-w000001", Ord: 1, Data: []byte(waitData)},
			{Kind: PartBody, Key: "s1", Ord: 1, Data: []byte(bodyData)},
			{Kind: PartResult, Key: "s1#1", Ord: 1, Data: []byte(resultData)},
		}
		st, err := Decode([]byte(header), parts)
		if err != nil {
			return
		}
		h2, p2 := mustEncode(t, st)
		back, err := Decode(h2, p2)
		if err != nil {
			t.Fatalf("a decoded state does not decode again: %v", err)
		}
		if a, b := fmt.Sprint(h2, p2), fmt.Sprint(mustEncode(t, back)); a != b {
			t.Fatalf("encode ∘ decode is not stable:\n%s\n%s", a, b)
		}
	})
}

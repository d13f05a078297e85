package engine

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// selfCall is a process that calls itself, with a timer boundary on the
// call so the call wait has a numbered wait after it.
const selfCall = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t">
<process id="rec" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
  <callActivity id="call" calledElement="rec"/>
  <boundaryEvent id="late" attachedToRef="call"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
  <sequenceFlow id="f2" sourceRef="call" targetRef="e"/><endEvent id="e"/>
  <sequenceFlow id="f3" sourceRef="late" targetRef="e2"/><endEvent id="e2"/>
</process></definitions>`

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// callChain starts root and follows the call chain depth levels down,
// returning the child id each level's call activity asked for.
func callChain(t *testing.T, p *bpmn.Process, root string, depth int, opts Options) []string {
	t.Helper()
	var ids []string
	id := root
	for range depth {
		st, fx, err := Step(p, NewState(id, p.ID, 1), Start{}, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(fx.Calls) != 1 {
			t.Fatalf("instance %s: %d calls, want 1", id, len(fx.Calls))
		}
		child := fx.Calls[0].ChildID
		w := st.Wait(child)
		if w == nil || w.Kind != WaitCall {
			t.Fatalf("instance %s: the call wait is not found by the child id %s", id, child)
		}
		if strings.Contains(child, id) {
			t.Errorf("child id %s is built from its parent's id %s", child, id)
		}
		ids = append(ids, child)
		id = child
	}
	return ids
}

func TestCallChildIDs(t *testing.T) {
	t.Parallel()
	defs, err := bpmn.Parse([]byte(selfCall))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	const root = "0190d9c6-6c5e-7b3a-9f00-000000000001"

	t.Run("name-based without a minter", func(t *testing.T) {
		t.Parallel()
		ids := callChain(t, p, root, 6, Options{})
		for i, id := range ids {
			if !uuidRE.MatchString(id) || id[14] != '5' {
				t.Errorf("level %d: child id %q is not a version-5 UUID", i+1, id)
			}
		}
		if again := callChain(t, p, root, 6, Options{}); !slices.Equal(ids, again) {
			t.Errorf("ids differ between runs:\n%v\n%v", ids, again)
		}
		if got := NameBasedID(root, 1); got != ids[0] {
			t.Errorf("first child %s, NameBasedID %s", ids[0], got)
		}
		if NameBasedID(root, 1) == NameBasedID(root, 2) || NameBasedID(root, 1) == NameBasedID(root+"x", 1) {
			t.Error("NameBasedID ignores part of its name")
		}
	})

	t.Run("minted by the runtime", func(t *testing.T) {
		t.Parallel()
		n := 0
		mint := func() string {
			n++
			return strings.Replace("0190d9c6-6c5e-7b3a-9f00-00000000000X", "X", string(rune('a'+n)), 1)
		}
		ids := callChain(t, p, root, 3, Options{MintIDFunc: mint})
		want := []string{"0190d9c6-6c5e-7b3a-9f00-00000000000b", "0190d9c6-6c5e-7b3a-9f00-00000000000c", "0190d9c6-6c5e-7b3a-9f00-00000000000d"}
		if !slices.Equal(ids, want) {
			t.Errorf("child ids %v, want %v", ids, want)
		}
	})

	t.Run("the call wait keeps its place among the waits", func(t *testing.T) {
		t.Parallel()
		st, _, err := Step(p, NewState(root, p.ID, 1), Start{}, t0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waits) != 2 || st.Waits[0].Kind != WaitCall || st.Waits[0].Seq != 1 || st.Waits[1].ID != root+"-w000002" {
			t.Fatalf("waits %+v, %+v", st.Waits[0], st.Waits[1])
		}
		header, parts := mustEncode(t, st)
		back, err := Decode(header, parts)
		if err != nil {
			t.Fatal(err)
		}
		if back.Waits[0].ID != st.Waits[0].ID || back.Waits[1].ID != st.Waits[1].ID {
			t.Errorf("decoded waits in another order: %s, %s", back.Waits[0].ID, back.Waits[1].ID)
		}
		if back.Wait(root+"-w000002") == nil || back.Wait(st.Waits[0].ID) == nil || back.Wait(root+"-w000003") != nil {
			t.Error("a wait lookup after decoding is wrong")
		}
	})
}

// TestCallWaitLookup finds call waits (ids without a counter) through
// their index, and not after they are gone.
func TestCallWaitLookup(t *testing.T) {
	t.Parallel()
	const a, b = "0190d9c6-6c5e-7b3a-9f00-00000000000a", "0190d9c6-6c5e-7b3a-9f00-00000000000b"
	st := NewState("i1", "p", 1)
	st.Waits = []*Wait{{ID: "i1-w000001"}, {ID: a, Seq: 2, Kind: WaitCall}, {ID: "i1-w000003"}, {ID: b, Seq: 4, Kind: WaitCall}}
	for _, id := range []string{a, b, "i1-w000001", "i1-w000003"} {
		if w := st.Wait(id); w == nil || w.ID != id {
			t.Fatalf("Wait(%s) = %+v", id, w)
		}
	}
	if st.waitIndex(st.Waits[3]) != 3 {
		t.Errorf("waitIndex of the second call wait = %d", st.waitIndex(st.Waits[3]))
	}
	st.Waits = slices.Delete(st.Waits, 1, 2) // the call wait a is gone
	if w := st.Wait(a); w != nil {
		t.Errorf("a removed call wait is still found: %+v", w)
	}
	if w := st.Wait(b); w == nil {
		t.Error("the other call wait is lost")
	}
	if w := st.Wait("i1-w000002"); w != nil {
		t.Errorf("a counter no wait has: %+v", w)
	}
}

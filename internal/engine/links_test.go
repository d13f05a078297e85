package engine

import (
	"reflect"
	"testing"
)

// linkPairs returns "completed>activated" for each element completed in fx
// and the next element its track activates (a link throw and its catch).
func linkPairs(fx Effects) []string {
	var out []string
	last := map[string]string{} // track → node of its last element-completed
	for _, f := range fx.Facts {
		switch f.Kind {
		case FactElementCompleted:
			last[f.TrackID] = f.NodeID
		case FactElementActivated:
			if prev := last[f.TrackID]; prev != "" {
				out = append(out, prev+">"+f.NodeID)
			}
			delete(last, f.TrackID)
		}
	}
	return out
}

func TestLinkEvents(t *testing.T) {
	t.Parallel()
	const file = "links.bpmn"
	p := mustProcess(t, file)
	st, fx := mustStart(t, p, nil)
	// Page 1 continues on page 2 in the same step; the inclusive join waits
	// for review, which reaches it through the "Merge" link.
	if got, want := activated(fx), []string{"start", "toPage2", "page2", "fork", "review", "merge"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("path = %v\nwant   %v", got, want)
	}
	if got := completedNodes(fx); !reflect.DeepEqual(got, []string{"start", "toPage2", "page2", "fork"}) {
		t.Errorf("completed = %v", got)
	}
	if pairs := linkPairs(fx); !contains(pairs, "toPage2>page2") {
		t.Errorf("the throw's track does not continue at the catch: %v", pairs)
	}
	if st.Status != StatusRunning || !hasWaitAt(st, "review") {
		t.Fatalf("status %s, waits %+v", st.Status, st.Waits)
	}

	// A link inside a non-interrupting event sub-process pairs within the
	// handler's level (its "Merge" is not the process's).
	st, fx = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onPoke").ID}, t0)
	if got, want := activated(fx), []string{"pokeStart", "pokeThrow", "pokeCatch", "pokeEnd"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("handler path = %v\nwant           %v", got, want)
	}
	if st.Status != StatusRunning {
		t.Fatalf("after the handler: %s", st.Status)
	}

	// Review done: through the link into the join, then a multi-instance
	// body whose every iteration follows its own link pair, then a loop
	// closed by a link pair, three times round.
	st, fx = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "review").ID, User: "u"}, t0)
	want := []string{
		"review", "toMerge", "mergeIn", "merge",
		"each", "each", "each", "eachStart", "eachStart", "eachThrow", "eachThrow", "eachCatch", "eachCatch", "eachEnd", "eachEnd",
		"count", "more", "again", "countIn", "count", "more", "again", "countIn", "count", "more", "end",
	}
	got := activated(fx)
	if len(got) > 0 && got[0] != "review" {
		want = want[1:]
	}
	if !sameMultiset(got, want) {
		t.Errorf("path = %v\nwant   %v (in any interleaving)", got, want)
	}
	if st.Status != StatusCompleted {
		t.Fatalf("status %s, incidents %+v, tracks %+v", st.Status, st.Incidents, st.Tracks)
	}
	if i := st.Scopes.Get("root").Vars["i"]; !reflect.DeepEqual(i, num("3")) {
		t.Errorf("i = %#v, want 3", i)
	}
	for _, pair := range []string{"toMerge>mergeIn", "eachThrow>eachCatch", "again>countIn"} {
		if !contains(linkPairs(fx), pair) {
			t.Errorf("missing link step %s in %v", pair, linkPairs(fx))
		}
	}
}

func TestLinkLoopStopsAtStepBudget(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "link_loop.bpmn")
	st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{MaxActivations: 50})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentStepBudget {
		t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
	}
	if n := len(activated(fx)); n != 50 {
		t.Errorf("%d activations, want the budget of 50", n)
	}
}

func completedNodes(fx Effects) []string {
	var out []string
	for _, f := range factsOf(fx, FactElementCompleted) {
		out = append(out, f.NodeID)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	for _, x := range b {
		count[x]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

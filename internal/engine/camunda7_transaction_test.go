package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// The Camunda 7 transaction models (testdata/camunda7, translated: see
// NOTICE there) run as TransactionSubProcessTest runs them, and these tests
// assert what its Java tests assert. Like Camunda 7, gobpm starts every
// compensation handler of a cancelled transaction at once for these models
// (they declare the camunda namespace: bpmn.Process.ConcurrentCompensation),
// so where the Java test sees five handler tasks together these tests see
// them too, complete them one after the other and assert the same totals.

const c7tx = "camunda7/TransactionSubProcessTest."

// c7complete completes the oldest open user task of node, as its
// assignee, with vars.
func c7complete(t *testing.T, file string, st *State, node string, vars map[string]any) (*State, Effects) {
	t.Helper()
	ws := tasksAt(st, node)
	if len(ws) == 0 {
		t.Fatalf("no open task at %s; waits %+v", node, st.Waits)
	}
	user := ws[0].Assignee
	if user == "" {
		user = "u"
	}
	return run(t, file, st, TaskCompleted{TaskID: ws[0].ID, User: user, Variables: vars}, t0)
}

// c7signal delivers the message the receive task node waits for (Java's
// runtimeService.signal on its execution).
func c7signal(t *testing.T, file string, st *State, node string) *State {
	t.Helper()
	st, _ = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, node).ID}, t0)
	return st
}

// openTaskNodes lists the nodes of the open user tasks, in creation order.
func openTaskNodes(st *State) []string {
	var out []string
	for _, w := range st.Waits {
		if w.Kind == WaitTask {
			out = append(out, w.NodeID)
		}
	}
	return out
}

// entriesOf counts the compensation entries (Camunda's compensate event
// subscriptions) recorded for node.
func entriesOf(st *State, node string) int {
	n := 0
	for _, e := range st.Entries {
		if e.NodeID == node {
			n++
		}
	}
	return n
}

// scopeOpen reports whether a scope of node is open.
func scopeOpen(st *State, node string) bool {
	for _, sc := range st.Scopes.All() {
		if sc.NodeID == node {
			return true
		}
	}
	return false
}

// drainHandlers completes the open compensation handler tasks of handlers
// one by one — a Camunda model starts every claimed handler at once
// (bpmn.Process.ConcurrentCompensation), the latest completion first — and
// returns how often each ran, with the order they were completed in.
func drainHandlers(t *testing.T, file string, st *State, handlers ...string) (*State, map[string]int, []string) {
	t.Helper()
	ran := map[string]int{}
	var order []string
	for i := 0; ; i++ {
		var open []*Wait
		for _, w := range st.Waits {
			if w.Kind == WaitTask && slices.Contains(handlers, w.NodeID) {
				open = append(open, w)
			}
		}
		if len(open) == 0 {
			return st, ran, order
		}
		if i > 50 {
			t.Fatalf("handler tasks keep coming: %v", openTaskNodes(st))
		}
		ran[open[0].NodeID]++
		order = append(order, open[0].NodeID)
		st, _ = c7complete(t, file, st, open[0].NodeID, nil)
	}
}

// counters are the start variables of the translated models: each undo
// handler counts its runs in a variable named as itself (Camunda's
// UndoService reads a missing one as 0; a JUEL expression may not read a
// missing variable, in Camunda 7 as in gobpm).
func counters() map[string]any {
	out := map[string]any{}
	for _, n := range []string{"undoBookHotel", "undoBookFlight", "undoChargeCard", "innerTxundoBookHotel", "innerTxundoBookFlight"} {
		out[n] = num("0")
	}
	return out
}

// wantCounters checks the counters the undo handlers keep (0: never ran).
func wantCounters(t *testing.T, st *State, want map[string]any) {
	t.Helper()
	for name, w := range want {
		if got := rootVar(st, name); normalize(t, got) != normalize(t, w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}

func TestCamunda7TransactionSimpleCase(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testSimpleCase.bpmn20.xml"
	started, _ := mustStart(t, mustProcess(t, file), counters())
	// testSimpleCaseTxSuccessful / …TxCancelled: after the start, five
	// bookHotel completions and one bookFlight can be compensated.
	if entriesOf(started, "bookHotel") != 5 || entriesOf(started, "bookFlight") != 1 {
		t.Fatalf("entries %+v", started.Entries)
	}

	t.Run("testSimpleCaseTxSuccessful", func(t *testing.T) {
		st, _ := c7complete(t, file, started, "askCustomer", map[string]any{"confirmed": true})
		// Left by the normal flow; the transaction stays compensable as a
		// whole (Camunda's event-scope execution), no handler ran.
		if !hasWaitAt(st, "afterSuccess") || entriesOf(st, "tx") != 1 {
			t.Fatalf("waits %+v entries %+v", st.Waits, st.Entries)
		}
		wantCounters(t, st, map[string]any{"undoBookHotel": num("0"), "undoBookFlight": num("0"), "undoChargeCard": num("0")})
		st = c7signal(t, file, st, "afterSuccess")
		if st.Status != StatusCompleted || len(st.Entries) != 0 {
			t.Fatalf("status %s entries %d", st.Status, len(st.Entries))
		}
	})
	t.Run("testSimpleCaseTxCancelled", func(t *testing.T) {
		st, _ := c7complete(t, file, started, "askCustomer", map[string]any{"confirmed": false})
		st, ran, order := drainHandlers(t, file, st, "undoBookHotel", "undoBookFlight", "undoChargeCard")
		if ran["undoBookHotel"] != 5 || ran["undoBookFlight"] != 1 || ran["undoChargeCard"] != 1 {
			t.Errorf("handlers ran %v", ran)
		}
		if order[0] != "undoChargeCard" {
			t.Errorf("the card, charged last, is not undone first: %v", order)
		}
		wantCounters(t, st, map[string]any{"undoBookHotel": num("5"), "undoBookFlight": num("1"), "undoChargeCard": num("1")})
		if !hasWaitAt(st, "afterCancellation") || len(st.Entries) != 0 {
			t.Fatalf("left by the cancel boundary? waits %+v entries %+v", st.Waits, st.Entries)
		}
		st = c7signal(t, file, st, "afterCancellation")
		if st.Status != StatusCompleted {
			t.Fatalf("status %s", st.Status)
		}
	})
}

func TestCamunda7TransactionWaitstateCompensationHandler(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testWaitstateCompensationHandler.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), counters())
	st, _ = c7complete(t, file, st, "askCustomer", map[string]any{"confirmed": false})
	// undoChargeCard is a script (UndoService): it ran at once; the
	// transaction is still open while the user-task handlers run.
	wantCounters(t, st, map[string]any{"undoChargeCard": num("1")})
	if !scopeOpen(st, "tx") || len(tasksAt(st, "undoBookHotel")) != 5 || len(tasksAt(st, "undoBookFlight")) != 1 {
		t.Fatalf("the transaction is not open with its six handler tasks: tasks %v", openTaskNodes(st))
	}
	st, ran, _ := drainHandlers(t, file, st, "undoBookHotel", "undoBookFlight")
	if ran["undoBookHotel"] != 5 || ran["undoBookFlight"] != 1 {
		t.Errorf("handlers ran %v", ran)
	}
	if !hasWaitAt(st, "afterCancellation") || len(st.Entries) != 0 {
		t.Fatalf("waits %+v entries %+v", st.Waits, st.Entries)
	}
	if st = c7signal(t, file, st, "afterCancellation"); st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestCamunda7TransactionCancelEndConcurrent(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testCancelEndConcurrent.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), counters())
	if entriesOf(st, "bookHotel") != 5 || entriesOf(st, "bookFlight") != 1 || !hasWaitAt(st, "receive") {
		t.Fatalf("entries %+v waits %+v", st.Entries, st.Waits)
	}
	// The cancel end event ends the branch still waiting in the receive task.
	st, _ = c7complete(t, file, st, "askCustomer", map[string]any{"confirmed": false})
	if hasWaitAt(st, "receive") {
		t.Error("the concurrent receive task still waits")
	}
	st, ran, _ := drainHandlers(t, file, st, "undoBookHotel", "undoBookFlight")
	if ran["undoBookHotel"] != 5 || ran["undoBookFlight"] != 1 {
		t.Errorf("handlers ran %v", ran)
	}
	wantCounters(t, st, map[string]any{"undoBookHotel": num("5"), "undoBookFlight": num("1")})
	if !hasWaitAt(st, "afterCancellation") || len(st.Entries) != 0 {
		t.Fatalf("waits %+v entries %+v", st.Waits, st.Entries)
	}
	if st = c7signal(t, file, st, "afterCancellation"); st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestCamunda7TransactionNestedCancelInner(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testNestedCancelInner.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), counters())
	if entriesOf(st, "bookFlight") != 0 || entriesOf(st, "innerTxbookHotel") != 5 || entriesOf(st, "innerTxbookFlight") != 1 {
		t.Fatalf("entries %+v", st.Entries)
	}
	if len(tasksAt(st, "innerTxaskCustomer")) != 1 || len(tasksAt(st, "bookFlight")) != 1 {
		t.Fatalf("tasks %v", openTaskNodes(st))
	}
	st, _ = c7complete(t, file, st, "innerTxaskCustomer", map[string]any{"confirmed": false})
	st, ran, _ := drainHandlers(t, file, st, "innerTxundoBookHotel", "innerTxundoBookFlight")
	if ran["innerTxundoBookHotel"] != 5 || ran["innerTxundoBookFlight"] != 1 {
		t.Errorf("handlers ran %v", ran)
	}
	wantCounters(t, st, map[string]any{"innerTxundoBookHotel": num("5"), "innerTxundoBookFlight": num("1")})
	// The inner transaction is left by its cancel boundary; the outer one
	// runs on, and nothing of it can be compensated yet.
	if !hasWaitAt(st, "afterInnerCancellation") || len(st.Entries) != 0 || len(tasksAt(st, "bookFlight")) != 1 {
		t.Fatalf("waits %+v entries %+v", st.Waits, st.Entries)
	}
	st, _ = c7complete(t, file, st, "bookFlight", nil)
	if st = c7signal(t, file, st, "afterInnerCancellation"); st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
	wantCounters(t, st, map[string]any{"undoBookFlight": num("0")})
}

func TestCamunda7TransactionNestedCancelOuter(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testNestedCancelOuter.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), counters())
	if entriesOf(st, "innerTxbookHotel") != 5 || entriesOf(st, "innerTxbookFlight") != 1 {
		t.Fatalf("entries %+v", st.Entries)
	}
	// The outer transaction is cancelled while the inner one runs: the
	// inner one did not complete, so its activities are not compensated;
	// the outer's completed bookFlight is.
	st, _ = c7complete(t, file, st, "bookFlight", nil)
	if !hasWaitAt(st, "afterOuterCancellation") || len(st.Entries) != 0 || scopeOpen(st, "innerTx") || scopeOpen(st, "tx") {
		t.Fatalf("waits %+v entries %+v", st.Waits, st.Entries)
	}
	wantCounters(t, st, map[string]any{"innerTxundoBookHotel": num("0"), "innerTxundoBookFlight": num("0"), "undoBookFlight": num("1")})
	if st = c7signal(t, file, st, "afterOuterCancellation"); st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestCamunda7TransactionCompensateSubprocess(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testCompensateSubprocess.bpmn20.xml"
	tests := []struct {
		name              string
		cancelTx, compens bool
		path              []string // the user tasks completed after beforeCancel
	}{
		// Cancelled: the completed sub-process is compensated through its
		// inner task, then the cancel boundary leads to afterCancel.
		{"testCompensateSubprocess", true, false, []string{"undoInnerTask", "afterCancel"}},
		{"testCompensateSubprocessNotTriggered", false, false, []string{"afterTx"}},
		// Completed, then compensated from outside the transaction.
		{"testCompensateSubprocessAfterTxCompletion", false, true, []string{"afterTx", "undoInnerTask"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, file), counters())
			st, _ = c7complete(t, file, st, "innerTask", nil)
			st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"cancelTx": tc.cancelTx, "compensate": tc.compens}}, t0)
			st, _ = c7complete(t, file, st, "beforeCancel", nil)
			for _, node := range tc.path {
				if got := openTaskNodes(st); !slices.Equal(got, []string{node}) {
					t.Fatalf("open tasks %v, want [%s]", got, node)
				}
				st, _ = c7complete(t, file, st, node, nil)
			}
			if st.Status != StatusCompleted || len(st.Entries) != 0 {
				t.Fatalf("status %s entries %+v", st.Status, st.Entries)
			}
		})
	}
}

func TestCamunda7TransactionCompensateWithEventSubprocess(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testCompensateTransactionWithEventSubprocess.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), counters())
	st, _ = c7complete(t, file, st, "beforeCancelEnd", nil)
	// The cancel end event compensates innerSubProcess by its compensation
	// event sub-process, which re-throws for "activity": its black-box
	// handler waits, the transaction and the event sub-process still open
	// (testCompensateTransactionWithEventSubprocessActivityInstanceTree).
	if got := openTaskNodes(st); !slices.Equal(got, []string{"blackBoxCompensationHandler"}) {
		t.Fatalf("open tasks %v", got)
	}
	for _, node := range []string{"tx", "eventSubProcess"} {
		if !scopeOpen(st, node) {
			t.Errorf("no open scope of %s", node)
		}
	}
	st, _ = c7complete(t, file, st, "blackBoxCompensationHandler", nil)
	if st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestCamunda7TransactionParseWithDI(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testParseWithDI.bpmn20.xml"
	for _, confirmed := range []bool{false, true} {
		st, _ := mustStart(t, mustProcess(t, file), counters())
		ws := openTaskNodes(st)
		if len(ws) != 1 {
			t.Fatalf("tasks %v", ws)
		}
		if st, _ = c7complete(t, file, st, ws[0], map[string]any{"confirmed": confirmed}); st.Status != StatusCompleted {
			t.Errorf("confirmed=%t: status %s", confirmed, st.Status)
		}
	}
}

// TestCamunda7TransactionRefused: the models Camunda 7 refuses at
// deployment are refused, naming the element its ParseException names.
func TestCamunda7TransactionRefused(t *testing.T) {
	t.Parallel()
	tests := []struct{ model, element string }{
		{"testMultipleCancelBoundaryFails", "catchCancelTx2"},
		{"testCancelBoundaryNoTransactionFails", "catchCancelTx"},
		{"testCancelEndNoTransactionFails", "failure"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", c7tx+tc.model+".bpmn20.xml"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = bpmn.Parse(data)
			var verr *bpmn.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v, want a validation error", err)
			}
			found := false
			for _, p := range verr.Problems {
				found = found || p.Element == tc.element
				if p.Rule != bpmn.RuleInvalidCompensation {
					t.Errorf("problem %s, want only invalid-compensation ones", p)
				}
			}
			if !found {
				t.Errorf("no problem names %s: %v", tc.element, err)
			}
		})
	}
}

func TestCamunda7TransactionMultiInstance(t *testing.T) {
	t.Parallel()
	const file = c7tx + "testMultiInstanceTx.bpmn20.xml"
	started, _ := mustStart(t, mustProcess(t, file), counters())
	// Five instances of the transaction, two compensable bookings each.
	if len(started.Entries) != 10 || len(tasksAt(started, "askCustomer")) != 5 {
		t.Fatalf("entries %d tasks %v", len(started.Entries), openTaskNodes(started))
	}
	t.Run("testMultiInstanceTx", func(t *testing.T) {
		// Cancelling one instance compensates that instance and cancels
		// every other one.
		ws := tasksAt(started, "askCustomer")
		st, _ := run(t, file, started, TaskCompleted{TaskID: ws[0].ID, User: "kermit", Variables: map[string]any{"confirmed": false}}, t0)
		wantCounters(t, st, map[string]any{"undoBookHotel": num("1"), "undoBookFlight": num("1")})
		if len(st.Entries) != 0 || len(st.Waits) != 1 || !hasWaitAt(st, "afterCancellation") {
			t.Fatalf("entries %d waits %+v", len(st.Entries), st.Waits)
		}
		if st = c7signal(t, file, st, "afterCancellation"); st.Status != StatusCompleted {
			t.Fatalf("status %s", st.Status)
		}
	})
	t.Run("testMultiInstanceTxSuccessful", func(t *testing.T) {
		st := started
		for _, w := range tasksAt(started, "askCustomer") {
			st, _ = run(t, file, st, TaskCompleted{TaskID: w.ID, User: "kermit", Variables: map[string]any{"confirmed": true}}, t0)
		}
		for hasWaitAt(st, "receive") {
			st = c7signal(t, file, st, "receive")
		}
		st = c7signal(t, file, st, "afterSuccess")
		if st.Status != StatusCompleted || len(st.Entries) != 0 {
			t.Fatalf("status %s entries %d", st.Status, len(st.Entries))
		}
		wantCounters(t, st, map[string]any{"undoBookHotel": num("0"), "undoBookFlight": num("0")})
	})
}

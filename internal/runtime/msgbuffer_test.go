package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// publish publishes a buffered message and fails the test on an error.
func publish(t *testing.T, rt *runtime.Runtime, p runtime.Publication) runtime.PublishResult {
	t.Helper()
	res, err := rt.PublishMessage(context.Background(), p)
	if err != nil {
		t.Fatalf("publish %s/%s: %v", p.Name, p.CorrelationKey, err)
	}
	return res
}

// statusOf is an instance's status.
func statusOf(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) (string, map[string]any) {
	t.Helper()
	v, err := rt.Instance(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.Status, v.Variables
}

// paidWaiter is a second process waiting for order-paid (another process
// key than messages.bpmn's).
var paidWaiter = bpmnProcess("paidWaiter", "", `
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="c"/>
    <intermediateCatchEvent id="c"><messageEventDefinition messageRef="paid2"/></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="c" targetRef="e"/>
    <endEvent id="e"/>`)

func init() {
	// The message element goes beside the process.
	paidWaiter = insertBefore(paidWaiter, `<process`, `<message id="paid2" name="order-paid" gobpm:correlationKey="=orderId"/>`)
}

// insertBefore puts what before the first at in s.
func insertBefore(s, at, what string) string {
	i := strings.Index(s, at)
	return s[:i] + what + "\n  " + s[i:]
}

func TestBufferedMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	paid := func(key string, ttl time.Duration, vars map[string]any) runtime.Publication {
		return runtime.Publication{Name: "order-paid", CorrelationKey: key, TimeToLive: ttl, Variables: vars}
	}

	t.Run("published before the subscription opens, it correlates in the opening step, once per process key", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		deployXML(t, c.rt, "waiter.bpmn", paidWaiter)
		res := publish(t, c.rt, paid("a", time.Minute, map[string]any{"paid": true}))
		if res.Correlated != 0 || !res.Buffered || res.Key == "" || !res.ExpiresAt.Equal(c.clk.Now().Add(time.Minute)) {
			t.Fatalf("publication = %+v", res)
		}
		c.clk.Advance(30 * time.Second)
		first := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, vars := statusOf(t, c.rt, first.ID); st != runtime.StatusCompleted || vars["paid"] != true {
			t.Fatalf("first = %s %v, want completed with paid", st, vars)
		}
		// The same process key took it: a second instance waits.
		second := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, second.ID); st != runtime.StatusRunning {
			t.Fatalf("second = %s, want running", st)
		}
		// Another process key still gets it.
		other := start(t, c.rt, "paidWaiter", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, other.ID); st != runtime.StatusCompleted {
			t.Fatalf("paidWaiter = %s, want completed", st)
		}
		m, err := c.rt.BufferedMessage(ctx, res.Key)
		if err != nil || !slices.Equal(m.TakenBy, []string{"messages", "paidWaiter"}) {
			t.Fatalf("buffered message = %+v %v", m, err)
		}
		// Another correlation key is not matched.
		b := start(t, c.rt, "messages", map[string]any{"orderId": "b"})
		if st, _ := statusOf(t, c.rt, b.ID); st != runtime.StatusRunning {
			t.Fatalf("b = %s, want running", st)
		}
	})

	t.Run("oldest first", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		publish(t, c.rt, paid("a", time.Hour, map[string]any{"n": 1}))
		c.clk.Advance(time.Second)
		publish(t, c.rt, paid("a", time.Hour, map[string]any{"n": 2}))
		for _, want := range []string{"1", "2"} {
			inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
			st, vars := statusOf(t, c.rt, inst.ID)
			if n, _ := json.Marshal(vars["n"]); st != runtime.StatusCompleted || string(n) != want {
				t.Fatalf("instance = %s n=%s, want completed n=%s", st, n, want)
			}
		}
	})

	t.Run("after its time to live it is not delivered, and the sweep removes it", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		res := publish(t, c.rt, paid("a", time.Minute, nil))
		kept := publish(t, c.rt, paid("k", time.Hour, nil))
		c.clk.Advance(time.Minute) // expiry is exclusive: at ExpiresAt it is gone
		inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, inst.ID); st != runtime.StatusRunning {
			t.Fatalf("instance = %s, want running (the message expired)", st)
		}
		if n, err := c.rt.SweepMessages(ctx); err != nil || n != 1 {
			t.Fatalf("sweep = %d %v, want 1", n, err)
		}
		if _, err := c.rt.BufferedMessage(ctx, res.Key); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Fatalf("swept message: %v", err)
		}
		if _, err := c.rt.BufferedMessage(ctx, kept.Key); err != nil {
			t.Fatalf("live message swept: %v", err)
		}
		if n, err := c.rt.SweepMessages(ctx); err != nil || n != 0 {
			t.Fatalf("second sweep = %d %v", n, err)
		}
	})

	t.Run("a duplicate message id is refused while the first is buffered", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		p := paid("a", time.Minute, nil)
		p.MessageID = "pay-1"
		publish(t, c.rt, p)
		_, err := c.rt.PublishMessage(ctx, p)
		if !errors.Is(err, runtime.ErrDuplicateMessage) || runtime.ErrorCode(err) != runtime.ECONFLICT {
			t.Fatalf("duplicate = %v, want ErrDuplicateMessage", err)
		}
		// A waiting subscription does not let a duplicate through either:
		// nothing is delivered.
		inst := start(t, c.rt, "messages", map[string]any{"orderId": "z"})
		dz := p
		dz.CorrelationKey = "z"
		publish(t, c.rt, runtime.Publication{Name: "order-cancelled", CorrelationKey: "none", TimeToLive: time.Minute, MessageID: "x"})
		other := publish(t, c.rt, dz) // another correlation key: not a duplicate
		if other.Correlated != 1 {
			t.Fatalf("z = %+v, want correlated", other)
		}
		if st, _ := statusOf(t, c.rt, inst.ID); st != runtime.StatusCompleted {
			t.Fatalf("z instance = %s", st)
		}
		second := start(t, c.rt, "messages", map[string]any{"orderId": "z"})
		if _, err := c.rt.PublishMessage(ctx, dz); !errors.Is(err, runtime.ErrDuplicateMessage) {
			t.Fatalf("duplicate with a subscription waiting = %v", err)
		}
		if st, _ := statusOf(t, c.rt, second.ID); st != runtime.StatusRunning {
			t.Fatalf("a refused duplicate was delivered: %s", st)
		}
		// Once expired, the id is free again.
		c.clk.Advance(time.Minute)
		if res := publish(t, c.rt, p); !res.Buffered {
			t.Fatalf("after expiry = %+v", res)
		}
	})

	t.Run("a waiting subscription takes it at publication; it stays buffered for other process keys", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		deployXML(t, c.rt, "waiter.bpmn", paidWaiter)
		waiting := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		res := publish(t, c.rt, paid("a", time.Minute, map[string]any{"paid": true}))
		if res.Correlated != 1 || !res.Buffered {
			t.Fatalf("publication = %+v", res)
		}
		if st, _ := statusOf(t, c.rt, waiting.ID); st != runtime.StatusCompleted {
			t.Fatalf("waiting = %s", st)
		}
		again := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, again.ID); st != runtime.StatusRunning {
			t.Fatalf("same process key got it twice: %s", st)
		}
		other := start(t, c.rt, "paidWaiter", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, other.ID); st != runtime.StatusCompleted {
			t.Fatalf("paidWaiter = %s", st)
		}
	})

	t.Run("it survives a restart", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		publish(t, c.rt, paid("a", time.Minute, map[string]any{"paid": true}))
		c.close(t)
		c.open(t)
		inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, vars := statusOf(t, c.rt, inst.ID); st != runtime.StatusCompleted || vars["paid"] != true {
			t.Fatalf("after restart = %s %v", st, vars)
		}
	})

	t.Run("concurrent subscriptions of one process key: exactly one gets it", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		publish(t, c.rt, paid("c", time.Minute, nil))
		var wg sync.WaitGroup
		ids := make([]runtime.InstanceID, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := c.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "c"}})
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = v.ID
			}()
		}
		wg.Wait()
		completed := 0
		for _, id := range ids {
			if id == "" {
				continue
			}
			if st, _ := statusOf(t, c.rt, id); st == runtime.StatusCompleted {
				completed++
			}
		}
		if completed != 1 {
			t.Fatalf("%d instances got the message, want 1", completed)
		}
	})

	t.Run("a message start event takes it only at publication", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "starts.bpmn"))
		res := publish(t, c.rt, runtime.Publication{Name: "order-placed", CorrelationKey: "k-1", TimeToLive: time.Minute})
		if res.Correlated != 1 || !res.Buffered {
			t.Fatalf("publication = %+v", res)
		}
		m, err := c.rt.BufferedMessage(ctx, res.Key)
		if err != nil || !slices.Equal(m.TakenBy, []string{"starts"}) {
			t.Fatalf("buffered = %+v %v", m, err)
		}
		// A process deployed later does not start from a buffered message.
		publish(t, c.rt, runtime.Publication{Name: "late", TimeToLive: time.Minute})
		deployXML(t, c.rt, "late.bpmn", insertBefore(bpmnProcess("late", "", `
    <startEvent id="s"><messageEventDefinition messageRef="lateMsg"/></startEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
    <endEvent id="e"/>`), `<process`, `<message id="lateMsg" name="late"/>`))
		if _, total, _ := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "late"}); total != 0 {
			t.Fatalf("a buffered message started %d instances", total)
		}
	})

	t.Run("a boundary event that opens takes it", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		publish(t, c.rt, runtime.Publication{Name: "order-cancelled", CorrelationKey: "a", TimeToLive: time.Minute})
		inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, inst.ID); st != runtime.StatusCompleted {
			t.Fatalf("instance = %s, want completed through the boundary", st)
		}
		hist, _ := c.rt.History(ctx, inst.ID, 0, 0)
		if !slices.ContainsFunc(hist, func(f runtime.FactRow) bool { return f.NodeID == "cancelEnd" }) {
			t.Fatal("the instance did not leave through the cancel boundary")
		}
	})

	t.Run("an event sub-process start that arms takes it", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		deployXML(t, c.rt, "esp.bpmn", insertBefore(bpmnProcess("esp", "", `
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <endEvent id="e"/>
    <subProcess id="onNote" triggeredByEvent="true">
      <startEvent id="noteStart" isInterrupting="false"><messageEventDefinition messageRef="note"/></startEvent>
      <sequenceFlow id="n1" sourceRef="noteStart" targetRef="noteEnd"/>
      <endEvent id="noteEnd"/>
    </subProcess>`), `<process`, `<message id="note" name="note"/>`))
		publish(t, c.rt, runtime.Publication{Name: "note", TimeToLive: time.Minute, Variables: map[string]any{"noted": true}})
		inst := start(t, c.rt, "esp", nil)
		st, vars := statusOf(t, c.rt, inst.ID)
		hist, _ := c.rt.History(ctx, inst.ID, 0, 0)
		if st != runtime.StatusRunning || vars["noted"] != true || !slices.ContainsFunc(hist, func(f runtime.FactRow) bool { return f.NodeID == "noteEnd" }) {
			t.Fatalf("instance = %s %v; the event sub-process did not run on the buffered message", st, vars)
		}
	})

	t.Run("a subscription that opened while the message was being stored gets it", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		db, err := testdb.Open(ctx, c.path)
		if err != nil {
			t.Fatal(err)
		}
		var rt *runtime.Runtime
		var opened runtime.InstanceID
		racing := &bufferHook{Store: db, before: func() {
			// The subscription opens after the publication looked for one
			// and before its message is stored: its own look-up finds
			// nothing.
			v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "a"}})
			if err != nil {
				t.Error(err)
			}
			opened = v.ID
		}}
		rt = runtime.New(racing, runtime.Options{Now: c.clk.Now})
		t.Cleanup(func() {
			rt.Close()
			db.Close()
		})
		res := publish(t, rt, paid("a", time.Minute, map[string]any{"paid": true}))
		if res.Correlated != 0 || !res.Buffered {
			t.Fatalf("publication = %+v", res)
		}
		if st, vars := statusOf(t, rt, opened); st != runtime.StatusCompleted || vars["paid"] != true {
			t.Fatalf("the racing subscription = %s %v, want completed", st, vars)
		}
		if m, err := rt.BufferedMessage(ctx, res.Key); err != nil || !slices.Equal(m.TakenBy, []string{"messages"}) {
			t.Fatalf("buffered = %+v %v", m, err)
		}
	})

	t.Run("the take commits with the step: a failed commit leaves the message buffered", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		res := publish(t, c.rt, paid("a", time.Minute, map[string]any{"paid": true}))
		var took atomic.Int32
		h := &hookStore{commit: func(steps []runtime.StepRecord) error {
			for _, s := range steps {
				if len(s.MessageTakes) > 0 && s.MessageTakes[0].MessageID == res.Key {
					if took.Add(1) == 1 {
						return errors.New("disk on fire")
					}
				}
			}
			return nil
		}}
		rt := hooked(t, c, h)
		if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "a"}}); err == nil {
			t.Fatal("the start committed through a failing store")
		}
		if m, err := rt.BufferedMessage(ctx, res.Key); err != nil || len(m.TakenBy) != 0 {
			t.Fatalf("after the failed commit = %+v %v, want untaken", m, err)
		}
		inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "a"}})
		if err != nil {
			t.Fatal(err)
		}
		if st, vars := statusOf(t, rt, inst.ID); st != runtime.StatusCompleted || vars["paid"] != true {
			t.Fatalf("retry = %s %v", st, vars)
		}
		if took.Load() != 2 {
			t.Fatalf("%d commits carried the take, want 2", took.Load())
		}
	})

	t.Run("an idempotency key replays the publication", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		kctx := runtime.WithIdempotencyKey(ctx, "pub-1")
		p := paid("a", time.Minute, map[string]any{"n": 1})
		first, err := c.rt.PublishMessage(kctx, p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.rt.PublishMessage(kctx, p)
		if err != nil || again.Key != first.Key || !again.Buffered || !again.ExpiresAt.Equal(first.ExpiresAt) {
			t.Fatalf("replay = %+v %v, want %+v", again, err, first)
		}
		// One message was buffered: one instance gets it, the next waits.
		for _, want := range []string{runtime.StatusCompleted, runtime.StatusRunning} {
			inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
			if st, _ := statusOf(t, c.rt, inst.ID); st != want {
				t.Fatalf("instance = %s, want %s", st, want)
			}
		}
		p.Variables = map[string]any{"n": 2}
		if _, err := c.rt.PublishMessage(kctx, p); runtime.ErrorCode(err) != runtime.ECONFLICT {
			t.Fatalf("same key, another request = %v, want ECONFLICT", err)
		}
	})

	t.Run("without a time to live nothing is buffered", func(t *testing.T) {
		t.Parallel()
		c := setupClocked(t)
		mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
		if _, err := c.rt.PublishMessage(ctx, paid("a", 0, nil)); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Fatalf("ttl 0 = %v, want ENOTFOUND", err)
		}
		inst := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
		if st, _ := statusOf(t, c.rt, inst.ID); st != runtime.StatusRunning {
			t.Fatalf("instance = %s", st)
		}
		if _, err := c.rt.PublishMessage(ctx, paid("a", -time.Second, nil)); runtime.ErrorCode(err) != runtime.EINVALID {
			t.Fatalf("negative ttl = %v", err)
		}
	})
}

// bufferHook is the real store with a hook run before BufferMessage.
type bufferHook struct {
	runtime.Store
	before func()
}

func (b *bufferHook) BufferMessage(ctx context.Context, m runtime.BufferedMessage, takes []runtime.MessageTake, claim *runtime.IdempotencyRow) error {
	if b.before != nil {
		b.before()
	}
	return b.Store.BufferMessage(ctx, m, takes, claim)
}

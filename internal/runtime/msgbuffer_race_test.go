package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// The review findings of buffered messages: each subscription and message
// that overlap in time meet, once per process key, however many
// subscriptions a step opens, and an idempotent publication delivers once
// whatever crashes or races it.

// paidAt is an order-paid publication buffered for ttl.
func paidAt(key string, ttl time.Duration, vars map[string]any) runtime.Publication {
	return runtime.Publication{Name: "order-paid", CorrelationKey: key, TimeToLive: ttl, Variables: vars}
}

// opensPaidWait reports whether a commit opens an order-paid subscription.
func opensPaidWait(steps []runtime.StepRecord) bool {
	for _, s := range steps {
		for _, w := range s.Waits {
			if w.Kind == runtime.WaitMessage && w.Name == "order-paid" {
				return true
			}
		}
	}
	return false
}

// A subscriber's step reads the buffer (nothing), then a publication
// commits its message and looks for subscriptions (the subscriber's is not
// committed yet, so it finds none), then the subscriber commits: the
// subscription must still get the message.
func TestBufferedMessagePublishedWhileSubscriptionCommits(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	var (
		rt   *runtime.Runtime
		once sync.Once
		res  runtime.PublishResult
		perr error
	)
	rt = hooked(t, c, &hookStore{commit: func(steps []runtime.StepRecord) error {
		if opensPaidWait(steps) {
			once.Do(func() { res, perr = rt.PublishMessage(ctx, paidAt("a", time.Minute, map[string]any{"paid": true})) })
		}
		return nil
	}})
	inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if perr != nil || res.Correlated != 0 || !res.Buffered {
		t.Fatalf("publication = %+v %v, want buffered, reaching nothing at publication", res, perr)
	}
	if st, vars := statusOf(t, rt, inst.ID); st != runtime.StatusCompleted || vars["paid"] != true {
		t.Fatalf("the subscription = %s %v, want completed with the message", st, vars)
	}
	if m, err := rt.BufferedMessage(ctx, res.Key); err != nil || !slices.Equal(m.TakenBy, []string{"messages"}) {
		t.Fatalf("buffered = %+v %v", m, err)
	}
}

// Processes of two keys already wait when the message is published: each
// process key gets it (Zeebe correlates once per process key).
func TestBufferedMessageReachesEveryWaitingProcessKey(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	deployXML(t, c.rt, "waiter.bpmn", paidWaiter)
	a := start(t, c.rt, "messages", map[string]any{"orderId": "o-1"})
	a2 := start(t, c.rt, "messages", map[string]any{"orderId": "o-1"}) // same key as a, younger
	b := start(t, c.rt, "paidWaiter", map[string]any{"orderId": "o-1"})
	res := publish(t, c.rt, paidAt("o-1", time.Minute, map[string]any{"paid": true}))
	if res.Correlated != 2 || !res.Buffered {
		t.Fatalf("publication = %+v, want 2 correlated", res)
	}
	for id, want := range map[runtime.InstanceID]string{a.ID: runtime.StatusCompleted, a2.ID: runtime.StatusRunning, b.ID: runtime.StatusCompleted} {
		if st, _ := statusOf(t, c.rt, id); st != want {
			t.Fatalf("instance %s = %s, want %s", id, st, want)
		}
	}
	if m, err := c.rt.BufferedMessage(ctx, res.Key); err != nil || !slices.Equal(m.TakenBy, []string{"messages", "paidWaiter"}) {
		t.Fatalf("buffered = %+v %v", m, err)
	}
}

// fanIn opens 100 order-paid subscriptions in its first step (a parallel
// multi-instance receive task).
var fanIn = insertBefore(bpmnProcess("fanIn", "", `
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="r"/>
    <receiveTask id="r" messageRef="paid3">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>100</loopCardinality></multiInstanceLoopCharacteristics>
    </receiveTask>
    <sequenceFlow id="f2" sourceRef="r" targetRef="e"/>
    <endEvent id="e"/>`), `<process`, `<message id="paid3" name="order-paid" gobpm:correlationKey="=orderId"/>`)

// A step that opens 100 subscriptions delivers one of 100 buffered
// messages to each: none is skipped for a cap on rounds or candidates.
func TestBufferedMessagesReachEverySubscriptionOfOneStep(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	deployXML(t, c.rt, "fanin.bpmn", fanIn)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = publish(t, c.rt, paidAt("o-1", time.Hour, map[string]any{"n": i})).Key
		c.clk.Advance(time.Millisecond)
	}
	inst := start(t, c.rt, "fanIn", map[string]any{"orderId": "o-1"})
	if st, _ := statusOf(t, c.rt, inst.ID); st != runtime.StatusCompleted {
		t.Fatalf("fanIn = %s, want completed (every subscription got a message)", st)
	}
	for _, k := range keys {
		if m, err := c.rt.BufferedMessage(ctx, k); err != nil || !slices.Equal(m.TakenBy, []string{"fanIn"}) {
			t.Fatalf("message %s = %+v %v, want taken by fanIn", k, m, err)
		}
	}
}

// The publication's first delivery commits, then the process crashes (the
// next commit fails): the retry with the same idempotency key answers what
// the first request would have, finishes the delivery, and mints and
// delivers nothing again.
func TestIdempotentPublicationAfterACrash(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	deployXML(t, c.rt, "waiter.bpmn", paidWaiter)
	a := start(t, c.rt, "messages", map[string]any{"orderId": "o-1"})
	b := start(t, c.rt, "paidWaiter", map[string]any{"orderId": "o-1"})
	var crashed atomic.Bool
	var stored atomic.Int32
	rt := hooked(t, c, &hookStore{commit: func(steps []runtime.StepRecord) error {
		for _, s := range steps {
			if s.BufferMessage != nil {
				stored.Add(1)
			} else if len(s.MessageTakes) > 0 && crashed.CompareAndSwap(false, true) {
				return errors.New("power cut")
			}
		}
		return nil
	}})
	p := paidAt("o-1", time.Minute, map[string]any{"paid": true})
	if _, err := rt.PublishMessage(runtime.WithIdempotencyKey(ctx, "pub-1"), p); err == nil {
		t.Fatal("the publication did not report the failed delivery")
	}
	if st, _ := statusOf(t, rt, a.ID); st != runtime.StatusCompleted {
		t.Fatalf("first delivery = %s, want committed", st)
	}
	again, err := rt.PublishMessage(runtime.WithIdempotencyKey(ctx, "pub-1"), p)
	if err != nil || again.Correlated != 2 || !again.Buffered || again.Key == "" {
		t.Fatalf("retry = %+v %v, want the first answer", again, err)
	}
	if st, _ := statusOf(t, rt, b.ID); st != runtime.StatusCompleted {
		t.Fatalf("the retry did not finish the publication: paidWaiter = %s", st)
	}
	if m, err := rt.BufferedMessage(ctx, again.Key); err != nil || !slices.Equal(m.TakenBy, []string{"messages", "paidWaiter"}) {
		t.Fatalf("buffered = %+v %v", m, err)
	}
	if n := stored.Load(); n != 1 {
		t.Fatalf("%d messages stored, want 1", n)
	}
	if st, _ := statusOf(t, rt, start(t, rt, "messages", map[string]any{"orderId": "o-1"}).ID); st != runtime.StatusRunning {
		t.Fatalf("a later instance got a message: %s", st)
	}
	third, err := rt.PublishMessage(runtime.WithIdempotencyKey(ctx, "pub-1"), p)
	if err != nil || third != again {
		t.Fatalf("second replay = %+v %v, want %+v", third, err, again)
	}
}

// Concurrent requests with one idempotency key publish once: one message,
// delivered to one instance of the process key, the same answer for all.
func TestIdempotentPublicationConcurrent(t *testing.T) {
	t.Parallel()
	for _, waiting := range []int{0, 2} {
		t.Run(fmt.Sprintf("%d waiting", waiting), func(t *testing.T) {
			t.Parallel()
			c := setupClocked(t)
			ctx := context.Background()
			mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
			var ids []runtime.InstanceID
			for range waiting {
				ids = append(ids, start(t, c.rt, "messages", map[string]any{"orderId": "o-1"}).ID)
			}
			p := paidAt("o-1", time.Minute, nil)
			answers := make([]runtime.PublishResult, 8)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := c.rt.PublishMessage(runtime.WithIdempotencyKey(ctx, "pub-c"), p)
					if err != nil {
						t.Error(err)
					}
					answers[i] = res
				}()
			}
			wg.Wait()
			for _, a := range answers {
				if a != answers[0] || a.Key == "" {
					t.Fatalf("answers differ: %+v", answers)
				}
			}
			completed := 0
			for _, id := range ids {
				if st, _ := statusOf(t, c.rt, id); st == runtime.StatusCompleted {
					completed++
				}
			}
			if waiting > 0 && completed != 1 {
				t.Fatalf("%d instances got the message, want 1", completed)
			}
			// One message only: after the one instance (if any) took it for
			// the process key, nothing is left for a new instance.
			later := start(t, c.rt, "messages", map[string]any{"orderId": "o-1"})
			want := runtime.StatusRunning
			if waiting == 0 {
				want = runtime.StatusCompleted
			}
			if st, _ := statusOf(t, c.rt, later.ID); st != want {
				t.Fatalf("later instance = %s, want %s", st, want)
			}
			if st, _ := statusOf(t, c.rt, start(t, c.rt, "messages", map[string]any{"orderId": "o-1"}).ID); st != runtime.StatusRunning {
				t.Fatalf("a second message was buffered: %s", st)
			}
		})
	}
}

// readCounter is the real store counting the buffer's look-ups.
type readCounter struct {
	runtime.Store
	reads atomic.Int32
}

func (r *readCounter) BufferedMessages(ctx context.Context, name, correlationKey, processKey string, now time.Time, limit int) ([]runtime.BufferedMessage, error) {
	r.reads.Add(1)
	return r.Store.BufferedMessages(ctx, name, correlationKey, processKey, now, limit)
}

// A step that opens a subscription reads the buffer only while it may hold
// a message: never before the first publication, and not after a sweep
// emptied it.
func TestBufferSkippedWhileKnownEmpty(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	counter := &readCounter{Store: db}
	rt := runtime.New(counter, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})
	for range 3 {
		start(t, rt, "messages", map[string]any{"orderId": "x"})
	}
	if n := counter.reads.Load(); n != 0 {
		t.Fatalf("%d buffer reads with an empty buffer, want 0", n)
	}
	publish(t, rt, paidAt("a", time.Minute, nil))
	if st, _ := statusOf(t, rt, start(t, rt, "messages", map[string]any{"orderId": "a"}).ID); st != runtime.StatusCompleted {
		t.Fatalf("instance = %s, want completed", st)
	}
	if counter.reads.Load() == 0 {
		t.Fatal("the buffer was not read while it held a message")
	}
	c.clk.Advance(time.Minute)
	if n, err := rt.SweepMessages(ctx); err != nil || n != 1 {
		t.Fatalf("sweep = %d %v", n, err)
	}
	before := counter.reads.Load()
	start(t, rt, "messages", map[string]any{"orderId": "a"})
	if n := counter.reads.Load(); n != before {
		t.Fatalf("%d buffer reads after the sweep emptied it, want 0", n-before)
	}
}

// A buffered message's strings are bounded, so its index rows fit every
// store: a longer one is EINVALID on its field.
func TestBufferedMessageStringBounds(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	long := func(n int) string { return strings.Repeat("x", n) }
	for field, p := range map[string]runtime.Publication{
		"name":           {Name: long(runtime.MaxMessageNameLen + 1), TimeToLive: time.Minute},
		"correlationKey": {Name: "n", CorrelationKey: long(runtime.MaxCorrelationKeyLen + 1), TimeToLive: time.Minute},
		"messageId":      {Name: "n", MessageID: long(runtime.MaxMessageIDLen + 1), TimeToLive: time.Minute},
	} {
		_, err := c.rt.PublishMessage(context.Background(), p)
		var re *runtime.Error
		if runtime.ErrorCode(err) != runtime.EINVALID || !errors.As(err, &re) || re.Field != field {
			t.Fatalf("%s too long: %v, want EINVALID on %s", field, err, field)
		}
	}
	at := runtime.Publication{Name: long(runtime.MaxMessageNameLen), CorrelationKey: long(runtime.MaxCorrelationKeyLen),
		MessageID: long(runtime.MaxMessageIDLen), TimeToLive: time.Minute}
	if res := publish(t, c.rt, at); !res.Buffered {
		t.Fatalf("at the bounds = %+v", res)
	}
}

// The subscriptions one step opens for one name and correlation key share
// one read of the buffer.
func TestBufferReadOncePerPairInAStep(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	counter := &readCounter{Store: db}
	rt := runtime.New(counter, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})
	deployXML(t, rt, "fanin.bpmn", fanIn)
	for i := range 100 {
		publish(t, rt, paidAt("o-1", time.Hour, map[string]any{"n": i}))
	}
	inst := start(t, rt, "fanIn", map[string]any{"orderId": "o-1"})
	if st, _ := statusOf(t, rt, inst.ID); st != runtime.StatusCompleted {
		t.Fatalf("fanIn = %s, want completed", st)
	}
	if n := counter.reads.Load(); n != 1 {
		t.Fatalf("%d buffer reads for 100 subscriptions of one pair, want 1", n)
	}
}

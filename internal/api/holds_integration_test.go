package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
)

// longPoll is a job activation that waits up to five minutes.
const longPoll = `{"type":"nothing-comes","worker":"w","maxJobs":1,"lockDurationMs":1000,"requestTimeoutMs":300000}`

// shortPoll waits a millisecond: answered at once unless refused.
const shortPoll = `{"type":"nothing-comes","worker":"w","maxJobs":1,"lockDurationMs":1000,"requestTimeoutMs":1}`

// holder keeps long polls open through handler (each reopened should it
// end early: a probe may have taken a place first) and ends them all with
// the test.
type holder struct {
	handler http.Handler
	headers func(*http.Request)
	wg      sync.WaitGroup
	polls   []*heldPoll
}

type heldPoll struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (h *holder) open() *heldPoll {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/v1/jobs/activate", strings.NewReader(longPoll))
	req.Header.Set("Content-Type", "application/json")
	h.headers(req)
	p := &heldPoll{cancel: cancel, done: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(p.done)
		h.handler.ServeHTTP(httptest.NewRecorder(), req)
	}()
	return p
}

// hold keeps n polls open: it opens the missing ones and reopens those
// that ended.
func (h *holder) hold(n int) {
	for i, p := range h.polls {
		select {
		case <-p.done:
			h.polls[i] = h.open()
		default:
		}
	}
	for len(h.polls) < n {
		h.polls = append(h.polls, h.open())
	}
}

// closeOne ends one poll and waits until it has answered.
func (h *holder) closeOne() {
	p := h.polls[0]
	h.polls = h.polls[1:]
	p.cancel()
	<-p.done
}

func (h *holder) closeAll() {
	for _, p := range h.polls {
		p.cancel()
	}
	h.wg.Wait()
}

// until sends req() until its status is want; guard bounds a test that
// would otherwise hang (no timing assertion).
func until(t *testing.T, want int, req func() *response) *response {
	t.Helper()
	guard := time.Now().Add(20 * time.Second)
	for {
		res := req()
		if res.Status == want {
			return res
		}
		if time.Now().After(guard) {
			t.Fatalf("never answered %d; last %d %s", want, res.Status, res.Body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// One caller may hold at most MaxLongPolls job activations open at once:
// one more is 429 problem+json with Retry-After, another caller is not
// affected, and a poll that ends frees its place.
func TestLongPollCapPerUser(t *testing.T) {
	t.Parallel()
	rt, acc := openAccess(t, access.ModeBuiltin, nil)
	w := &authWorld{b: setup(t, rt, api.Options{Access: acc, MaxLongPolls: 2}), acc: acc, rt: rt, tokens: map[string]string{}}
	w.addUser(t, "worker-1", nil, "work job-type *")
	w.addUser(t, "worker-2", nil, "work job-type *")
	h := &holder{handler: w.b.handler, headers: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+w.tokens["worker-1"]) }}
	defer h.closeAll()
	res := until(t, http.StatusTooManyRequests, func() *response {
		h.hold(2)
		return w.call("worker-1", "POST", "/api/v1/jobs/activate", shortPoll)
	})
	p := res.problem(t, http.StatusTooManyRequests, "too-many-requests")
	if res.Header.Get("Retry-After") == "" || p.Field != "requestTimeoutMs" || !strings.Contains(p.Detail, "2 long polls") {
		t.Errorf("the refusal: Retry-After %q, %+v", res.Header.Get("Retry-After"), p)
	}
	// Without requestTimeoutMs nothing is held: answered.
	w.call("worker-1", "POST", "/api/v1/jobs/activate", `{"type":"nothing-comes","worker":"w","lockDurationMs":1000}`).wantStatus(t, http.StatusOK)
	// Another user has places of their own.
	w.call("worker-2", "POST", "/api/v1/jobs/activate", shortPoll).wantStatus(t, http.StatusOK)

	h.closeOne()
	until(t, http.StatusOK, func() *response { return w.call("worker-1", "POST", "/api/v1/jobs/activate", shortPoll) })
}

// Without authentication callers are counted by address, whatever user
// their headers name.
func TestLongPollCapPerAddress(t *testing.T) {
	t.Parallel()
	rt, _ := openAccess(t, access.ModeNone, nil)
	b := setup(t, rt, api.Options{MaxLongPolls: 1})
	h := &holder{handler: b.handler, headers: func(r *http.Request) { r.Header.Set(api.HeaderUser, "ann") }}
	defer h.closeAll()
	send := func(user, addr string) func() *response {
		return func() *response {
			h.hold(1)
			req := httptest.NewRequest(http.MethodPost, "/api/v1/jobs/activate", strings.NewReader(shortPoll))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(api.HeaderUser, user)
			req.RemoteAddr = addr
			return b.do(req)
		}
	}
	until(t, http.StatusTooManyRequests, send("bob", "192.0.2.1:4321")) // httptest's default address, another port
	until(t, http.StatusOK, send("ann", "192.0.2.99:1234"))
}

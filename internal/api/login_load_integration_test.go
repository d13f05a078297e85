package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	rt "github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// Login load: no number of concurrent logins makes the
// server hold more than its hash pool's memory, and the throttle refuses
// before hashing.

// concurrentLogins is how many logins the load tests send at once.
const concurrentLogins = 100

// loginServer is a builtin-auth server whose passwords are hashed with
// the real parameters (64 MiB each) and whose hash pool is pool (the
// default, GOMAXPROCS slots, when nil).
func loginServer(t *testing.T, params auth.Params, pool *auth.HashPool) (*bundle, *access.Service) {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := rt.New(db, rt.Options{})
	t.Cleanup(func() { _ = r.Close() })
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: params, HashPool: pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = acc.Close(context.Background()) })
	return setup(t, r, api.Options{Access: acc}), acc
}

// loginFrom builds a login request for user with a wrong password from
// the client address addr.
func loginFrom(user, addr string) *http.Request {
	req := httptestRequest("POST", "/api/v1/auth/login", strings.NewReader(`{"user":"`+user+`","password":"wrong password, surely"}`))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr + ":40000"
	return req
}

// heapPeak samples the heap in use until stop is closed and then reports
// the largest value seen (bytes).
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return out
}

// burst sends the requests at once through the real router and returns
// how many got each status, and the heap's peak above the baseline
// measured before (bytes).
func burst(t *testing.T, b *bundle, reqs []*http.Request) (map[int]int, uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := make(chan struct{})
	peak := heapPeak(stop)
	start := make(chan struct{})
	statuses := make([]int, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res := b.do(req)
			statuses[i] = res.Status
			if res.Status == http.StatusTooManyRequests || res.Status == http.StatusServiceUnavailable {
				if res.Header.Get("Retry-After") == "" {
					t.Errorf("%d without Retry-After", res.Status)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(stop)
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	p := <-peak
	if p < base {
		return counts, 0
	}
	return counts, p - base
}

// TestConcurrentLoginsKeepMemoryBounded sends 100 logins at once with
// wrong passwords for random (unknown) names, through the real router, with
// the real argon2id parameters: from 100 addresses (only the hash pool
// limits them), from one address (its in-flight cap and failure count
// refuse the excess before hashing) and for one name. The heap's peak
// above its baseline stays under GOMAXPROCS × 64 MiB, twice over for the
// garbage collector's headroom, plus 200 MiB; without the pool each login
// holds its own 64 MiB (100 at once: over 6 GiB).
//
// It is not parallel: it measures the process's heap.
func TestConcurrentLoginsKeepMemoryBounded(t *testing.T) {
	b, _ := loginServer(t, auth.DefaultParams(), nil)
	params := auth.DefaultParams()
	perHash := uint64(params.Memory) * 1024
	bound := 2*uint64(runtime.GOMAXPROCS(0))*perHash + 200<<20
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("ghost-%d-%08x", i, rand.Uint32())
		}
		return out
	}
	check := func(t *testing.T, what string, counts map[int]int, peak uint64, allowed ...int) {
		t.Helper()
		t.Logf("%s: statuses %v; heap peak %d MiB above the baseline (bound %d MiB, GOMAXPROCS %d)",
			what, counts, peak>>20, bound>>20, runtime.GOMAXPROCS(0))
		if peak > bound {
			t.Errorf("%s: heap peak %d MiB above the baseline, want at most %d MiB", what, peak>>20, bound>>20)
		}
		total := 0
		for status, n := range counts {
			total += n
			ok := false
			for _, a := range allowed {
				ok = ok || status == a
			}
			if !ok {
				t.Errorf("%s: %d answers with status %d, want only %v", what, n, status, allowed)
			}
		}
		if total != concurrentLogins && !strings.HasPrefix(what, "one name") {
			t.Errorf("%s: %d answers, want %d", what, total, concurrentLogins)
		}
	}

	t.Run("many addresses", func(t *testing.T) {
		var reqs []*http.Request
		for i, n := range names(concurrentLogins) {
			reqs = append(reqs, loginFrom(n, fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)))
		}
		counts, peak := burst(t, b, reqs)
		check(t, "many addresses", counts, peak, http.StatusUnauthorized, http.StatusServiceUnavailable)
		if counts[http.StatusUnauthorized] == 0 {
			t.Error("no login was checked at all")
		}
	})
	t.Run("one address", func(t *testing.T) {
		var reqs []*http.Request
		for _, n := range names(concurrentLogins) {
			reqs = append(reqs, loginFrom(n, "192.0.2.77"))
		}
		counts, peak := burst(t, b, reqs)
		check(t, "one address", counts, peak, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable)
		// 50 failures lock an address out, the 50th answered 429 already:
		// attempts in flight count, so concurrency buys no more.
		if n := counts[http.StatusUnauthorized]; n > 49 {
			t.Errorf("one address: %d wrong passwords checked, want at most 49", n)
		}
	})
	t.Run("one name", func(t *testing.T) {
		var reqs []*http.Request
		for i := range 20 {
			reqs = append(reqs, loginFrom("ghost", fmt.Sprintf("10.2.0.%d", i+1)))
		}
		counts, peak := burst(t, b, reqs)
		check(t, "one name", counts, peak, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable)
		if n := counts[http.StatusUnauthorized]; n > 4 {
			t.Errorf("one name: %d wrong passwords checked, want at most 4 (5 failures lock it out)", n)
		}
	})
}

// TestPasswordHashingRefusedWhenThePoolIsFull: with every slot and queue
// place of the hash pool taken, a login, the first-run set-up and a
// password change are each refused with 503 and Retry-After, nothing
// hashed, and the refused login counts as no failure.
func TestPasswordHashingRefusedWhenThePoolIsFull(t *testing.T) {
	t.Parallel()
	pool, err := auth.NewHashPool(auth.HashPoolConfig{Slots: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, acc := loginServer(t, auth.TestParams(), pool)
	ctx := context.Background()
	token := acc.SetupToken()

	hold := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 { // one runs, one waits: the pool is full
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = pool.Do(ctx, func() { <-hold })
		}()
	}
	for pool.Running() != 1 || pool.Waiting() != 1 {
		runtime.Gosched()
	}
	refused := func(res *response) {
		t.Helper()
		res.problem(t, http.StatusServiceUnavailable, "unavailable")
		if res.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	refused(b.postJSON("/api/v1/auth/setup", `{"setupToken":"`+token+`","user":"ann","password":"correct horse battery"}`))
	if acc.SetupToken() != token {
		t.Error("a set-up refused for a busy pool used up the set-up token")
	}
	for range 6 { // more than the 5 failures that lock a name out
		refused(b.do(loginFrom("ghost", "192.0.2.5")))
	}
	close(hold)
	wg.Wait()

	b.postJSON("/api/v1/auth/setup", `{"setupToken":"`+token+`","user":"ann","password":"correct horse battery"}`).wantStatus(t, http.StatusCreated)
	// The refused logins were not failures: the name is not locked out.
	b.do(loginFrom("ghost", "192.0.2.5")).wantStatus(t, http.StatusUnauthorized)
	secret, _, err := acc.MintToken(ctx, access.NewToken{Owner: "ann", Name: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	hold = make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = pool.Do(ctx, func() { <-hold })
		}()
	}
	for pool.Running() != 1 || pool.Waiting() != 1 {
		runtime.Gosched()
	}
	req := httptestRequest("PATCH", "/api/v1/users/ann", strings.NewReader(`{"password":"another horse battery"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secret)
	refused(b.do(req))
	close(hold)
	wg.Wait()
}

package api_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// resolveCounter is the runtime, counting the job resolutions the API asks
// for and the job acts it hands a resolved reference (one naming the job's
// type) or a bare key.
type resolveCounter struct {
	*runtime.Runtime
	resolves, resolvedActs, keyActs atomic.Int32
}

func (c *resolveCounter) ResolveJob(ctx context.Context, key string) (runtime.JobRef, error) {
	c.resolves.Add(1)
	return c.Runtime.ResolveJob(ctx, key)
}

func (c *resolveCounter) count(ref runtime.JobRef) {
	if ref.Type != "" {
		c.resolvedActs.Add(1)
	} else {
		c.keyActs.Add(1)
	}
}

func (c *resolveCounter) CompleteResolvedJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, vars map[string]any) error {
	c.count(ref)
	return c.Runtime.CompleteResolvedJob(ctx, ref, h, vars)
}

func (c *resolveCounter) FailResolvedJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, req runtime.FailRequest) error {
	c.count(ref)
	return c.Runtime.FailResolvedJob(ctx, ref, h, req)
}

func (c *resolveCounter) ExtendResolvedJobLock(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, d time.Duration) error {
	c.count(ref)
	return c.Runtime.ExtendResolvedJobLock(ctx, ref, h, d)
}

func (c *resolveCounter) ThrowResolvedJobError(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, code, message string, vars map[string]any) error {
	c.count(ref)
	return c.Runtime.ThrowResolvedJobError(ctx, ref, h, code, message, vars)
}

// TestJobActsResolveTheJobOnce: a job act by a caller whose rights depend
// on the job's type resolves the job once, during authorization, and the
// act takes that reference; an admin's act resolves nothing in the API
// (the act verifies the key itself).
func TestJobActsResolveTheJobOnce(t *testing.T) {
	t.Parallel()
	rt, acc := openAccess(t, access.ModeBuiltin, nil)
	svc := &resolveCounter{Runtime: rt}
	w := &authWorld{b: setup(t, svc, api.Options{Access: acc}), acc: acc, rt: rt, tokens: map[string]string{}}
	ctx := context.Background()
	for _, role := range []string{"admin", "worker"} {
		user := "u-" + role
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: user, Password: "correct horse battery"}); err != nil {
			t.Fatal(err)
		}
		if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: user}, Role: auth.Role(role)}); err != nil {
			t.Fatal(err)
		}
		secret, _, err := acc.MintToken(ctx, access.NewToken{Owner: user, Name: "test"})
		if err != nil {
			t.Fatal(err)
		}
		w.tokens[role] = secret
	}
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)

	activate := func(role string) (key, token string) {
		t.Helper()
		w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated)
		got := w.call(role, "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":60000}`).
			wantStatus(t, http.StatusOK).object(t)
		job := got["jobs"].([]any)[0].(map[string]any)
		return job["key"].(string), job["lockToken"].(string)
	}
	// Each act after the failure (which releases the lock) works on a
	// job activated afresh.
	acts := []struct {
		path, body string
		fresh      bool
	}{
		{"extend", `{"lockToken":%q,"lockDurationMs":60000}`, true},
		{"fail", `{"lockToken":%q,"retries":3}`, false},
		{"error", `{"lockToken":%q,"errorCode":"E1"}`, true},
		{"complete", `{"lockToken":%q}`, true},
	}
	for _, role := range []string{"worker", "admin"} {
		var key, token string
		for _, act := range acts {
			if act.fresh {
				key, token = activate(role)
			}
			before := svc.resolves.Load()
			w.call(role, "POST", "/api/v1/jobs/"+key+"/"+act.path, fmt.Sprintf(act.body, token)).wantStatus(t, http.StatusNoContent)
			want := int32(1)
			if role == "admin" {
				want = 0
			}
			if got := svc.resolves.Load() - before; got != want {
				t.Errorf("%s %s: %d resolutions, want %d", role, act.path, got, want)
			}
		}
	}
	if got := svc.resolvedActs.Load(); got != int32(len(acts)) {
		t.Errorf("the worker's acts took %d resolved references, want %d", got, len(acts))
	}
	if got := svc.keyActs.Load(); got != int32(len(acts)) {
		t.Errorf("the admin's acts took %d bare keys, want %d", got, len(acts))
	}
}

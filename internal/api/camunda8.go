package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/camunda8"
	"github.com/gobpm/gobpm/internal/runtime"
)

// RestV2Prefix is where Camunda 8's REST v2 endpoints are mounted, beside
// /api/v1 on the same port.
const RestV2Prefix = "/v2"

// restV2Rules is what each /v2 route requires, as the route table's rules
// are for /api/v1 (RouteRules lists them too). Each rule is that of the
// route's /api/v1 counterpart; the adapter checks each key exactly (a job
// of a type the caller may not work on, an instance of a process they may
// not read, is unknown to them).
func restV2Rules() map[string]access.Rule {
	work := access.On(auth.PermWork, auth.KindJobType, access.KeyHandler)
	read := access.On(auth.PermRead, auth.KindProcess, access.KeyHandler)
	operate := access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler)
	return map[string]access.Rule{
		// As POST /api/v1/jobs/activate and /api/v1/jobs/{key}/...: work.
		"POST /v2/jobs/activation":          work,
		"POST /v2/jobs/{jobKey}/completion": work,
		"POST /v2/jobs/{jobKey}/failure":    work,
		"POST /v2/jobs/{jobKey}/error":      work,
		"PATCH /v2/jobs/{jobKey}":           work,
		// As POST /api/v1/processes/{key}/instances, /instances/{id}/cancel
		// and GET /api/v1/instances.
		"POST /v2/process-instances":                                   access.On(auth.PermStart, auth.KindProcess, access.KeyHandler),
		"POST /v2/process-instances/{processInstanceKey}/cancellation": operate,
		"POST /v2/process-instances/search":                            read,
		// As POST /api/v1/instances/{id}/variables.
		"PUT /v2/element-instances/{elementInstanceKey}/variables": operate,
		// As POST /api/v1/deployments: each key by the deploy guard.
		"POST /v2/deployments": access.On(auth.PermDeploy, auth.KindProcess, access.KeyHandler),
		// As POST /api/v1/messages and /signals: operate on every process.
		"POST /v2/messages/publication": access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
		"POST /v2/messages/correlation": access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
		"POST /v2/signals/broadcast":    access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
		// As /api/v1/tasks: anyone authenticated, each task to whom it is
		// offered or who may read its process.
		"POST /v2/user-tasks/search":                   access.Anyone(),
		"POST /v2/user-tasks/{userTaskKey}/assignment": access.Anyone(),
		"DELETE /v2/user-tasks/{userTaskKey}/assignee": access.Anyone(),
		"POST /v2/user-tasks/{userTaskKey}/completion": access.Anyone(),
		// As GET /api/v1/incidents and POST /api/v1/incidents/{id}/retry.
		"POST /v2/incidents/search":                   read,
		"POST /v2/incidents/{incidentKey}/resolution": operate,
		"GET /v2/topology":                            access.Anyone(),
		"GET /v2/license":                             access.Anyone(),
	}
}

// restV2RuleFinder finds the /v2 rule of a request.
type restV2RuleFinder struct {
	rules map[string]access.Rule
	mux   *chi.Mux
}

// newRestV2RuleFinder returns a finder over restV2Rules.
func newRestV2RuleFinder() *restV2RuleFinder {
	f := &restV2RuleFinder{rules: restV2Rules(), mux: chi.NewMux()}
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for k := range f.rules {
		method, pattern, _ := strings.Cut(k, " ")
		f.mux.Method(method, pattern, noop)
	}
	return f
}

// rule is the rule of r's route; ok false for a route the adapter does
// not serve (it answers 404 or 405 itself).
func (f *restV2RuleFinder) rule(r *http.Request) (access.Rule, bool) {
	pattern := f.mux.Find(chi.NewRouteContext(), r.Method, r.URL.Path)
	ru, ok := f.rules[r.Method+" "+pattern]
	return ru, ok
}

// addRestV2Rules adds the /v2 rules to a RouteRules table.
func addRestV2Rules(out map[string]RouteRule) {
	for k, ru := range restV2Rules() {
		out[k] = RouteRule{Public: ru.Public, Permission: ru.Perm, Kind: ru.Kind}
	}
}

// restV2 is the handler mounted at RestV2Prefix: the Camunda 8 adapter
// over the same service, behind the same authentication (bearer tokens,
// session cookies, nobody in auth mode none; plus HTTP Basic for builtin
// users, as /engine-rest), permissions and audit trail as /api/v1,
// answering Camunda 8's problems.
func (s *server) restV2() http.Handler {
	svc, _ := s.svc.(camunda8.Service) // nil for a test double: restV2Available answers 501
	return camunda8.New(camunda8.Config{
		Service: svc, Guard: engineRestGuard{s: s}, Logger: s.log, MaxJSONBytes: s.opts.MaxJSONBytes,
		MaxDeploymentBytes: s.opts.MaxDeploymentBytes, ErrorOf: restV2ErrorOf,
		Hold:        func(r *http.Request) (func(), bool) { return s.polls.Acquire(holdKey(r)) },
		Middlewares: []func(http.Handler) http.Handler{s.restV2CrossOrigin, s.restV2Auth(), s.auditTrail, restV2Available(svc != nil)},
	})
}

// restV2CrossOrigin is crossOriginWithoutCredentials answering Camunda
// 8's problem.
func (s *server) restV2CrossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		camunda8.WriteProblem(w, r, camunda8.NewProblem(http.StatusForbidden, camunda8.TitleForbidden,
			"cross-origin request refused: a browser sent it from another site without credentials of its own; send them (a bearer token or HTTP Basic)"))
	}))
	guarded := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			next.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// restV2ErrorOf answers, with a Camunda 8 problem, the refusals of this
// package's guards the adapter does not know (the deploy guard's 403).
func restV2ErrorOf(err error) (*camunda8.Problem, bool) {
	p, internal := problemFor(err)
	if internal {
		return nil, false
	}
	return camunda8.NewProblem(p.Status, restV2Title(p.Status), p.Detail), true
}

// restV2Title is the Camunda 8 problem title of a status.
func restV2Title(status int) string {
	switch status {
	case http.StatusForbidden:
		return camunda8.TitleForbidden
	case http.StatusUnauthorized:
		return camunda8.TitleUnauthorized
	case http.StatusNotFound:
		return camunda8.TitleNotFound
	case http.StatusConflict:
		return camunda8.TitleInvalidState
	case http.StatusTooManyRequests:
		return camunda8.TitleTooMany
	case http.StatusServiceUnavailable:
		return camunda8.TitleUnavailable
	}
	if status >= 500 {
		return camunda8.TitleInternal
	}
	return camunda8.TitleInvalidArgument
}

// restV2Available answers 501 when the service is no camunda8.Service
// (a test double), instead of a nil dereference.
func restV2Available(ok bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if ok {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			camunda8.WriteProblem(w, r, camunda8.NewProblem(http.StatusNotImplemented, "NOT_IMPLEMENTED", "this server's service does not serve the REST v2 endpoints"))
		})
	}
}

// restV2Auth authenticates a /v2 request — HTTP Basic user:password of a
// builtin user (the orchestration cluster client's BASIC strategy), else
// as /api/v1 does (bearer token, session cookie, or nobody in auth mode
// none) — and refuses, with Camunda 8's problem, a caller who is unknown
// (401) or who may not take the route at all (403). The exact keys are
// checked per act.
func (s *server) restV2Auth() func(http.Handler) http.Handler {
	rules := newRestV2RuleFinder()
	basic := newBasicCache()
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := s.engineRestCaller(r, basic)
			if err == nil && c.Via != "none" && !c.Authenticated() {
				err = unauthenticated("this route needs an authenticated caller: send Authorization: Bearer <token> or Basic <user:password>")
			}
			if ru, ok := rules.rule(r); err == nil && ok && c.Via != "none" && ru.Perm != "" && !c.Unrestricted() && !engineRestAllows(ru, c) {
				err = restV2Denied(ru)
			}
			if err != nil {
				p, internal := problemFor(err)
				if internal {
					s.log.ErrorContext(r.Context(), "REST v2 authentication failed", "err", err, "requestId", RequestID(r.Context()))
				}
				if p.Status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer realm="gobpm"`)
				}
				camunda8.WriteProblem(w, r, camunda8.NewProblem(p.Status, restV2Title(p.Status), p.Detail))
				return
			}
			if st := logStateFrom(r.Context()); st != nil {
				st.caller = c
			}
			ctx := context.WithValue(r.Context(), callerKey{}, c)
			next.ServeHTTP(w, r.WithContext(runtime.WithActingUser(ctx, string(c.User))))
		})
	}
}

// restV2Denied is the route-level refusal of a caller who holds the
// rule's permission on nothing of its kind.
func restV2Denied(ru access.Rule) error {
	if ru.Perm == auth.PermWork {
		return errorf(kindForbidden, "", "the user may not work on jobs of any type")
	}
	return errorf(kindForbidden, "", fmt.Sprintf("the user holds %s on no %s", ru.Perm, ru.Kind))
}

package api

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/camunda7"
	"github.com/gobpm/gobpm/internal/runtime"
)

// EngineRestPrefix is where Camunda 7's engine-rest endpoints are mounted,
// beside /api/v1 on the same port.
const EngineRestPrefix = "/engine-rest"

// engineRestRules is what each /engine-rest route requires, as the route
// table's rules are for /api/v1 (RouteRules lists both). The job acts need
// work on the job's type, as POST /api/v1/jobs/... do (the adapter checks
// each type exactly, and conceals a task of a type the caller may not work
// on as unknown); the listings need an authenticated caller and show the
// tasks the caller may work on or whose process they may read.
func engineRestRules() map[string]access.Rule {
	work := access.On(auth.PermWork, auth.KindJobType, access.KeyHandler)
	return map[string]access.Rule{
		"POST /engine-rest/external-task/fetchAndLock":     work,
		"POST /engine-rest/external-task/{id}/complete":    work,
		"POST /engine-rest/external-task/{id}/failure":     work,
		"POST /engine-rest/external-task/{id}/bpmnError":   work,
		"POST /engine-rest/external-task/{id}/extendLock":  work,
		"POST /engine-rest/external-task/{id}/unlock":      work,
		"POST /engine-rest/external-task/{id}/lock":        work,
		"GET /engine-rest/external-task":                   access.Anyone(),
		"GET /engine-rest/external-task/count":             access.Anyone(),
		"GET /engine-rest/external-task/{id}":              access.Anyone(),
		"GET /engine-rest/external-task/{id}/errorDetails": access.Anyone(),
		// As POST /api/v1/incidents/{id}/retry: operate on the task's
		// process, checked by the adapter.
		"PUT /engine-rest/external-task/{id}/retries": access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
		// As POST /api/v1/deployments: deploy on some process or decision
		// at the route, each key exactly by the deploy guard.
		"POST /engine-rest/deployment/create": access.On(auth.PermDeploy, auth.KindProcess, access.KeyHandler),
		// The deployments of the processes the caller may read (the
		// Modeler's connection check): read, as GET /api/v1/processes.
		"GET /engine-rest/deployment": access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		// As GET /api/v1/processes and POST /api/v1/processes/{key}/instances:
		// read (the listing shows, and a key resolves to, only the processes
		// the caller may read) and start, each key checked by the adapter.
		"GET /engine-rest/process-definition":                  access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"GET /engine-rest/process-definition/key/{key}":        access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"POST /engine-rest/process-definition/key/{key}/start": access.On(auth.PermStart, auth.KindProcess, access.KeyHandler),
		"POST /engine-rest/process-definition/{id}/start":      access.On(auth.PermStart, auth.KindProcess, access.KeyHandler),
		// As POST /api/v1/messages and /signals: operate on every process.
		"POST /engine-rest/message": access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
		"POST /engine-rest/signal":  access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
		// As GET /api/v1/instances(/{id}) and POST /api/v1/instances/{id}/cancel
		// (DELETE cancels): read, and operate, on the instance's process,
		// checked by the adapter (an instance the caller may not read is
		// unknown).
		"GET /engine-rest/process-instance":                access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"GET /engine-rest/process-instance/{id}":           access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"GET /engine-rest/process-instance/{id}/variables": access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"DELETE /engine-rest/process-instance/{id}":        access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
		// As /api/v1/tasks: anyone authenticated; each task is visible and
		// actionable to the people it is offered to and readable by whoever
		// may read its process.
		"GET /engine-rest/task":                     access.Anyone(),
		"GET /engine-rest/task/{id}":                access.Anyone(),
		"GET /engine-rest/task/{id}/form-variables": access.Anyone(),
		"POST /engine-rest/task/{id}/claim":         access.Anyone(),
		"POST /engine-rest/task/{id}/unclaim":       access.Anyone(),
		"POST /engine-rest/task/{id}/complete":      access.Anyone(),
		// As GET /api/v1/incidents and /api/v1/instances: read, the listing
		// showing the processes the caller may read.
		"GET /engine-rest/incident":                 access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"GET /engine-rest/history/process-instance": access.On(auth.PermRead, auth.KindProcess, access.KeyHandler),
		"GET /engine-rest/engine":                   access.Anyone(),
		"GET /engine-rest/version":                  access.Anyone(),
	}
}

// engineRestRuleFinder finds the engine-rest rule of a request: a router
// holding the rules' patterns, asked for the one a request matches.
type engineRestRuleFinder struct {
	rules map[string]access.Rule
	mux   *chi.Mux
	// served holds the routes the adapter serves (set by serve before the
	// first request): one of them without a rule is refused, not let
	// through.
	served *chi.Mux
}

// newEngineRestRuleFinder returns a finder over engineRestRules.
func newEngineRestRuleFinder() *engineRestRuleFinder {
	f := &engineRestRuleFinder{rules: engineRestRules(), mux: chi.NewMux()}
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for k := range f.rules {
		method, pattern, _ := strings.Cut(k, " ")
		f.mux.Method(method, pattern, noop)
	}
	return f
}

// rule is the rule of r's route; ok false for a route the adapter does
// not serve (it answers 404 or 405 itself).
func (f *engineRestRuleFinder) rule(r *http.Request) (access.Rule, bool) {
	pattern := f.mux.Find(chi.NewRouteContext(), r.Method, routedPath(r))
	ru, ok := f.rules[r.Method+" "+pattern]
	return ru, ok
}

// routedPath is the path chi routes r on: its raw path when it has one
// (an encoded slash, x%2Fy, is then one segment), else its path. The
// rules must be found on the same path, or a percent-encoded path could
// take a route under another route's rule.
func routedPath(r *http.Request) string {
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	return r.URL.Path
}

// serve records the routes of the adapter's router, mounted at
// EngineRestPrefix.
func (f *engineRestRuleFinder) serve(router chi.Routes) error {
	f.served = chi.NewMux()
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		f.served.Method(method, EngineRestPrefix+route, noop)
		return nil
	})
	if err != nil {
		return fmt.Errorf("api: walk the engine-rest routes: %w", err)
	}
	return nil
}

// unruled reports whether r takes a route the adapter serves that has no
// rule (a route added without one): it must be refused, never let through.
func (f *engineRestRuleFinder) unruled(r *http.Request) (string, bool) {
	if f.served == nil {
		return "", false
	}
	pattern := f.served.Find(chi.NewRouteContext(), r.Method, routedPath(r))
	if pattern == "" {
		return "", false // not served: the adapter answers 404 or 405
	}
	_, ok := f.rules[r.Method+" "+pattern]
	return r.Method + " " + pattern, !ok
}

// addEngineRestRules adds the engine-rest rules to a RouteRules table.
func addEngineRestRules(out map[string]RouteRule) {
	for k, ru := range engineRestRules() {
		out[k] = RouteRule{Public: ru.Public, Permission: ru.Perm, Kind: ru.Kind}
	}
}

// engineRest is the handler mounted at EngineRestPrefix: the Camunda 7
// adapter over the same service, behind the same authentication (plus
// HTTP Basic for builtin users, what Camunda 7 clients send), permissions
// and audit trail as /api/v1, answering Camunda 7's error bodies.
func (s *server) engineRest() http.Handler {
	svc, _ := s.svc.(camunda7.Service) // nil for a test double: engineRestAvailable answers 501
	rules := newEngineRestRuleFinder()
	router := camunda7.New(camunda7.Config{
		Service: svc, Guard: engineRestGuard{s: s}, Logger: s.log, MaxJSONBytes: s.opts.MaxJSONBytes,
		MaxDeploymentBytes: s.opts.MaxDeploymentBytes, ErrorOf: engineRestErrorOf,
		Hold: func(r *http.Request) (func(), bool) { return s.polls.Acquire(holdKey(r)) },
		Middlewares: []func(http.Handler) http.Handler{s.crossOriginWithoutCredentials, s.engineRestAuth(newBasicCache(), rules),
			s.auditTrail, engineRestAvailable(svc != nil)},
	})
	if err := rules.serve(router); err != nil {
		// The walk fails only on a malformed route: refuse every request.
		s.log.Error("engine-rest routes unreadable", keyError, err)
		rules.served = nil
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			camunda7.WriteError(w, &camunda7.Error{Status: http.StatusInternalServerError, Type: camunda7.TypeRestException, Msg: "internal error: the server logged the cause"})
		})
	}
	return router
}

// crossOriginWithoutCredentials is crossOrigin for the requests that carry
// no Authorization header. Cross-site forgery rides on what a browser
// adds by itself (the cockpit's session cookie, the loopback server of
// --auth none); a request naming its own credentials (Camunda 7 clients
// send HTTP Basic) carries no such authority, and a browser sends one
// cross-site only after a CORS preflight, which gobpm never grants. The
// Camunda Modeler, an Electron app, deploys that way whatever origin its
// window has.
// A refusal is Camunda 7's error body.
func (s *server) crossOriginWithoutCredentials(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		camunda7.WriteError(w, &camunda7.Error{Status: http.StatusForbidden, Type: camunda7.TypeRestException,
			Msg: "cross-origin request refused: a browser sent it from another site (Sec-Fetch-Site, Origin) without credentials of its own; send them (HTTP Basic or a bearer token)"})
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

// engineRestErrorOf answers, with Camunda 7's error body, the refusals of
// this package's guards the adapter does not know (a deploy guard's 403,
// a deployment reaching beyond the deployer's rights); internal errors
// stay the adapter's to log.
func engineRestErrorOf(err error) (*camunda7.Error, bool) {
	p, internal := problemFor(err)
	if internal {
		return nil, false
	}
	return &camunda7.Error{Status: p.Status, Type: engineRestType(p.Status), Msg: p.Detail}, true
}

// engineRestType is the Camunda 7 exception type of a status.
func engineRestType(status int) string {
	switch status {
	case http.StatusForbidden:
		return camunda7.TypeAuthorization
	case http.StatusBadRequest:
		return camunda7.TypeInvalidRequest
	case http.StatusNotFound:
		return camunda7.TypeNotFound
	}
	return camunda7.TypeRestException
}

// engineRestAvailable answers 501 when the service is no camunda7.Service
// (a test double), instead of a nil dereference.
func engineRestAvailable(ok bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if ok {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			camunda7.WriteError(w, &camunda7.Error{Status: http.StatusNotImplemented, Type: camunda7.TypeRestException, Msg: "this server's service does not serve the engine-rest endpoints"})
		})
	}
}

// engineRestAuth authenticates an engine-rest request — HTTP Basic
// user:password of a builtin user, else as /api/v1 does (bearer token,
// session cookie, or nobody in auth mode none) — and refuses, with
// Camunda 7's error body, a caller who is unknown (401) or who may not
// take the route at all (403). The exact keys are checked per act.
// Its rule finder knows the adapter's routes once serve has walked them: a served route without
// a rule is then a 500 in Camunda 7's error body, as /api/v1 cannot have
// one (its routes carry their rules).
func (s *server) engineRestAuth(basic *basicCache, rules *engineRestRuleFinder) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return s.engineRestAuthWith(basic, rules, next)
	}
}

// engineRestAuthWith is engineRestAuth's handler.
func (s *server) engineRestAuthWith(basic *basicCache, rules *engineRestRuleFinder, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route, ok := rules.unruled(r); ok {
			s.log.ErrorContext(r.Context(), "engine-rest route has no access rule", keyRoute, route, keyRequestID, RequestID(r.Context()))
			camunda7.WriteError(w, &camunda7.Error{Status: http.StatusInternalServerError, Type: camunda7.TypeRestException,
				Msg: "internal error: the route " + route + " has no access rule, so the server refuses it"})
			return
		}
		c, err := s.engineRestCaller(r, basic)
		if err == nil && c.Via != "none" && !c.Authenticated() {
			err = unauthenticated("this route needs an authenticated caller: send Authorization: Basic <user:password> or Bearer <token>")
		}
		if ru, ok := rules.rule(r); err == nil && ok && c.Via != "none" && ru.Perm != "" && !c.Unrestricted() && !engineRestAllows(ru, c) {
			err = engineRestDenied(ru)
		}
		if err != nil {
			p, internal := problemFor(err)
			if internal {
				s.log.ErrorContext(r.Context(), "engine-rest authentication failed", keyError, err, keyRequestID, RequestID(r.Context()))
			}
			typ := camunda7.TypeRestException
			switch p.Status {
			case http.StatusUnauthorized:
				w.Header().Set("WWW-Authenticate", `Basic realm="gobpm"`)
			case http.StatusForbidden:
				typ = camunda7.TypeAuthorization
			case http.StatusBadRequest:
				typ = camunda7.TypeInvalidRequest
			}
			camunda7.WriteError(w, &camunda7.Error{Status: p.Status, Type: typ, Msg: p.Detail})
			return
		}
		if st := logStateFrom(r.Context()); st != nil {
			st.caller = c
		}
		ctx := context.WithValue(r.Context(), callerKey{}, c)
		next.ServeHTTP(w, r.WithContext(runtime.WithActingUser(ctx, string(c.User))))
	})
}

// engineRestAllows is the route-level check of a rule, as authorize
// makes it for /api/v1: the permission on every resource of the kind for
// KeyNone, on some resource otherwise (the adapter checks each key).
func engineRestAllows(ru access.Rule, c access.Caller) bool {
	if ru.Key == access.KeyNone {
		return c.Allowed(ru.Perm, ru.Kind, "*")
	}
	return ru.AllowsSome(c)
}

// engineRestDenied is the route-level refusal of a caller who holds the
// rule's permission on nothing of its kind.
func engineRestDenied(ru access.Rule) error {
	if ru.Perm == auth.PermWork {
		return errorf(kindForbidden, "", "the user may not work on external tasks of any topic")
	}
	return errorf(kindForbidden, "", fmt.Sprintf("the user holds %s on no %s", ru.Perm, ru.Kind))
}

// engineRestCaller authenticates r: Basic credentials when the server
// authenticates builtin users (verified once per basicTTL, see basicCache),
// else callerOf.
func (s *server) engineRestCaller(r *http.Request, basic *basicCache) (access.Caller, error) {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if s.access == nil || s.access.Mode() == access.ModeNone || !strings.EqualFold(scheme, "Basic") {
		return s.callerOf(r)
	}
	req := &http.Request{Header: http.Header{"Authorization": {"Basic " + strings.TrimSpace(cred)}}}
	user, password, ok := req.BasicAuth()
	if !ok {
		return access.Caller{}, unauthenticated("the Authorization header must be \"Basic <base64 of user:password>\" or \"Bearer <token>\"")
	}
	c, err := basic.verify(r.Context(), user, password, func() (access.Caller, error) {
		return s.access.Basic(r.Context(), user, password, clientAddr(r))
	})
	if errors.Is(err, access.ErrUnauthenticated) {
		s.log.Info("authentication failed", keyError, err, keyRequestID, RequestID(r.Context()))
		return access.Caller{}, unauthenticated("the credentials are unknown or the user is disabled")
	}
	return c, err
}

// basicTTL is how long a verified Basic credential is taken without
// verifying its password again; a changed password, a disabled user or
// changed grants apply after at most this long.
const basicTTL = 10 * time.Second

// maxBasicEntries bounds the credentials a basicCache remembers; a full
// cache starts over.
const maxBasicEntries = 1000

// basicCache remembers the callers of Basic credentials verified within
// basicTTL. A Camunda 7 worker sends its credentials with every request,
// several at once: verifying the password hash each time would cost a
// hash per request and trip the login throttle's cap on attempts in
// flight. Entries are keyed by an HMAC of user and password under a
// random key, so the cache holds no password. It belongs to one handler.
type basicCache struct {
	key     []byte
	mu      sync.Mutex
	entries map[string]basicEntry // guarded by mu
	// verifying holds a channel per credential being verified, closed when
	// the verification ends: concurrent requests with one credential wait
	// for it instead of each counting as an attempt in flight.
	verifying map[string]chan struct{} // guarded by mu
}

// basicEntry is one verified credential.
type basicEntry struct {
	caller access.Caller
	until  time.Time
}

// newBasicCache returns an empty cache with a fresh key.
func newBasicCache() *basicCache {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return &basicCache{key: key, entries: map[string]basicEntry{}, verifying: map[string]chan struct{}{}}
}

// verify returns the caller of user:password: remembered, or from check,
// run once at a time per credential (the others wait for its outcome; a
// failure is not remembered, so each waiter then checks for itself).
func (b *basicCache) verify(ctx context.Context, user, password string, check func() (access.Caller, error)) (access.Caller, error) {
	id := b.id(user, password)
	for {
		b.mu.Lock()
		if e, ok := b.entries[id]; ok && time.Now().Before(e.until) {
			b.mu.Unlock()
			return e.caller, nil
		}
		wait, busy := b.verifying[id]
		if !busy {
			done := make(chan struct{})
			b.verifying[id] = done
			b.mu.Unlock()
			c, err := check()
			b.mu.Lock()
			if err == nil {
				if len(b.entries) >= maxBasicEntries {
					clear(b.entries)
				}
				b.entries[id] = basicEntry{caller: c, until: time.Now().Add(basicTTL)}
			}
			delete(b.verifying, id)
			close(done)
			b.mu.Unlock()
			return c, err
		}
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return access.Caller{}, fmt.Errorf("api: wait for a Basic credential's verification: %w", ctx.Err())
		}
	}
}

// id is the entry key of user:password.
func (b *basicCache) id(user, password string) string {
	m := hmac.New(sha256.New, b.key)
	m.Write([]byte(user))
	m.Write([]byte{0})
	m.Write([]byte(password))
	return string(m.Sum(nil))
}

// engineRestGuard answers the adapter's questions from the caller the
// authentication found.
type engineRestGuard struct {
	s *server
}

// Deploying is the request's context with the caller as deployer and the
// deploy guard of POST /api/v1/deployments (deployGuarded).
func (g engineRestGuard) Deploying(r *http.Request) context.Context {
	return g.s.deployGuarded(r.Context())
}

// MayStart reports whether the caller may start instances of processKey.
func (engineRestGuard) MayStart(r *http.Request, processKey string) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted() || c.Allowed(auth.PermStart, auth.KindProcess, processKey)
}

// MayOperate reports whether the caller may operate instances of processKey.
func (engineRestGuard) MayOperate(r *http.Request, processKey string) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted() || c.Allowed(auth.PermOperate, auth.KindProcess, processKey)
}

// Actor is the caller as a task actor (actorOf).
func (engineRestGuard) Actor(r *http.Request) runtime.Actor {
	a, _ := actorOf(r)
	return a
}

// ReadsEverything reports whether the caller may read every process.
func (engineRestGuard) ReadsEverything(r *http.Request) bool { return readsEverything(r) }

// User is the caller's user id (callerUser).
func (engineRestGuard) User(r *http.Request) string { return callerUser(r) }

// MayWork reports whether the caller may work on jobs of jobType.
func (engineRestGuard) MayWork(r *http.Request, jobType string) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted() || c.Allowed(auth.PermWork, auth.KindJobType, jobType)
}

// MayRead reports whether the caller may read instances of processKey.
func (engineRestGuard) MayRead(r *http.Request, processKey string) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted() || c.Allowed(auth.PermRead, auth.KindProcess, processKey)
}

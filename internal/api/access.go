package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// SessionCookie names the cockpit's session cookie; API requests from the
// cockpit's pages carry it too.
const SessionCookie = "gobpm_session"

// keyFrom says where a route finds the key of the resource it acts on.
type keyFrom int

const (
	// keyNone: no resource key (system permissions, or any caller).
	keyNone keyFrom = iota
	// keyParam: the {key} path parameter (a process or decision key).
	keyParam
	// keyInstance: the process key of instance {id}.
	keyInstance
	// keyIncident: the process key of incident {id}'s instance.
	keyIncident
	// keyJob: the type of job {key}.
	keyJob
	// keyJobRef: the type of job {key}, checked by the handler, which
	// resolves the job once for the check and the act (jobs.go,
	// authorizedJob); the route itself needs an authenticated caller.
	keyJobRef
	// keyHandler: only the handler knows the keys (a deployment's models,
	// an activation's job type, a filtered list); the route checks that the
	// caller holds the permission on some resource, the handler checks each
	// key exactly.
	keyHandler
)

// rule is what a route requires of its caller.
type rule struct {
	// public routes need no caller at all.
	public bool
	// perm is the permission needed; "" means any authenticated caller
	// (what they may do is then decided per item: tasks offered to them,
	// their own tokens).
	perm auth.Permission
	kind auth.ResourceKind
	key  keyFrom
}

// Rule constructors, so the table reads as a table.
func public() rule { return rule{public: true} }
func anyone() rule { return rule{} }
func system(p auth.Permission) rule {
	return rule{perm: p, kind: auth.KindSystem}
}
func on(p auth.Permission, k auth.ResourceKind, from keyFrom) rule {
	return rule{perm: p, kind: k, key: from}
}

// routeRules maps every route ("METHOD pattern") to what it requires. It
// is the one place that decides who may call what; a route missing here is
// refused with 500 (and TestEveryRouteHasARule fails), never let through.
var routeRules = map[string]rule{
	"GET /healthz":               public(),
	"GET /readyz":                public(),
	"GET /metrics":               anyone(),
	"GET /api/v1/openapi.yaml":   public(),
	"POST /api/v1/auth/login":    public(),
	"POST /api/v1/auth/logout":   public(),
	"POST /api/v1/auth/setup":    public(),
	"GET /api/v1/auth/me":        anyone(),
	"GET /api/v1/cluster":        anyone(),
	"POST /api/v1/deployments":   on(auth.PermDeploy, auth.KindProcess, keyHandler),
	"GET /api/v1/processes":      on(auth.PermRead, auth.KindProcess, keyHandler),
	"GET /api/v1/decisions":      on(auth.PermRead, auth.KindDecision, keyHandler),
	"GET /api/v1/instances":      on(auth.PermRead, auth.KindProcess, keyHandler),
	"GET /api/v1/incidents":      on(auth.PermRead, auth.KindProcess, keyHandler),
	"POST /api/v1/jobs/activate": on(auth.PermWork, auth.KindJobType, keyHandler),
	// A migration moves instances between two versions of one process
	// key, so operate on that key (checked by the handler, from the body)
	// covers both; reading its progress needs read on the key.
	"POST /api/v1/migrations":     on(auth.PermOperate, auth.KindProcess, keyHandler),
	"GET /api/v1/migrations/{id}": on(auth.PermRead, auth.KindProcess, keyHandler),

	"GET /api/v1/processes/{key}/versions":               on(auth.PermRead, auth.KindProcess, keyParam),
	"GET /api/v1/processes/{key}/versions/{version}/xml": on(auth.PermRead, auth.KindProcess, keyParam),
	"POST /api/v1/processes/{key}/instances":             on(auth.PermStart, auth.KindProcess, keyParam),
	"GET /api/v1/decisions/{key}/versions":               on(auth.PermRead, auth.KindDecision, keyParam),
	"GET /api/v1/decisions/{key}/versions/{version}/xml": on(auth.PermRead, auth.KindDecision, keyParam),
	"POST /api/v1/decisions/{key}/evaluate":              on(auth.PermStart, auth.KindDecision, keyParam),
	"GET /api/v1/instances/{id}":                         on(auth.PermRead, auth.KindProcess, keyInstance),
	"GET /api/v1/instances/{id}/history":                 on(auth.PermRead, auth.KindProcess, keyInstance),
	"GET /api/v1/instances/{id}/scopes":                  on(auth.PermRead, auth.KindProcess, keyInstance),
	"GET /api/v1/instances/{id}/tracks":                  on(auth.PermRead, auth.KindProcess, keyInstance),
	"GET /api/v1/instances/{id}/waits":                   on(auth.PermRead, auth.KindProcess, keyInstance),
	"GET /api/v1/instances/{id}/adhoc":                   on(auth.PermRead, auth.KindProcess, keyInstance),
	"POST /api/v1/instances/{id}/cancel":                 on(auth.PermOperate, auth.KindProcess, keyInstance),
	"POST /api/v1/instances/{id}/modify":                 on(auth.PermOperate, auth.KindProcess, keyInstance),
	"POST /api/v1/instances/{id}/variables":              on(auth.PermOperate, auth.KindProcess, keyInstance),
	// Triggering a receive task without a messageRef moves the instance on
	// with variables of the caller's choosing, as a message would.
	"POST /api/v1/instances/{id}/waits/{waitId}/trigger": on(auth.PermOperate, auth.KindProcess, keyInstance),
	// Picking an ad-hoc activity or ending a region changes what the
	// instance does, with variables of the caller's choosing: operate on
	// its process (the engine then applies the region's own rules: an
	// acting user, a candidate activity, an open region).
	"POST /api/v1/instances/{id}/adhoc/{scopeId}/activate": on(auth.PermOperate, auth.KindProcess, keyInstance),
	"POST /api/v1/instances/{id}/adhoc/{scopeId}/complete": on(auth.PermOperate, auth.KindProcess, keyInstance),
	"POST /api/v1/incidents/{id}/retry":                    on(auth.PermOperate, auth.KindProcess, keyIncident),
	"POST /api/v1/jobs/{key}/complete":                     on(auth.PermWork, auth.KindJobType, keyJobRef),
	"POST /api/v1/jobs/{key}/fail":                         on(auth.PermWork, auth.KindJobType, keyJob),
	"POST /api/v1/jobs/{key}/error":                        on(auth.PermWork, auth.KindJobType, keyJob),
	"POST /api/v1/jobs/{key}/extend":                       on(auth.PermWork, auth.KindJobType, keyJob),

	// Tasks: anyone authenticated; each task is visible and actionable to
	// the people it is offered to (assignee, candidates) and readable by
	// whoever may read its process.
	"GET /api/v1/tasks":                anyone(),
	"GET /api/v1/tasks/{id}":           anyone(),
	"GET /api/v1/tasks/{id}/form":      anyone(),
	"GET /api/v1/completed-tasks":      anyone(),
	"POST /api/v1/tasks/{id}/claim":    anyone(),
	"POST /api/v1/tasks/{id}/unclaim":  anyone(),
	"POST /api/v1/tasks/{id}/complete": anyone(),

	// A message or signal can reach instances of any process (and start
	// new ones), so it needs operate on every process.
	"POST /api/v1/messages": on(auth.PermOperate, auth.KindProcess, keyNone),
	"POST /api/v1/signals":  on(auth.PermOperate, auth.KindProcess, keyNone),
	// Evaluating conditions starts instances: start on the process named,
	// else the handler evaluates only the processes the caller may start.
	"POST /api/v1/conditions/evaluate": on(auth.PermStart, auth.KindProcess, keyHandler),

	"GET /api/v1/users":                           system(auth.PermAdmin),
	"POST /api/v1/users":                          system(auth.PermAdmin),
	"GET /api/v1/users/{id}":                      system(auth.PermAdmin),
	"PATCH /api/v1/users/{id}":                    system(auth.PermAdmin),
	"DELETE /api/v1/users/{id}":                   system(auth.PermAdmin),
	"GET /api/v1/groups":                          system(auth.PermAdmin),
	"POST /api/v1/groups":                         system(auth.PermAdmin),
	"GET /api/v1/groups/{id}":                     system(auth.PermAdmin),
	"DELETE /api/v1/groups/{id}":                  system(auth.PermAdmin),
	"PUT /api/v1/groups/{id}/members/{userId}":    system(auth.PermAdmin),
	"DELETE /api/v1/groups/{id}/members/{userId}": system(auth.PermAdmin),
	"GET /api/v1/grants":                          system(auth.PermAdmin),
	"POST /api/v1/grants":                         system(auth.PermAdmin),
	"DELETE /api/v1/grants/{id}":                  system(auth.PermAdmin),
	// Tokens: an admin manages every token; anyone else their own (the
	// handlers check the owner).
	"GET /api/v1/tokens":         anyone(),
	"POST /api/v1/tokens":        anyone(),
	"DELETE /api/v1/tokens/{id}": anyone(),
	"GET /api/v1/audit":          system(auth.PermAdmin),

	// Operator tools (ops.go): anyone may read the clock (workers and
	// tests compare against it); moving it and backups are admin work;
	// deleting an ended instance needs delete on its process.
	"GET /api/v1/clock":             anyone(),
	"POST /api/v1/clock":            system(auth.PermAdmin),
	"POST /api/v1/admin/backup":     system(auth.PermAdmin),
	"DELETE /api/v1/instances/{id}": on(auth.PermDelete, auth.KindProcess, keyInstance),
}

// resourceLookup is what authorization reads to find the key of a
// resource named by id; *runtime.Runtime implements it.
type resourceLookup interface {
	InstanceProcessKey(ctx context.Context, id runtime.InstanceID) (string, error)
	IncidentProcessKey(ctx context.Context, id string) (string, error)
	JobType(ctx context.Context, key string) (string, error)
}

type callerKey struct{}

// callerFrom returns the caller the authentication middleware found.
func callerFrom(ctx context.Context) access.Caller {
	c, _ := ctx.Value(callerKey{}).(access.Caller)
	return c
}

// authenticate finds who calls: a bearer credential, else the session
// cookie, else — without authentication (no access service, or mode none)
// — the identity headers. With authentication, X-Gobpm-User needs the
// act-as permission (and then names a stored, enabled user whose own
// rights apply); without it it is refused (400), not ignored, and
// X-Gobpm-Groups is always refused (400). A
// credential that does not authenticate is 401, whatever the route: a
// client sending a wrong token must learn it, not get a public answer.
func (s *server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.callerOf(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if st := logStateFrom(r.Context()); st != nil {
			st.caller = c
		}
		ctx := context.WithValue(r.Context(), callerKey{}, c)
		next.ServeHTTP(w, r.WithContext(runtime.WithActingUser(ctx, string(c.User))))
	})
}

// callerOf authenticates r.
func (s *server) callerOf(r *http.Request) (access.Caller, error) {
	a, named := actorFrom(r)
	if s.access == nil || s.access.Mode() == access.ModeNone {
		return access.Anonymous(a.User, a.Groups), nil
	}
	ctx := r.Context()
	var c access.Caller
	var err error
	switch h := r.Header.Get("Authorization"); {
	case h != "":
		scheme, cred, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(cred) == "" {
			return c, unauthenticated("the Authorization header must be \"Bearer <token>\"")
		}
		c, err = s.access.Bearer(ctx, strings.TrimSpace(cred))
	default:
		if ck, cerr := r.Cookie(SessionCookie); cerr == nil && ck.Value != "" {
			c, err = s.access.Session(ctx, ck.Value)
		}
	}
	if err != nil {
		if errors.Is(err, access.ErrUnauthenticated) {
			s.log.Info("authentication failed", "err", err, "requestId", RequestID(ctx))
			return access.Caller{}, unauthenticated("the credential is unknown, expired, revoked or malformed")
		}
		return access.Caller{}, err
	}
	if named || len(a.Groups) > 0 {
		if !c.Authenticated() {
			return c, unauthenticated("authenticate first: identity headers are honoured only for a caller with the act-as permission")
		}
		if len(a.Groups) > 0 {
			// Acting for someone yields exactly their rights: their groups
			// come from the store, never from the request.
			return c, errorf(kindInvalidRequest, HeaderGroups, HeaderGroups+" is not accepted when the server authenticates: "+
				"a caller acting for a user (act-as, "+HeaderUser+") gets the groups the store has that user in")
		}
		acting, err := s.access.ActAs(ctx, c, a.User)
		if err != nil {
			if runtime.ErrorCode(err) == runtime.EFORBIDDEN || runtime.ErrorCode(err) == runtime.EINVALID {
				return c, errorf(kindInvalidRequest, HeaderUser, err.Error())
			}
			return c, err
		}
		c = acting
	}
	return c, nil
}

// unauthenticated is the 401 problem.
func unauthenticated(detail string) error { return errorf(kindUnauthorized, "Authorization", detail) }

// authorize applies the route's rule to the request's caller. It runs
// after routing (the route pattern is known) and before the handler.
func (s *server) authorize(r *http.Request) error {
	rc := chi.RouteContext(r.Context())
	pattern := ""
	if rc != nil {
		pattern = rc.RoutePattern()
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // HEAD is served by the GET route (middleware.GetHead)
	}
	ru, ok := routeRules[method+" "+pattern]
	if !ok {
		return fmt.Errorf("api: route %s %s has no authorization rule", r.Method, pattern)
	}
	if ru.public {
		return nil
	}
	c := callerFrom(r.Context())
	if c.Via == "none" {
		return nil // no authentication: everybody may do everything
	}
	if !c.Authenticated() {
		return unauthenticated("this route needs an authenticated caller: send Authorization: Bearer <token> or log in")
	}
	if ru.perm == "" || c.Unrestricted() || ru.key == keyJobRef {
		return nil
	}
	key, err := s.resourceKey(r, ru)
	if err != nil {
		if concealable(ru.key) && runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return unknownResource(r, ru.key)
		}
		return err
	}
	switch ru.key {
	case keyHandler:
		if c.AllowedAny(ru.perm, ru.kind) || (ru.perm == auth.PermDeploy && c.AllowedAny(auth.PermDeploy, auth.KindDecision)) {
			return nil
		}
	case keyNone:
		if c.Allowed(ru.perm, ru.kind, "*") {
			return nil
		}
	default:
		if c.Allowed(ru.perm, ru.kind, key) {
			return nil
		}
		if conceals(c, ru, key) {
			return unknownResource(r, ru.key)
		}
	}
	return denied(c, ru.perm, ru.kind, key)
}

// concealable reports whether a route's resource, named by id in the
// path, is hidden from callers who may not see it: they get the answer of
// an unknown id (unknownResource), so probing ids tells nothing.
func concealable(from keyFrom) bool {
	return from == keyInstance || from == keyIncident || from == keyJob
}

// conceals reports whether a refused caller must not learn that the
// resource exists: an instance or incident of a process they may not read,
// a job of a type they may not work on (its key came from an activation
// they could not have made).
func conceals(c access.Caller, ru rule, key string) bool {
	switch ru.key {
	case keyInstance, keyIncident:
		return !c.Allowed(auth.PermRead, auth.KindProcess, key)
	case keyJob:
		return true
	}
	return false
}

// unknownResource is the 404 of a concealable route, the same for an
// unknown id and for one the caller may not see (same type, same detail,
// no field).
func unknownResource(r *http.Request, from keyFrom) error {
	switch from {
	case keyInstance:
		return errorf(kindNotFound, "", "instance "+chi.URLParam(r, "id")+" not found")
	case keyIncident:
		return errorf(kindNotFound, "", "incident "+chi.URLParam(r, "id")+" not found")
	default:
		return errorf(kindNotFound, "", "job "+chi.URLParam(r, "key")+" not found: it was completed, withdrawn or never existed")
	}
}

// denied is the 403 problem for a refused permission.
func denied(c access.Caller, perm auth.Permission, kind auth.ResourceKind, key string) error {
	what := string(kind)
	if key != "" && kind != auth.KindSystem {
		what = fmt.Sprintf("%s %q", kind, key)
	}
	return errorf(kindForbidden, "", fmt.Sprintf("%s may not %s on %s", c.User, perm, what))
}

// resourceKey finds the key a rule checks.
func (s *server) resourceKey(r *http.Request, ru rule) (string, error) {
	ctx := r.Context()
	switch ru.key {
	case keyParam:
		return chi.URLParam(r, "key"), nil
	case keyInstance, keyIncident, keyJob:
		look, ok := s.svc.(resourceLookup)
		if !ok {
			return "", errors.New("api: the service cannot look resources up for authorization")
		}
		switch ru.key {
		case keyInstance:
			return look.InstanceProcessKey(ctx, runtime.InstanceID(chi.URLParam(r, "id")))
		case keyIncident:
			return look.IncidentProcessKey(ctx, chi.URLParam(r, "id"))
		default:
			return look.JobType(ctx, chi.URLParam(r, "key"))
		}
	}
	return "", nil
}

// check is the exact per-key check of keyHandler routes.
func check(ctx context.Context, perm auth.Permission, kind auth.ResourceKind, key string) error {
	c := callerFrom(ctx)
	if c.Via == "none" || c.Allowed(perm, kind, key) {
		return nil
	}
	return denied(c, perm, kind, key)
}

// auditTrail records every state-changing request (POST, PUT, PATCH,
// DELETE) in the audit trail once it is answered: who, what, on which
// resource, and the outcome. Requests that change nothing (GET) are not
// recorded; failed logins are recorded by the login handler.
func (s *server) auditTrail(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.access == nil || s.access.Mode() == access.ModeNone || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		rw := &recorder{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		st := logStateFrom(r.Context())
		if st == nil || st.unmatched || st.skipAudit {
			return
		}
		status := rw.status
		if status == 0 {
			status = http.StatusOK
		}
		pattern := ""
		if rc := chi.RouteContext(r.Context()); rc != nil {
			pattern = rc.RoutePattern()
		}
		resource := st.resource
		if resource == "" {
			resource = resourceOf(r, pattern)
		}
		actor, onBehalf := st.caller.ActorAndOnBehalf()
		s.access.Record(access.AuditEntry{
			Actor: actor, OnBehalfOf: onBehalf, Via: st.caller.Via,
			Action: r.Method + " " + pattern, Resource: resource, Outcome: outcomeOf(status),
			Status: status, RequestID: RequestID(r.Context()), Addr: clientAddr(r),
		})
	})
}

// outcomeOf names the outcome of an answer's status.
func outcomeOf(status int) string {
	switch {
	case status < 400:
		return "ok"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "denied"
	case status >= 500:
		return "error"
	}
	return "failed"
}

// resourceNouns names the resource of a route by its first path segment.
var resourceNouns = map[string]string{
	"processes": "process", "decisions": "decision", "instances": "instance", "incidents": "incident",
	"jobs": "job", "tasks": "task", "users": "user", "groups": "group", "grants": "grant", "tokens": "token",
}

// resourceOf names what a request acts on from its route: the first path
// parameter with the noun of its collection ("instance 0197…", "process
// order"), or "" for routes without one.
func resourceOf(r *http.Request, pattern string) string {
	rest, ok := strings.CutPrefix(pattern, "/api/v1/")
	if !ok {
		return ""
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 || !strings.HasPrefix(segs[1], "{") {
		return ""
	}
	noun, ok := resourceNouns[segs[0]]
	if !ok {
		return ""
	}
	return noun + " " + chi.URLParam(r, strings.Trim(segs[1], "{}"))
}

// noteResource names, for the audit trail, what the request acted on when
// the route does not say it (e.g. the instance a start created).
func noteResource(r *http.Request, resource string) {
	if st := logStateFrom(r.Context()); st != nil {
		st.resource = resource
	}
}

// clientAddr is the client's address (the connection's peer; gobpm does
// not trust forwarding headers).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// readFilter returns whether the caller may read the resource of kind with
// a key, for filtering a list in memory.
func readFilter(r *http.Request, kind auth.ResourceKind) func(key string) bool {
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Unrestricted() {
		return func(string) bool { return true }
	}
	f := c.Filter(auth.PermRead, kind)
	return f.Match
}

// readPatterns returns the caller's readable keys of kind as pattern
// clauses for a store filter (runtime.InstanceFilter.ProcessKeyPatterns):
// nil when the caller reads everything, one empty clause when nothing.
func readPatterns(r *http.Request, kind auth.ResourceKind) [][]string {
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Unrestricted() {
		return nil
	}
	f := c.Filter(auth.PermRead, kind)
	switch {
	case f.All():
		return nil
	case f.None():
		return [][]string{{}}
	}
	var out [][]string
	for _, clause := range f.Clauses() {
		ps := make([]string, len(clause))
		for i, p := range clause {
			ps[i] = p.String()
		}
		out = append(out, ps)
	}
	return out
}

// incidentFilter returns whether the caller may read the incidents of an
// instance (read on its process), looking each instance up once.
func (s *server) incidentFilter(r *http.Request) (func(runtime.InstanceID) (bool, error), error) {
	readable := readFilter(r, auth.KindProcess)
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Unrestricted() {
		return func(runtime.InstanceID) (bool, error) { return true, nil }, nil
	}
	look, ok := s.svc.(resourceLookup)
	if !ok {
		return nil, errors.New("api: the service cannot look resources up for authorization")
	}
	seen := map[runtime.InstanceID]bool{}
	return func(id runtime.InstanceID) (bool, error) {
		if ok, done := seen[id]; done {
			return ok, nil
		}
		key, err := look.InstanceProcessKey(r.Context(), id)
		if err != nil {
			return false, err
		}
		seen[id] = readable(key)
		return seen[id], nil
	}, nil
}

// instanceReadable returns whether the caller may read an instance (read
// on its process), looking each instance up once; an instance that is gone
// reads as unreadable.
func (s *server) instanceReadable(r *http.Request) (func(runtime.InstanceID) (bool, error), error) {
	if readsEverything(r) {
		return func(runtime.InstanceID) (bool, error) { return true, nil }, nil
	}
	look, ok := s.svc.(resourceLookup)
	if !ok {
		return nil, errors.New("api: the service cannot look resources up for authorization")
	}
	readable := readFilter(r, auth.KindProcess)
	seen := map[runtime.InstanceID]bool{}
	return func(id runtime.InstanceID) (bool, error) {
		if ok, done := seen[id]; done {
			return ok, nil
		}
		key, err := look.InstanceProcessKey(r.Context(), id)
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			seen[id] = false
			return false, nil
		}
		if err != nil {
			return false, err
		}
		seen[id] = readable(key)
		return seen[id], nil
	}, nil
}

// hideUnreadableLinks removes from an instance's view the links to
// instances the caller may not read: the called children of processes
// they may not read are omitted, and so is the calling parent (parent is
// then null, as for an instance nobody called). Their process key, number
// and status are not the caller's to see, nor that they exist.
func (s *server) hideUnreadableLinks(r *http.Request, view *runtime.InstanceView) error {
	if readsEverything(r) {
		return nil
	}
	readKey := readFilter(r, auth.KindProcess)
	kids := view.Children[:0:0]
	for _, c := range view.Children {
		if readKey(c.ProcessKey) {
			kids = append(kids, c)
		}
	}
	view.Children = kids
	if view.ParentID == "" {
		return nil
	}
	readable, err := s.instanceReadable(r)
	if err != nil {
		return err
	}
	if ok, err := readable(view.ParentID); err != nil {
		return err
	} else if !ok {
		view.ParentID, view.ParentNodeID = "", ""
	}
	return nil
}

// deployGuarded returns ctx naming the caller as the deployer and with a
// deploy guard that refuses a deployment declaring any process or decision
// key the caller may not deploy, or whose models reach (call, evaluate,
// create jobs of, signal) anything the caller may not reach; nothing is
// stored then (403, every refused reach listed).
func (s *server) deployGuarded(ctx context.Context) context.Context {
	c := callerFrom(ctx)
	if s.access != nil {
		ctx = runtime.WithDeployer(ctx, s.access.Deployer(c))
	}
	if c.Via == "none" || c.Unrestricted() {
		return ctx
	}
	return runtime.WithDeployGuard(ctx, func(plan runtime.DeploymentPlan) error {
		for _, k := range plan.Processes {
			if err := check(ctx, auth.PermDeploy, auth.KindProcess, k); err != nil {
				return err
			}
		}
		for _, k := range plan.Decisions {
			if err := check(ctx, auth.PermDeploy, auth.KindDecision, k); err != nil {
				return err
			}
		}
		return c.ReachRefused(plan.Reaches)
	})
}

// RouteRule is what a route requires, as the README's table and the tests
// read it.
type RouteRule struct {
	// Public routes need no caller.
	Public bool
	// Permission is needed on Kind; "" means any authenticated caller.
	Permission auth.Permission
	Kind       auth.ResourceKind
}

// RouteRules returns the route → permission table, keyed "METHOD pattern".
func RouteRules() map[string]RouteRule {
	out := make(map[string]RouteRule, len(routeRules))
	for k, ru := range allRouteRules() {
		out[k] = RouteRule{Public: ru.public, Permission: ru.perm, Kind: ru.kind}
	}
	return out
}

// readsEverything reports whether the caller may read every process (no
// filtering needed).
func readsEverything(r *http.Request) bool {
	c := callerFrom(r.Context())
	return c.Via == "none" || c.Unrestricted() || c.Filter(auth.PermRead, auth.KindProcess).All()
}

// mayseeTask reports whether the caller may see task t: it is offered to
// them (see runtime.TaskFilter.OfferedTo) or they may read its process.
func (s *server) mayseeTask(r *http.Request, t runtime.TaskView) (bool, error) {
	if readsEverything(r) {
		return true, nil
	}
	a, _ := actorOf(r)
	if offered(t, a) {
		return true, nil
	}
	look, ok := s.svc.(resourceLookup)
	if !ok {
		return false, errors.New("api: the service cannot look resources up for authorization")
	}
	key, err := look.InstanceProcessKey(r.Context(), t.InstanceID)
	if err != nil {
		return false, err
	}
	return callerFrom(r.Context()).Allowed(auth.PermRead, auth.KindProcess, key), nil
}

// offered reports whether task t is offered to a: assigned to them, or
// unassigned and claimable by them.
func offered(t runtime.TaskView, a runtime.Actor) bool {
	if t.Assignee != "" {
		return t.Assignee == a.User
	}
	if len(t.CandidateUsers) == 0 && len(t.CandidateGroups) == 0 {
		return true
	}
	if slices.Contains(t.CandidateUsers, a.User) {
		return true
	}
	return slices.ContainsFunc(t.CandidateGroups, func(g string) bool { return slices.Contains(a.Groups, g) })
}

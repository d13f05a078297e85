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

// resourceLookup is what authorization reads to find the key of a
// resource named by id; *runtime.Runtime implements it.
type resourceLookup interface {
	InstanceProcessKey(ctx context.Context, id runtime.InstanceID) (string, error)
	IncidentProcessKey(ctx context.Context, id string) (string, error)
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

// authorize applies a route's rule to the request's caller, before the
// handler and with the route's path parameters known. It returns the
// request the handler serves: for a job act (access.KeyJob), one carrying
// the job authorization resolved (jobRefOf).
func (s *server) authorize(r *http.Request, ru access.Rule) (*http.Request, error) {
	if ru.Public {
		return r, nil
	}
	c := callerFrom(r.Context())
	if c.Via == "none" {
		return r, nil // no authentication: everybody may do everything
	}
	if !c.Authenticated() {
		return r, unauthenticated("this route needs an authenticated caller: send Authorization: Bearer <token> or log in")
	}
	if ru.Perm == "" || c.Unrestricted() {
		return r, nil
	}
	switch ru.Key {
	case access.KeyJob:
		return s.authorizeJob(r, c, ru)
	case access.KeyHandler:
		if ru.AllowsSome(c) {
			return r, nil
		}
		return r, denied(c, ru.Perm, ru.Kind, "")
	case access.KeyNone:
		if c.Allowed(ru.Perm, ru.Kind, "*") {
			return r, nil
		}
		return r, denied(c, ru.Perm, ru.Kind, "")
	}
	key, err := s.resourceKey(r, ru)
	if err != nil {
		if concealable(ru.Key) && runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return r, unknownResource(r, ru.Key)
		}
		return r, err
	}
	if c.Allowed(ru.Perm, ru.Kind, key) {
		return r, nil
	}
	if conceals(c, ru, key) {
		return r, unknownResource(r, ru.Key)
	}
	return r, denied(c, ru.Perm, ru.Kind, key)
}

type jobRefKey struct{}

// authorizeJob is the rule of a job act on job {key}: the job is resolved
// once, and the caller must hold the rule's permission on its type; a
// caller who may not learns nothing more than of an unknown key (404).
// The request returned carries the resolved job for the act (jobRefOf).
func (s *server) authorizeJob(r *http.Request, c access.Caller, ru access.Rule) (*http.Request, error) {
	jobs, ok := s.svc.(jobResolver)
	if !ok {
		return r, errors.New("api: the service cannot resolve job keys for authorization")
	}
	ref, err := jobs.ResolveJob(r.Context(), chi.URLParam(r, "key"))
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return r, unknownResource(r, access.KeyJob)
		}
		return r, err
	}
	if !c.Allowed(ru.Perm, ru.Kind, ref.Type) {
		return r, unknownResource(r, access.KeyJob)
	}
	return r.WithContext(context.WithValue(r.Context(), jobRefKey{}, ref)), nil
}

// jobRefOf is the job {key} a job act acts on: the one authorization
// resolved, or — for a caller whose rights do not depend on the job's type
// (no authentication, an unrestricted caller) — a reference naming only
// the key, which the act verifies.
func jobRefOf(r *http.Request) runtime.JobRef {
	if ref, ok := r.Context().Value(jobRefKey{}).(runtime.JobRef); ok {
		return ref
	}
	return runtime.JobRef{Key: chi.URLParam(r, "key")}
}

// concealable reports whether a route's resource, named by id in the
// path, is hidden from callers who may not see it: they get the answer of
// an unknown id (unknownResource), so probing ids tells nothing.
func concealable(from access.KeyFrom) bool {
	return from == access.KeyInstance || from == access.KeyIncident || from == access.KeyJob
}

// conceals reports whether a refused caller must not learn that the
// resource exists: an instance or incident of a process they may not read.
// (A job of a type they may not work on is always concealed: its key came
// from an activation they could not have made; authorizeJob.)
func conceals(c access.Caller, ru access.Rule, key string) bool {
	switch ru.Key {
	case access.KeyInstance, access.KeyIncident:
		return !c.Allowed(auth.PermRead, auth.KindProcess, key)
	}
	return false
}

// unknownResource is the 404 of a concealable route, the same for an
// unknown id and for one the caller may not see (same type, same detail,
// no field).
func unknownResource(r *http.Request, from access.KeyFrom) error {
	switch from {
	case access.KeyInstance:
		return errorf(kindNotFound, "", "instance "+chi.URLParam(r, "id")+" not found")
	case access.KeyIncident:
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

// resourceKey finds the key a rule on a resource named in the path checks.
func (s *server) resourceKey(r *http.Request, ru access.Rule) (string, error) {
	if ru.Key == access.KeyParam {
		return chi.URLParam(r, "key"), nil
	}
	look, ok := s.svc.(resourceLookup)
	if !ok {
		return "", errors.New("api: the service cannot look resources up for authorization")
	}
	switch ru.Key {
	case access.KeyInstance:
		return look.InstanceProcessKey(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	case access.KeyIncident:
		return look.IncidentProcessKey(r.Context(), chi.URLParam(r, "id"))
	}
	return "", fmt.Errorf("api: no resource key from %d", ru.Key)
}

// check is the exact per-key check of access.KeyHandler routes.
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
		actor, onBehalf := st.caller.ActorAndOnBehalf()
		s.access.Record(access.AuditEntry{
			Actor: actor, OnBehalfOf: onBehalf, Via: st.caller.Via,
			Action: r.Method + " " + pattern, Resource: st.resource, Outcome: outcomeOf(status),
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

// noteResource names, for the audit trail, what the request acts on: the
// route's resource from its path (route.resource), or what a handler
// knows better (e.g. the instance a start created).
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
	return permPatterns(r, auth.PermRead, kind)
}

// permPatterns is readPatterns for any permission: the caller's keys of
// kind they may do perm on, as pattern clauses.
func permPatterns(r *http.Request, perm auth.Permission, kind auth.ResourceKind) [][]string {
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Unrestricted() {
		return nil
	}
	f := c.Filter(perm, kind)
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

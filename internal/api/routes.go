package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// apiPrefix is where the versioned API is mounted; the routes under it
// share its middleware (cross-origin refusal, authentication, audit).
const apiPrefix = "/api/v1"

// route is one operation of the API, in the cockpit's form: what it
// requires of its caller, how the audit trail names what it acts on, and
// its handler.
type route struct {
	method string
	// pattern is the chi pattern, with apiPrefix for the versioned API;
	// the audit trail names the act "METHOD pattern".
	pattern string
	rule    access.Rule
	// resource names, for the audit trail, what a state-changing route
	// acts on from its path ("instance 0197…"); nil for none. A handler
	// may name it better once it knows (noteResource, e.g. the instance a
	// start created).
	resource func(r *http.Request) string
	serve    func(w http.ResponseWriter, r *http.Request) error
}

// param names a resource by a path parameter: param("instance", "id")
// gives "instance 0197…".
func param(noun, name string) func(r *http.Request) string {
	return func(r *http.Request) string { return noun + " " + chi.URLParam(r, name) }
}

// routes is the one table of the API: New mounts exactly these, authorize
// applies their rules, the audit trail names their resources, and
// RouteRules reports them. Adding a route is a row here, its handler and
// its operation in openapi.yaml. Columns: method, pattern, rule, audited
// resource, handler.
func (s *server) routes() []route {
	const (
		get, post, put, patch, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete
		v                          = apiPrefix
	)
	public, anyone, admin, on := access.Public(), access.Anyone(), access.Admin(), access.On
	var (
		readProcess  = on(auth.PermRead, auth.KindProcess, access.KeyParam)
		readDecision = on(auth.PermRead, auth.KindDecision, access.KeyParam)
		readInstance = on(auth.PermRead, auth.KindProcess, access.KeyInstance)
		operate      = on(auth.PermOperate, auth.KindProcess, access.KeyInstance)
		// operateProcess is operate on the process {key} names.
		operateProcess = on(auth.PermOperate, auth.KindProcess, access.KeyParam)
		work           = on(auth.PermWork, auth.KindJobType, access.KeyJob)

		instance = param("instance", "id")
		job      = param("job", "key")
		task     = param("task", "id")
		user     = param("user", "id")
		group    = param("group", "id")

		processVersion = func(r *http.Request) string {
			return "process " + chi.URLParam(r, "key") + " version " + chi.URLParam(r, "version")
		}
	)
	return []route{
		{get, "/healthz", public, nil, s.healthz},
		{get, "/readyz", public, nil, s.readyz},
		// Inbound webhooks: public, since each checks its own
		// authentication (HMAC, basic, API key); the webhook's method is
		// checked by its handler.
		{get, "/webhooks/{path}", public, nil, s.webhook},
		{post, "/webhooks/{path}", public, nil, s.webhook},
		{put, "/webhooks/{path}", public, nil, s.webhook},
		{patch, "/webhooks/{path}", public, nil, s.webhook},
		{del, "/webhooks/{path}", public, nil, s.webhook},
		{get, "/metrics", anyone, nil, s.metrics},

		{get, v + "/openapi.yaml", public, nil, s.openAPI},
		{get, v + "/cluster", anyone, nil, s.cluster},
		{post, v + "/deployments", on(auth.PermDeploy, auth.KindProcess, access.KeyHandler), nil, s.deploy},
		{get, v + "/processes", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.listProcesses},
		{get, v + "/processes/{key}/versions", readProcess, nil, s.listVersions},
		{get, v + "/processes/{key}/versions/{version}/xml", readProcess, nil, s.definitionXML},
		{get, v + "/processes/{key}/statistics", readProcess, nil, s.statistics},
		{get, v + "/processes/{key}/statistics/timeline", readProcess, nil, s.statisticsTimeline},
		{post, v + "/processes/{key}/instances", on(auth.PermStart, auth.KindProcess, access.KeyParam), param("process", "key"), s.startInstance},
		// Suspending a version stops its starts (and, asked to, its
		// instances): operate on its process.
		{post, v + "/processes/{key}/versions/{version}/suspend", operateProcess, processVersion, s.suspendVersion},
		{post, v + "/processes/{key}/versions/{version}/resume", operateProcess, processVersion, s.resumeVersion},
		{get, v + "/decisions", on(auth.PermRead, auth.KindDecision, access.KeyHandler), nil, s.listDecisions},
		{get, v + "/decisions/{key}/versions", readDecision, nil, s.listDecisionVersions},
		{get, v + "/decisions/{key}/versions/{version}/xml", readDecision, nil, s.decisionXML},
		{post, v + "/decisions/{key}/evaluate", on(auth.PermStart, auth.KindDecision, access.KeyParam), param("decision", "key"), s.evaluateDecision},

		{get, v + "/instances", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.listInstances},
		{get, v + "/instances/{id}", readInstance, nil, s.getInstance},
		{get, v + "/instances/{id}/history", readInstance, nil, s.history},
		{get, v + "/instances/{id}/scopes", readInstance, nil, s.listScopes},
		{get, v + "/instances/{id}/tracks", readInstance, nil, s.listTracks},
		{post, v + "/instances/{id}/cancel", operate, instance, s.cancel},
		{post, v + "/instances/{id}/suspend", operate, instance, s.suspendInstance},
		{post, v + "/instances/{id}/resume", operate, instance, s.resumeInstance},
		{post, v + "/instances/{id}/modify", operate, instance, s.modifyInstance},
		{post, v + "/instances/{id}/variables", operate, instance, s.setVariables},
		{get, v + "/instances/{id}/waits", readInstance, nil, s.listWaits},
		// Triggering a receive task without a messageRef moves the instance
		// on with variables of the caller's choosing, as a message would.
		{post, v + "/instances/{id}/waits/{waitId}/trigger", operate, instance, s.triggerWait},
		{get, v + "/instances/{id}/adhoc", readInstance, nil, s.listAdHoc},
		// Picking an ad-hoc activity or ending a region changes what the
		// instance does, with variables of the caller's choosing: operate on
		// its process (the engine then applies the region's own rules: an
		// acting user, a candidate activity, an open region).
		{post, v + "/instances/{id}/adhoc/{scopeId}/activate", operate, instance, s.activateAdHoc},
		{post, v + "/instances/{id}/adhoc/{scopeId}/complete", operate, instance, s.completeAdHoc},
		{del, v + "/instances/{id}", on(auth.PermDelete, auth.KindProcess, access.KeyInstance), instance, s.deleteInstance},
		// The history export filters by the processes the caller may read
		// (historyExport): read on some process lets a caller in.
		{get, v + "/history/export", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.historyExport},
		{get, v + "/incidents", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.listIncidents},
		{post, v + "/incidents/{id}/retry", on(auth.PermOperate, auth.KindProcess, access.KeyIncident), param("incident", "id"), s.retryIncident},

		// Job acts: authorize resolves job {key} once, checks work on its
		// type and hands the reference to the act (jobRefOf).
		{post, v + "/jobs/activate", on(auth.PermWork, auth.KindJobType, access.KeyHandler), nil, s.activateJobs},
		// A batch of completions: work on some job type lets a caller in;
		// each item is authorized as jobs/{key}/complete (completeJobs).
		{post, v + "/jobs/complete", on(auth.PermWork, auth.KindJobType, access.KeyHandler), nil, s.completeJobs},
		{post, v + "/jobs/{key}/complete", work, job, s.completeJob},
		{post, v + "/jobs/{key}/fail", work, job, s.failJob},
		{post, v + "/jobs/{key}/error", work, job, s.throwJobError},
		{post, v + "/jobs/{key}/extend", work, job, s.extendJobLock},

		// Tasks: anyone authenticated; each task is visible and actionable
		// to the people it is offered to (assignee, candidates) and
		// readable by whoever may read its process.
		{get, v + "/tasks", anyone, nil, s.listTasks},
		{get, v + "/tasks/{id}", anyone, nil, s.getTask},
		{get, v + "/tasks/{id}/form", anyone, nil, s.getTaskForm},
		{get, v + "/completed-tasks", anyone, nil, s.listCompletedTasks},
		{post, v + "/tasks/{id}/claim", anyone, task, s.claimTask},
		{post, v + "/tasks/{id}/unclaim", anyone, task, s.unclaimTask},
		{post, v + "/tasks/{id}/complete", anyone, task, s.completeTask},

		// A message or signal can reach instances of any process (and
		// start new ones), so it needs operate on every process.
		{post, v + "/messages", on(auth.PermOperate, auth.KindProcess, access.KeyNone), nil, s.correlateMessage},
		{post, v + "/signals", on(auth.PermOperate, auth.KindProcess, access.KeyNone), nil, s.broadcastSignal},
		// Evaluating conditions starts instances: start on the process
		// named, else the handler evaluates only the processes the caller
		// may start.
		{post, v + "/conditions/evaluate", on(auth.PermStart, auth.KindProcess, access.KeyHandler), nil, s.evaluateConditions},

		{post, v + "/auth/login", public, nil, s.login},
		{post, v + "/auth/logout", public, nil, s.logout},
		{post, v + "/auth/setup", public, nil, s.setup},
		{get, v + "/auth/me", anyone, nil, s.me},
		{get, v + "/users", admin, nil, s.listUsers},
		{post, v + "/users", admin, nil, s.createUser},
		{get, v + "/users/{id}", admin, nil, s.getUser},
		{patch, v + "/users/{id}", admin, user, s.updateUser},
		{del, v + "/users/{id}", admin, user, s.deleteUser},
		{get, v + "/groups", admin, nil, s.listGroups},
		{post, v + "/groups", admin, nil, s.createGroup},
		{get, v + "/groups/{id}", admin, nil, s.getGroup},
		{del, v + "/groups/{id}", admin, group, s.deleteGroup},
		{put, v + "/groups/{id}/members/{userId}", admin, group, s.setMember(true)},
		{del, v + "/groups/{id}/members/{userId}", admin, group, s.setMember(false)},
		{get, v + "/grants", admin, nil, s.listGrants},
		{post, v + "/grants", admin, nil, s.createGrant},
		{del, v + "/grants/{id}", admin, param("grant", "id"), s.deleteGrant},
		// Tokens: an admin manages every token; anyone else their own (the
		// handlers check the owner).
		{get, v + "/tokens", anyone, nil, s.listTokens},
		{post, v + "/tokens", anyone, nil, s.createToken},
		{del, v + "/tokens/{id}", anyone, param("token", "id"), s.revokeToken},
		{get, v + "/audit", admin, nil, s.listAudit},

		// Operator tools (ops.go): anyone may read the clock (workers and
		// tests compare against it); moving it and backups are admin work.
		{get, v + "/clock", anyone, nil, s.getClock},
		{post, v + "/clock", admin, nil, s.setClock},
		{post, v + "/admin/backup", admin, nil, s.backup},

		// A migration moves instances between two versions of one process
		// key, so operate on that key (checked by the handler, from the
		// body) covers both; reading its progress needs read on the key.
		{post, v + "/migrations", on(auth.PermOperate, auth.KindProcess, access.KeyHandler), nil, s.startMigration},
		{get, v + "/migrations/{id}", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.getMigration},

		// A batch acts on the instances its filter matches among those its
		// creator may read and operate on (delete: delete), narrowed by
		// the handler; creating and steering one needs operate on some
		// process, reading read; a batch is its creator's to see and
		// steer (batches.go).
		{post, v + "/batches", on(auth.PermOperate, auth.KindProcess, access.KeyHandler), nil, s.createBatch},
		{get, v + "/batches", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.listBatches},
		{get, v + "/batches/{id}", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.getBatch},
		{get, v + "/batches/{id}/items", on(auth.PermRead, auth.KindProcess, access.KeyHandler), nil, s.batchItems},
		{post, v + "/batches/{id}/pause", on(auth.PermOperate, auth.KindProcess, access.KeyHandler), param("batch", "id"), s.steerBatch(Batches.PauseBatch)},
		{post, v + "/batches/{id}/resume", on(auth.PermOperate, auth.KindProcess, access.KeyHandler), param("batch", "id"), s.steerBatch(Batches.ResumeBatch)},
		{post, v + "/batches/{id}/cancel", on(auth.PermOperate, auth.KindProcess, access.KeyHandler), param("batch", "id"), s.steerBatch(Batches.CancelBatch)},
	}
}

// mount registers the table on r: the versioned API on a sub-router with
// its middleware, the probes and /metrics at the root (/metrics, the one
// of them that is not public, authenticated).
func (s *server) mount(r chi.Router) {
	table := s.routes()
	for _, rt := range table {
		if strings.HasPrefix(rt.pattern, apiPrefix+"/") {
			continue
		}
		if rt.rule.Public {
			r.Method(rt.method, rt.pattern, s.handler(rt))
		} else {
			r.With(s.authenticate).Method(rt.method, rt.pattern, s.handler(rt))
		}
	}
	r.Route(apiPrefix, func(r chi.Router) {
		r.Use(s.crossOrigin, s.authenticate, s.auditTrail)
		for _, rt := range table {
			if sub, ok := strings.CutPrefix(rt.pattern, apiPrefix); ok && strings.HasPrefix(sub, "/") {
				r.Method(rt.method, sub, s.handler(rt))
			}
		}
	})
}

// handler serves a route: it names the route's resource for the audit
// trail, applies the route's rule (authorize, which may hand the handler
// what it resolved, e.g. a job), then runs the handler. A non-nil error is
// answered as problem+json by writeError. An error caused by the
// request's context ending (the client went away, e.g. during a long
// poll) is no server fault: it is answered — to nobody — and logged as a
// client-closed request.
func (s *server) handler(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rt.resource != nil {
			noteResource(r, rt.resource(r))
		}
		r, err := s.authorize(r, rt.rule)
		if err == nil {
			err = rt.serve(w, r)
		}
		if err == nil {
			return
		}
		if ctxErr := r.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			err = errorf(kindClientClosed, "", "the client closed the request before the answer: "+ctxErr.Error())
		}
		s.writeError(w, r, err)
	}
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

// RouteRules returns the route → permission table, keyed "METHOD pattern",
// read from the route table New mounts.
func RouteRules() map[string]RouteRule {
	table := (&server{}).routes()
	out := make(map[string]RouteRule, len(table))
	for _, rt := range table {
		out[rt.method+" "+rt.pattern] = RouteRule{Public: rt.rule.Public, Permission: rt.rule.Perm, Kind: rt.rule.Kind}
	}
	addEngineRestRules(out)
	addRestV2Rules(out)
	return out
}

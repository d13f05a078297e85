package cockpit

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/web/templates"
)

// route is one page or action of the cockpit.
type route struct {
	method  string
	pattern string
	rule    access.Rule
	// action names a state-changing route in the audit trail; "" for
	// reads and for the routes that record their own entries (login,
	// logout, first-run set-up).
	action string
	// resource names what an action is on, from the path ("instance …").
	resource func(r *http.Request) string
	serve    http.HandlerFunc
}

// param names a resource by a path parameter: param("instance", "id")
// gives "instance 0197…".
func param(noun, name string) func(r *http.Request) string {
	return func(r *http.Request) string { return noun + " " + chi.URLParam(r, name) }
}

// routes is the one table of the cockpit's pages and actions, with what
// each requires and how the audit trail names it. New mounts exactly
// these; TestEveryRouteHasARule walks the router to prove it.
func (h *handler) routes() []route {
	read := access.On(auth.PermRead, auth.KindProcess, access.KeyHandler)
	operate := func(from access.KeyFrom) access.Rule { return access.On(auth.PermOperate, auth.KindProcess, from) }
	return []route{
		{method: http.MethodGet, pattern: templates.RouteDashboard, rule: access.Anyone(), serve: h.dashboard},
		{method: http.MethodGet, pattern: templates.RouteProcesses, rule: read, serve: h.processes},
		{method: http.MethodGet, pattern: templates.RouteProcess, rule: access.On(auth.PermRead, auth.KindProcess, access.KeyParam), serve: h.process},
		{method: http.MethodGet, pattern: templates.RouteProcessCompare, rule: access.On(auth.PermRead, auth.KindProcess, access.KeyParam), serve: h.compare},
		{method: http.MethodGet, pattern: templates.RouteProcessXML, rule: access.On(auth.PermRead, auth.KindProcess, access.KeyParam), serve: h.processXML},
		{method: http.MethodGet, pattern: templates.RouteProcessEdit, rule: access.On(auth.PermDeploy, auth.KindProcess, access.KeyParam), serve: h.modeler},
		{method: http.MethodGet, pattern: templates.RouteInstances, rule: read, serve: h.instances},
		{method: http.MethodGet, pattern: templates.RouteInstance, rule: access.On(auth.PermRead, auth.KindProcess, access.KeyInstance), serve: h.instance},
		{method: http.MethodGet, pattern: templates.RouteTasks, rule: access.Anyone(), serve: h.tasks},
		{method: http.MethodGet, pattern: templates.RouteIncidents, rule: read, serve: h.incidents},
		{method: http.MethodGet, pattern: templates.RouteDecisions, rule: access.On(auth.PermRead, auth.KindDecision, access.KeyHandler), serve: h.decisions},
		{method: http.MethodGet, pattern: templates.RouteDecision, rule: access.On(auth.PermRead, auth.KindDecision, access.KeyParam), serve: h.decision},
		{method: http.MethodGet, pattern: templates.RouteDecisionXML, rule: access.On(auth.PermRead, auth.KindDecision, access.KeyParam), serve: h.decisionXML},
		{method: http.MethodPost, pattern: templates.RouteDecisionEval, rule: access.On(auth.PermStart, auth.KindDecision, access.KeyParam),
			action: "cockpit: evaluate decision", resource: param("decision", "key"), serve: h.evaluate},
		// Pushed updates: each change is filtered by what the person may read.
		{method: http.MethodGet, pattern: templates.RouteEvents, rule: access.Anyone(), serve: h.events},

		{method: http.MethodPost, pattern: templates.RouteIdentity, rule: access.Anyone(), serve: h.setIdentity},
		{method: http.MethodPost, pattern: templates.RouteProcesses, rule: access.On(auth.PermDeploy, auth.KindProcess, access.KeyHandler),
			action: "cockpit: deploy", serve: h.deploy},
		{method: http.MethodPost, pattern: templates.RouteProcessEdit, rule: access.On(auth.PermDeploy, auth.KindProcess, access.KeyParam),
			action: "cockpit: deploy from the modeler", resource: param("process", "key"), serve: h.deployModel},
		{method: http.MethodPost, pattern: templates.RouteProcessStart, rule: access.On(auth.PermStart, auth.KindProcess, access.KeyParam),
			action: "cockpit: start instance", resource: param("process", "key"), serve: h.start},
		{method: http.MethodPost, pattern: templates.RouteInstanceCancel, rule: operate(access.KeyInstance),
			action: "cockpit: cancel instance", resource: param("instance", "id"), serve: h.cancel},
		{method: http.MethodPost, pattern: templates.RouteInstanceModify, rule: operate(access.KeyInstance),
			action: "cockpit: modify instance", resource: param("instance", "id"), serve: h.modify},
		{method: http.MethodPost, pattern: templates.RouteInstanceDelete, rule: access.On(auth.PermDelete, auth.KindProcess, access.KeyInstance),
			action: "cockpit: delete instance", resource: param("instance", "id"), serve: h.deleteInstance},
		{method: http.MethodPost, pattern: templates.RouteInstanceVars, rule: operate(access.KeyInstance),
			action: "cockpit: set variables", resource: param("instance", "id"), serve: h.setVariables},
		{method: http.MethodPost, pattern: templates.RouteAdHocActivate, rule: operate(access.KeyInstance),
			action: "cockpit: activate ad-hoc activity", resource: param("instance", "id"), serve: h.activate},
		{method: http.MethodPost, pattern: templates.RouteTaskClaim, rule: access.Anyone(),
			action: "cockpit: claim task", resource: param("task", "id"), serve: h.claim},
		{method: http.MethodPost, pattern: templates.RouteTaskUnclaim, rule: access.Anyone(),
			action: "cockpit: unclaim task", resource: param("task", "id"), serve: h.unclaim},
		{method: http.MethodPost, pattern: templates.RouteTaskComplete, rule: access.Anyone(),
			action: "cockpit: complete task", resource: param("task", "id"), serve: h.complete},
		{method: http.MethodPost, pattern: templates.RouteIncidentRetry, rule: operate(access.KeyIncident),
			action: "cockpit: retry incident", resource: param("incident", "id"), serve: h.retry},
		{method: http.MethodGet, pattern: templates.RouteProcessMigrate, rule: operate(access.KeyParam), serve: h.migratePage},
		{method: http.MethodPost, pattern: templates.RouteProcessMigrate, rule: operate(access.KeyParam),
			action: "cockpit: migrate instances", resource: param("process", "key"), serve: h.startMigration},
		{method: http.MethodGet, pattern: templates.RouteMigration, rule: read, serve: h.migration},
		// Batch operations (batches.go): the filter is narrowed to what the
		// person may operate on; a batch is its creator's.
		{method: http.MethodGet, pattern: templates.RouteBatches, rule: read, serve: h.batches},
		{method: http.MethodGet, pattern: templates.RouteBatchNew, rule: operate(access.KeyHandler), serve: h.batchNew},
		{method: http.MethodPost, pattern: templates.RouteBatches, rule: operate(access.KeyHandler),
			action: "cockpit: start batch", serve: h.createBatch},
		{method: http.MethodGet, pattern: templates.RouteBatch, rule: read, serve: h.batch},
		{method: http.MethodPost, pattern: templates.RouteBatchPause, rule: operate(access.KeyHandler),
			action: "cockpit: pause batch", resource: param("batch", "id"), serve: h.steerBatch(pauseBatch, "paused")},
		{method: http.MethodPost, pattern: templates.RouteBatchResume, rule: operate(access.KeyHandler),
			action: "cockpit: resume batch", resource: param("batch", "id"), serve: h.steerBatch(resumeBatch, "resumed")},
		{method: http.MethodPost, pattern: templates.RouteBatchCancel, rule: operate(access.KeyHandler),
			action: "cockpit: cancel batch", resource: param("batch", "id"), serve: h.steerBatch(cancelBatch, "cancelled")},
		{method: http.MethodPost, pattern: templates.RouteIncidentsRetry, rule: operate(access.KeyHandler),
			action: "cockpit: retry incidents", serve: h.retryMany},
		{method: http.MethodPost, pattern: templates.RouteInstancesCancel, rule: operate(access.KeyHandler),
			action: "cockpit: cancel instances", serve: h.cancelSelected},
		{method: http.MethodPost, pattern: templates.RouteInstancesRetry, rule: operate(access.KeyHandler),
			action: "cockpit: retry instances", serve: h.retrySelected},
		{method: http.MethodPost, pattern: templates.RouteInstancesMigrate, rule: operate(access.KeyHandler),
			action: "cockpit: migrate selected instances", serve: h.migrateSelected},
		// A person's own saved filters: any reader of the list keeps theirs.
		{method: http.MethodPost, pattern: templates.RouteSavedFilters, rule: read,
			action: "cockpit: save filter", serve: h.saveFilter},
		{method: http.MethodPost, pattern: templates.RouteSavedFilterDelete, rule: read,
			action: "cockpit: delete saved filter", serve: h.deleteSavedFilter},

		// Logins. Only with --auth builtin or oidc; without, they answer 404.
		{method: http.MethodGet, pattern: templates.RouteLogin, rule: access.Public(), serve: h.loginPage},
		{method: http.MethodPost, pattern: templates.RouteLogin, rule: access.Public(), serve: h.login},
		{method: http.MethodPost, pattern: templates.RouteLoginOIDC, rule: access.Public(), serve: h.loginOIDC},
		{method: http.MethodGet, pattern: templates.RouteOIDCCallback, rule: access.Public(), serve: h.oidcCallback},
		{method: http.MethodPost, pattern: templates.RouteLogout, rule: access.Public(), serve: h.logout},
		{method: http.MethodGet, pattern: templates.RouteSetup, rule: access.Public(), serve: h.setupPage},
		{method: http.MethodPost, pattern: templates.RouteSetup, rule: access.Public(), serve: h.setup},

		// Administration.
		{method: http.MethodGet, pattern: templates.RouteAdmin, rule: access.Admin(), serve: h.adminHome},
		{method: http.MethodGet, pattern: templates.RouteAdminUsers, rule: access.Admin(), serve: h.users},
		{method: http.MethodPost, pattern: templates.RouteAdminUsers, rule: access.Admin(), action: "cockpit: create user", serve: h.createUser},
		{method: http.MethodGet, pattern: templates.RouteAdminUser, rule: access.Admin(), serve: h.user},
		{method: http.MethodPost, pattern: templates.RouteAdminUserPassword, rule: access.Admin(),
			action: "cockpit: set password", resource: param("user", "id"), serve: h.setPassword},
		{method: http.MethodPost, pattern: templates.RouteAdminUserDisable, rule: access.Admin(),
			action: "cockpit: disable user", resource: param("user", "id"), serve: h.disableUser(true)},
		{method: http.MethodPost, pattern: templates.RouteAdminUserEnable, rule: access.Admin(),
			action: "cockpit: enable user", resource: param("user", "id"), serve: h.disableUser(false)},
		{method: http.MethodPost, pattern: templates.RouteAdminUserDelete, rule: access.Admin(),
			action: "cockpit: delete user", resource: param("user", "id"), serve: h.deleteUser},
		{method: http.MethodGet, pattern: templates.RouteAdminGroups, rule: access.Admin(), serve: h.groups},
		{method: http.MethodPost, pattern: templates.RouteAdminGroups, rule: access.Admin(), action: "cockpit: create group", serve: h.createGroup},
		{method: http.MethodGet, pattern: templates.RouteAdminGroup, rule: access.Admin(), serve: h.group},
		{method: http.MethodPost, pattern: templates.RouteAdminGroupDelete, rule: access.Admin(),
			action: "cockpit: delete group", resource: param("group", "id"), serve: h.deleteGroup},
		{method: http.MethodPost, pattern: templates.RouteAdminMembers, rule: access.Admin(),
			action: "cockpit: add member", resource: param("group", "id"), serve: h.addMember},
		{method: http.MethodPost, pattern: templates.RouteAdminMemberRemove, rule: access.Admin(),
			action: "cockpit: remove member", resource: param("group", "id"), serve: h.removeMember},
		{method: http.MethodGet, pattern: templates.RouteAdminGrants, rule: access.Admin(), serve: h.grants},
		{method: http.MethodPost, pattern: templates.RouteAdminGrants, rule: access.Admin(), action: "cockpit: grant", serve: h.grant},
		{method: http.MethodPost, pattern: templates.RouteAdminGrantRevoke, rule: access.Admin(),
			action: "cockpit: revoke grant", resource: param("grant", "id"), serve: h.revokeGrant},
		{method: http.MethodGet, pattern: templates.RouteAdminTokens, rule: access.Admin(), serve: h.tokens},
		{method: http.MethodPost, pattern: templates.RouteAdminTokens, rule: access.Admin(), action: "cockpit: mint token", serve: h.mintToken},
		{method: http.MethodPost, pattern: templates.RouteAdminTokenRevoke, rule: access.Admin(),
			action: "cockpit: revoke token", resource: param("token", "id"), serve: h.revokeToken},
		{method: http.MethodGet, pattern: templates.RouteAdminAudit, rule: access.Admin(), serve: h.audit},

		// Starting from the inbox: the list shows the processes the person may start.
		{method: http.MethodGet, pattern: templates.RouteTasksStart, rule: access.Anyone(), serve: h.startablePage},
		{method: http.MethodGet, pattern: templates.RouteTasksStartKey, rule: access.On(auth.PermStart, auth.KindProcess, access.KeyParam), serve: h.startChoicePage},
		{method: http.MethodPost, pattern: templates.RouteTasksStartKey, rule: access.On(auth.PermStart, auth.KindProcess, access.KeyParam),
			action: "cockpit: start instance from the inbox", resource: param("process", "key"), serve: h.startFromInbox},
	}
}

// mount wraps a route's handler in what its method and rule need: a page
// needs a session and the rule's permission and is never cached; an
// action is audited, guarded against cross-site use, then checked the
// same way.
func (h *handler) mount(r chi.Router, rt route) {
	// A state-changing request is checked in the order that costs an
	// attacker the most and the server the least: its origin and its
	// login and rights (headers and path only), then its form, read only
	// after that (with its CSRF token; an upload in a bounded slot).
	var next http.Handler = rt.serve
	if rt.method != http.MethodGet {
		next = h.readForm(next)
	}
	if !rt.rule.Public {
		next = h.authorize(rt.rule, next)
		next = h.requireLogin(next)
	}
	if rt.method == http.MethodGet {
		next = noStore(next)
	} else {
		next = noStore(h.sameOrigin(next))
		if rt.action != "" {
			next = h.audited(rt.action, rt.resource, next)
		}
	}
	r.Method(rt.method, rt.pattern, next)
}

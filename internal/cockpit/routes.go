package cockpit

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/web/templates"
)

// keyFrom says where a route finds the key of the resource its rule
// checks.
type keyFrom int

const (
	// keyNone: no resource key (system permissions, or any person).
	keyNone keyFrom = iota
	// keyParam: the {key} path parameter (a process key).
	keyParam
	// keyInstance: the process key of instance {id}.
	keyInstance
	// keyIncident: the process key of incident {id}'s instance.
	keyIncident
	// keyList: the handler filters or checks each key; the route needs the
	// permission on some resource of the kind (a list, a deployment).
	keyList
)

// rule is what a route requires of the person using it, as the JSON API's
// route table says for the same act.
type rule struct {
	// public routes need nobody logged in (the login itself).
	public bool
	// perm is the permission needed; "" means anybody logged in (what they
	// may do is then decided per item: the tasks offered to them).
	perm auth.Permission
	kind auth.ResourceKind
	key  keyFrom
}

func public() rule { return rule{public: true} }
func anyone() rule { return rule{key: keyNone} }
func admin() rule  { return rule{perm: auth.PermAdmin, kind: auth.KindSystem} }
func on(p auth.Permission, k auth.ResourceKind, from keyFrom) rule {
	return rule{perm: p, kind: k, key: from}
}

// route is one page or action of the cockpit.
type route struct {
	method  string
	pattern string
	rule    rule
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
	read := on(auth.PermRead, auth.KindProcess, keyList)
	operate := func(from keyFrom) rule { return on(auth.PermOperate, auth.KindProcess, from) }
	return []route{
		{method: http.MethodGet, pattern: templates.RouteDashboard, rule: anyone(), serve: h.dashboard},
		{method: http.MethodGet, pattern: templates.RouteProcesses, rule: read, serve: h.processes},
		{method: http.MethodGet, pattern: templates.RouteProcess, rule: on(auth.PermRead, auth.KindProcess, keyParam), serve: h.process},
		{method: http.MethodGet, pattern: templates.RouteProcessXML, rule: on(auth.PermRead, auth.KindProcess, keyParam), serve: h.processXML},
		{method: http.MethodGet, pattern: templates.RouteProcessEdit, rule: on(auth.PermDeploy, auth.KindProcess, keyParam), serve: h.modeler},
		{method: http.MethodGet, pattern: templates.RouteInstances, rule: read, serve: h.instances},
		{method: http.MethodGet, pattern: templates.RouteInstance, rule: on(auth.PermRead, auth.KindProcess, keyInstance), serve: h.instance},
		{method: http.MethodGet, pattern: templates.RouteTasks, rule: anyone(), serve: h.tasks},
		{method: http.MethodGet, pattern: templates.RouteIncidents, rule: read, serve: h.incidents},
		{method: http.MethodGet, pattern: templates.RouteDecisions, rule: on(auth.PermRead, auth.KindDecision, keyList), serve: h.decisions},
		{method: http.MethodGet, pattern: templates.RouteDecision, rule: on(auth.PermRead, auth.KindDecision, keyParam), serve: h.decision},
		{method: http.MethodGet, pattern: templates.RouteDecisionXML, rule: on(auth.PermRead, auth.KindDecision, keyParam), serve: h.decisionXML},
		{method: http.MethodPost, pattern: templates.RouteDecisionEval, rule: on(auth.PermStart, auth.KindDecision, keyParam),
			action: "cockpit: evaluate decision", resource: param("decision", "key"), serve: h.evaluate},
		// Pushed updates: each change is filtered by what the person may read.
		{method: http.MethodGet, pattern: templates.RouteEvents, rule: anyone(), serve: h.events},

		{method: http.MethodPost, pattern: templates.RouteIdentity, rule: anyone(), serve: h.setIdentity},
		{method: http.MethodPost, pattern: templates.RouteProcesses, rule: on(auth.PermDeploy, auth.KindProcess, keyList),
			action: "cockpit: deploy", serve: h.deploy},
		{method: http.MethodPost, pattern: templates.RouteProcessEdit, rule: on(auth.PermDeploy, auth.KindProcess, keyParam),
			action: "cockpit: deploy from the modeler", resource: param("process", "key"), serve: h.deployModel},
		{method: http.MethodPost, pattern: templates.RouteProcessStart, rule: on(auth.PermStart, auth.KindProcess, keyParam),
			action: "cockpit: start instance", resource: param("process", "key"), serve: h.start},
		{method: http.MethodPost, pattern: templates.RouteInstanceCancel, rule: operate(keyInstance),
			action: "cockpit: cancel instance", resource: param("instance", "id"), serve: h.cancel},
		{method: http.MethodPost, pattern: templates.RouteInstanceModify, rule: operate(keyInstance),
			action: "cockpit: modify instance", resource: param("instance", "id"), serve: h.modify},
		{method: http.MethodPost, pattern: templates.RouteInstanceDelete, rule: on(auth.PermDelete, auth.KindProcess, keyInstance),
			action: "cockpit: delete instance", resource: param("instance", "id"), serve: h.deleteInstance},
		{method: http.MethodPost, pattern: templates.RouteInstanceVars, rule: operate(keyInstance),
			action: "cockpit: set variables", resource: param("instance", "id"), serve: h.setVariables},
		{method: http.MethodPost, pattern: templates.RouteAdHocActivate, rule: operate(keyInstance),
			action: "cockpit: activate ad-hoc activity", resource: param("instance", "id"), serve: h.activate},
		{method: http.MethodPost, pattern: templates.RouteTaskClaim, rule: anyone(),
			action: "cockpit: claim task", resource: param("task", "id"), serve: h.claim},
		{method: http.MethodPost, pattern: templates.RouteTaskUnclaim, rule: anyone(),
			action: "cockpit: unclaim task", resource: param("task", "id"), serve: h.unclaim},
		{method: http.MethodPost, pattern: templates.RouteTaskComplete, rule: anyone(),
			action: "cockpit: complete task", resource: param("task", "id"), serve: h.complete},
		{method: http.MethodPost, pattern: templates.RouteIncidentRetry, rule: operate(keyIncident),
			action: "cockpit: retry incident", resource: param("incident", "id"), serve: h.retry},
		{method: http.MethodGet, pattern: templates.RouteProcessMigrate, rule: operate(keyParam), serve: h.migratePage},
		{method: http.MethodPost, pattern: templates.RouteProcessMigrate, rule: operate(keyParam),
			action: "cockpit: migrate instances", resource: param("process", "key"), serve: h.startMigration},
		{method: http.MethodGet, pattern: templates.RouteMigration, rule: read, serve: h.migration},
		{method: http.MethodPost, pattern: templates.RouteIncidentsRetry, rule: operate(keyList),
			action: "cockpit: retry incidents", serve: h.retryMany},
		{method: http.MethodPost, pattern: templates.RouteInstancesCancel, rule: operate(keyList),
			action: "cockpit: cancel instances", serve: h.cancelSelected},
		{method: http.MethodPost, pattern: templates.RouteInstancesRetry, rule: operate(keyList),
			action: "cockpit: retry instances", serve: h.retrySelected},
		{method: http.MethodPost, pattern: templates.RouteInstancesMigrate, rule: operate(keyList),
			action: "cockpit: migrate selected instances", serve: h.migrateSelected},

		// Logins. Only with --auth builtin or oidc; without, they answer 404.
		{method: http.MethodGet, pattern: templates.RouteLogin, rule: public(), serve: h.loginPage},
		{method: http.MethodPost, pattern: templates.RouteLogin, rule: public(), serve: h.login},
		{method: http.MethodPost, pattern: templates.RouteLoginOIDC, rule: public(), serve: h.loginOIDC},
		{method: http.MethodGet, pattern: templates.RouteOIDCCallback, rule: public(), serve: h.oidcCallback},
		{method: http.MethodPost, pattern: templates.RouteLogout, rule: public(), serve: h.logout},
		{method: http.MethodGet, pattern: templates.RouteSetup, rule: public(), serve: h.setupPage},
		{method: http.MethodPost, pattern: templates.RouteSetup, rule: public(), serve: h.setup},

		// Administration.
		{method: http.MethodGet, pattern: templates.RouteAdmin, rule: admin(), serve: h.adminHome},
		{method: http.MethodGet, pattern: templates.RouteAdminUsers, rule: admin(), serve: h.users},
		{method: http.MethodPost, pattern: templates.RouteAdminUsers, rule: admin(), action: "cockpit: create user", serve: h.createUser},
		{method: http.MethodGet, pattern: templates.RouteAdminUser, rule: admin(), serve: h.user},
		{method: http.MethodPost, pattern: templates.RouteAdminUserPassword, rule: admin(),
			action: "cockpit: set password", resource: param("user", "id"), serve: h.setPassword},
		{method: http.MethodPost, pattern: templates.RouteAdminUserDisable, rule: admin(),
			action: "cockpit: disable user", resource: param("user", "id"), serve: h.disableUser(true)},
		{method: http.MethodPost, pattern: templates.RouteAdminUserEnable, rule: admin(),
			action: "cockpit: enable user", resource: param("user", "id"), serve: h.disableUser(false)},
		{method: http.MethodPost, pattern: templates.RouteAdminUserDelete, rule: admin(),
			action: "cockpit: delete user", resource: param("user", "id"), serve: h.deleteUser},
		{method: http.MethodGet, pattern: templates.RouteAdminGroups, rule: admin(), serve: h.groups},
		{method: http.MethodPost, pattern: templates.RouteAdminGroups, rule: admin(), action: "cockpit: create group", serve: h.createGroup},
		{method: http.MethodGet, pattern: templates.RouteAdminGroup, rule: admin(), serve: h.group},
		{method: http.MethodPost, pattern: templates.RouteAdminGroupDelete, rule: admin(),
			action: "cockpit: delete group", resource: param("group", "id"), serve: h.deleteGroup},
		{method: http.MethodPost, pattern: templates.RouteAdminMembers, rule: admin(),
			action: "cockpit: add member", resource: param("group", "id"), serve: h.addMember},
		{method: http.MethodPost, pattern: templates.RouteAdminMemberRemove, rule: admin(),
			action: "cockpit: remove member", resource: param("group", "id"), serve: h.removeMember},
		{method: http.MethodGet, pattern: templates.RouteAdminGrants, rule: admin(), serve: h.grants},
		{method: http.MethodPost, pattern: templates.RouteAdminGrants, rule: admin(), action: "cockpit: grant", serve: h.grant},
		{method: http.MethodPost, pattern: templates.RouteAdminGrantRevoke, rule: admin(),
			action: "cockpit: revoke grant", resource: param("grant", "id"), serve: h.revokeGrant},
		{method: http.MethodGet, pattern: templates.RouteAdminTokens, rule: admin(), serve: h.tokens},
		{method: http.MethodPost, pattern: templates.RouteAdminTokens, rule: admin(), action: "cockpit: mint token", serve: h.mintToken},
		{method: http.MethodPost, pattern: templates.RouteAdminTokenRevoke, rule: admin(),
			action: "cockpit: revoke token", resource: param("token", "id"), serve: h.revokeToken},
		{method: http.MethodGet, pattern: templates.RouteAdminAudit, rule: admin(), serve: h.audit},

		// Starting from the inbox: the list shows the processes the person may start.
		{method: http.MethodGet, pattern: templates.RouteTasksStart, rule: anyone(), serve: h.startablePage},
		{method: http.MethodGet, pattern: templates.RouteTasksStartKey, rule: on(auth.PermStart, auth.KindProcess, keyParam), serve: h.startChoicePage},
		{method: http.MethodPost, pattern: templates.RouteTasksStartKey, rule: on(auth.PermStart, auth.KindProcess, keyParam),
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
	if !rt.rule.public {
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

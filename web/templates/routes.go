package templates

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Route patterns of the cockpit: the one place its paths are spelled. The
// router in internal/cockpit mounts these; components build links with the
// functions below.
const (
	RouteDashboard      = "/"
	RouteProcesses      = "/processes"
	RouteProcess        = "/processes/{key}"
	RouteProcessXML     = "/processes/{key}/versions/{version}/xml"
	RouteProcessStart   = "/processes/{key}/instances"
	RouteProcessEdit    = "/processes/{key}/edit"
	RouteInstances      = "/instances"
	RouteInstance       = "/instances/{id}"
	RouteInstanceCancel = "/instances/{id}/cancel"
	RouteInstanceDelete = "/instances/{id}/delete"
	RouteInstanceVars   = "/instances/{id}/variables"
	RouteInstanceModify = "/instances/{id}/modify"
	RouteAdHocActivate  = "/instances/{id}/adhoc/{scope}/activate"
	RouteTasks          = "/tasks"
	RouteTasksStart     = "/tasks/start"
	RouteTasksStartKey  = "/tasks/start/{key}"
	RouteTaskClaim      = "/tasks/{id}/claim"
	RouteTaskUnclaim    = "/tasks/{id}/unclaim"
	RouteTaskComplete   = "/tasks/{id}/complete"
	RouteIncidents      = "/incidents"
	RouteIncidentRetry  = "/incidents/{id}/retry"
	RouteIncidentsRetry = "/incidents/retry"
	// RouteInstancesCancel cancels, RouteInstancesRetry retries the open
	// incidents of, the instances selected in the list.
	RouteInstancesCancel = "/instances/cancel"
	RouteInstancesRetry  = "/instances/retry"
	// RouteInstancesMigrate takes the instances selected in the list to
	// the migration page of their process version (one version only).
	RouteInstancesMigrate = "/instances/migrate"
	RouteEvents           = "/events"
	RouteDecisions        = "/decisions"
	RouteDecision         = "/decisions/{key}"
	RouteDecisionXML      = "/decisions/{key}/versions/{version}/xml"
	RouteDecisionEval     = "/decisions/{key}/evaluate"
	RouteIdentity         = "/identity"
	RouteStatic           = "/static/*"

	// Batch operations: RouteBatches lists them and creates one
	// (RouteBatchNew: the instance list's filter, counted first);
	// RouteBatch shows one, the others steer it.
	RouteBatches     = "/batches"
	RouteBatchNew    = "/batches/new"
	RouteBatch       = "/batches/{id}"
	RouteBatchPause  = "/batches/{id}/pause"
	RouteBatchResume = "/batches/{id}/resume"
	RouteBatchCancel = "/batches/{id}/cancel"

	// Logins (--auth builtin or oidc).
	RouteLogin        = "/login"
	RouteLoginOIDC    = "/login/oidc"
	RouteOIDCCallback = "/login/oidc/callback"
	RouteLogout       = "/logout"
	RouteSetup        = "/setup"

	// Administration (the admin permission).
	RouteAdmin             = "/admin"
	RouteAdminUsers        = "/admin/users"
	RouteAdminUser         = "/admin/users/{id}"
	RouteAdminUserPassword = "/admin/users/{id}/password"
	RouteAdminUserDisable  = "/admin/users/{id}/disable"
	RouteAdminUserEnable   = "/admin/users/{id}/enable"
	RouteAdminUserDelete   = "/admin/users/{id}/delete"
	RouteAdminGroups       = "/admin/groups"
	RouteAdminGroup        = "/admin/groups/{id}"
	RouteAdminGroupDelete  = "/admin/groups/{id}/delete"
	RouteAdminMembers      = "/admin/groups/{id}/members"
	RouteAdminMemberRemove = "/admin/groups/{id}/members/{user}/remove"
	RouteAdminGrants       = "/admin/grants"
	RouteAdminGrantRevoke  = "/admin/grants/{id}/revoke"
	RouteAdminTokens       = "/admin/tokens"
	RouteAdminTokenRevoke  = "/admin/tokens/{id}/revoke"
	RouteAdminAudit        = "/admin/audit"
)

// LoginURL is the login page, returning to next after the login.
func LoginURL(next string) string {
	if next == "" || next == "/" {
		return RouteLogin
	}
	return RouteLogin + "?next=" + url.QueryEscape(next)
}

// AdminUserURL links a user's admin page.
func AdminUserURL(id string) string { return RouteAdminUsers + "/" + url.PathEscape(id) }

// AdminUserActionURL is a user's action path: password, disable, enable or delete.
func AdminUserActionURL(id, action string) string { return AdminUserURL(id) + "/" + action }

// AdminGroupURL links a group's admin page.
func AdminGroupURL(id string) string { return RouteAdminGroups + "/" + url.PathEscape(id) }

// AdminGroupActionURL is a group's action path: members or delete.
func AdminGroupActionURL(id, action string) string { return AdminGroupURL(id) + "/" + action }

// AdminMemberRemoveURL is where a member's Remove button posts.
func AdminMemberRemoveURL(group, user string) string {
	return AdminGroupURL(group) + "/members/" + url.PathEscape(user) + "/remove"
}

// AdminGrantsURL lists the grants of one subject ("" kind: every grant).
func AdminGrantsURL(kind, id string) string {
	if kind == "" {
		return RouteAdminGrants
	}
	return RouteAdminGrants + "?" + url.Values{"subjectKind": {kind}, "subjectId": {id}}.Encode()
}

// AdminGrantRevokeURL is where a grant's Take back button posts.
func AdminGrantRevokeURL(id int64) string {
	return RouteAdminGrants + "/" + strconv.FormatInt(id, 10) + "/revoke"
}

// AdminTokensURL lists the tokens of one owner ("": every token).
func AdminTokensURL(owner string) string {
	if owner == "" {
		return RouteAdminTokens
	}
	return RouteAdminTokens + "?" + url.Values{"owner": {owner}}.Encode()
}

// AdminTokenRevokeURL is where a token's Revoke button posts.
func AdminTokenRevokeURL(id string) string {
	return RouteAdminTokens + "/" + url.PathEscape(id) + "/revoke"
}

// AdminAuditURL is the audit page with a filter, older than before (0:
// from the newest).
func AdminAuditURL(f AuditFilter, before int64) string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("actor", f.Actor)
	set("action", f.Action)
	set("resource", f.Resource)
	set("outcome", f.Outcome)
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return RouteAdminAudit
	}
	return RouteAdminAudit + "?" + q.Encode()
}

// ProcessURL links a process key, at a version when v > 0.
func ProcessURL(key string, v int) string {
	u := "/processes/" + url.PathEscape(key)
	if v > 0 {
		u += "?version=" + strconv.Itoa(v)
	}
	return u
}

// DecisionURL links a decision key, at a version when v > 0.
func DecisionURL(key string, v int) string {
	u := "/decisions/" + url.PathEscape(key)
	if v > 0 {
		u += "?version=" + strconv.Itoa(v)
	}
	return u
}

// DecisionXMLURL serves the deployed DMN document of a decision version.
func DecisionXMLURL(key string, v int) string {
	return "/decisions/" + url.PathEscape(key) + "/versions/" + strconv.Itoa(v) + "/xml"
}

// DecisionEvalURL is where a decision's evaluation form posts.
func DecisionEvalURL(key string) string { return "/decisions/" + url.PathEscape(key) + "/evaluate" }

// ProcessEditURL opens a version (0: the latest) in the modeler; the
// modeler deploys to it too.
func ProcessEditURL(key string, v int) string {
	u := "/processes/" + url.PathEscape(key) + "/edit"
	if v > 0 {
		u += "?version=" + strconv.Itoa(v)
	}
	return u
}

// ProcessXMLURL serves the deployed XML of a version.
func ProcessXMLURL(key string, v int) string {
	return "/processes/" + url.PathEscape(key) + "/versions/" + strconv.Itoa(v) + "/xml"
}

// ProcessXMLDownloadURL serves the deployed XML of a version as a download
// (an attachment named by ProcessFileName).
func ProcessXMLDownloadURL(key string, v int) string {
	return ProcessXMLURL(key, v) + "?download=1"
}

// ProcessFileName names a downloaded version's XML: the process key and
// version, "-edited" for the modeler's unsaved model; anything in the key
// but letters, digits, "-", "_" and "." (a path separator, say) becomes "_".
func ProcessFileName(key string, v int, edited bool) string {
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '_'
	}, key)
	name += "-v" + strconv.Itoa(v)
	if edited {
		name += "-edited"
	}
	return name + ".bpmn"
}

// ProcessStartURL is where the start form posts.
func ProcessStartURL(key string) string {
	return "/processes/" + url.PathEscape(key) + "/instances"
}

// InstanceURL links an instance.
func InstanceURL(id string) string { return "/instances/" + url.PathEscape(id) }

// Query parameters of the instance page: the cursor its shown page of
// scopes (of tokens) starts after, the id of the last one before it.
const (
	ParamScopes = "scopes"
	ParamTracks = "tracks"
)

// InstancePageURL links an instance showing the page of scopes after the
// scope scopesAfter and the page of tokens after the token tracksAfter
// ("" for a first page).
func InstancePageURL(id, scopesAfter, tracksAfter string) string {
	q := url.Values{}
	if scopesAfter != "" {
		q.Set(ParamScopes, scopesAfter)
	}
	if tracksAfter != "" {
		q.Set(ParamTracks, tracksAfter)
	}
	if len(q) == 0 {
		return InstanceURL(id)
	}
	return InstanceURL(id) + "?" + q.Encode()
}

// InstanceActionURL is an instance's action path, e.g. "cancel".
func InstanceActionURL(id, action string) string { return InstanceURL(id) + "/" + action }

// AdHocActivateURL is where a region's Activate buttons post.
func AdHocActivateURL(id, scopeID string) string {
	return InstanceURL(id) + "/adhoc/" + url.PathEscape(scopeID) + "/activate"
}

// TasksURL is the inbox with a filter.
func TasksURL(f TaskFilter) string {
	q := url.Values{}
	for k, v := range map[string]string{"show": f.Show, "process": f.Process, "due": f.Due, "sort": f.Sort, "task": f.Task, "var": f.Var} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Page > 1 {
		q.Set("page", strconv.Itoa(f.Page))
	}
	if len(q) == 0 {
		return RouteTasks
	}
	return RouteTasks + "?" + q.Encode()
}

// StartProcessURL is the inbox's start form of a process.
func StartProcessURL(key string) string { return RouteTasksStart + "/" + url.PathEscape(key) }

// TaskActionURL is a task's action path: claim, unclaim or complete.
func TaskActionURL(id, action string) string {
	return "/tasks/" + url.PathEscape(id) + "/" + action
}

// IncidentRetryURL is where an incident's Retry button posts.
func IncidentRetryURL(id string) string { return "/incidents/" + url.PathEscape(id) + "/retry" }

// IncidentsURL is the incidents page with a filter.
func IncidentsURL(f IncidentFilter) string {
	q := url.Values{}
	for k, v := range map[string]string{"process": f.Process, "root": f.Root, "under": f.Under, "element": f.Element, "kind": f.Kind, "age": f.Age, "message": f.Message} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return RouteIncidents
	}
	return RouteIncidents + "?" + q.Encode()
}

// withoutMessage is f without its message filter.
func withoutMessage(f IncidentFilter) IncidentFilter {
	f.Message = ""
	return f
}

// groupMessage shows an incident group's message ("(no message)" for
// incidents without one).
func groupMessage(m string) string {
	if m == "" {
		return "(no message)"
	}
	return m
}

// The saved filters of the instance list: RouteSavedFilters saves the
// list's current filter under a name for the person,
// RouteSavedFilterDelete deletes one of theirs.
const (
	RouteSavedFilters      = "/instances/filters"
	RouteSavedFilterDelete = "/instances/filters/delete"
)

// InstancesURL is the instance list with a filter.
func InstancesURL(f InstanceFilter) string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("process", f.Process)
	set("version", f.Version)
	set("status", f.Status)
	set("businessKey", f.BusinessKey)
	set("parent", f.Parent)
	set("number", f.Number)
	set("element", f.Element)
	set("incidentMessage", f.IncidentMessage)
	for _, v := range f.Vars {
		q.Add("var", v)
	}
	set("startedFrom", f.StartedFrom)
	set("startedTo", f.StartedTo)
	set("endedFrom", f.EndedFrom)
	set("endedTo", f.EndedTo)
	set("sort", f.Sort)
	if f.Page > 1 {
		q.Set("page", strconv.Itoa(f.Page))
	}
	if len(q) == 0 {
		return RouteInstances
	}
	return RouteInstances + "?" + q.Encode()
}

// SortURL is the list of f sorted by column: largest first, or smallest
// first when it is sorted by column largest first already (a click on a
// sorted column's heading reverses it). It starts at the first page.
func SortURL(f InstanceFilter, column string) string {
	if f.Sort == column || (f.Sort == "" && column == "created") {
		f.Sort = "+" + column
	} else {
		f.Sort = column
	}
	f.Page = 0
	return InstancesURL(f)
}

// SortMark is the arrow after a column's heading: ↓ sorted largest first,
// ↑ smallest first, "" not sorted by it.
func SortMark(f InstanceFilter, column string) string {
	switch f.Sort {
	case column:
		return " ↓"
	case "+" + column:
		return " ↑"
	case "":
		if column == "created" {
			return " ↓"
		}
	}
	return ""
}

// AutoLayoutFile is the bundled npm bpmn-auto-layout, relative to
// StaticURL (web.AutoLayoutFile).
const AutoLayoutFile = "vendor/bpmn-auto-layout.min.js"

// FormViewerFile and FormCSSFile are the bundled npm
// @bpmn-io/form-js-viewer and its stylesheet, relative to StaticURL
// (web.FormViewerFile, web.FormCSSFile).
const (
	FormViewerFile = "vendor/form-js-viewer.min.js"
	FormCSSFile    = "vendor/form-js.css"
)

// The npm dmn-js viewer and its stylesheets, relative to StaticURL
// (make vendor copies them).
const (
	DMNViewerFile = "vendor/dmn-navigated-viewer.min.js"
	DMNSharedCSS  = "vendor/dmn-js-shared.css"
	DMNDRDCSS     = "vendor/dmn-js-drd.css"
	DMNTableCSS   = "vendor/dmn-js-decision-table.css"
	DMNLiteralCSS = "vendor/dmn-js-literal-expression.css"
	DMNBoxedCSS   = "vendor/dmn-js-boxed-expression.css"
)

// The npm bpmn-js Modeler and its palette font, relative to StaticURL.
const (
	BPMNModelerFile = "vendor/bpmn-modeler.production.min.js"
	BPMNFontCSSFile = "vendor/bpmn-font/css/bpmn.css"
)

// StaticURL is a static asset's URL.
func StaticURL(name string) string { return "/static/" + name }

// InstanceLabel names an instance for people: "<process> #<number>",
// process being its process's name or key. An instance whose number is not
// known (0) falls back to its shortened id; the full id belongs in the
// title and the copy button (copyID).
func InstanceLabel(process string, number int64, id string) string {
	if number > 0 && process == "" {
		return "#" + strconv.FormatInt(number, 10)
	}
	if number > 0 {
		return process + " #" + strconv.FormatInt(number, 10)
	}
	if process == "" {
		return ShortID(id)
	}
	return process + " " + ShortID(id)
}

// ShortID shortens a long id for display; the full id stays in links and titles.
func ShortID(id string) string {
	if len(id) <= 13 {
		return id
	}
	return id[:8] + "…" + id[len(id)-4:]
}

// When formats a time for tables ("" for the zero time).
func When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// Join joins names for display.
func Join(s []string) string { return strings.Join(s, ", ") }

// indexAttr is an iteration's index as an attribute ("" for other scopes).
func indexAttr(i int) string {
	if i <= 0 {
		return ""
	}
	return strconv.Itoa(i)
}

// times shows a count above one as " ×n".
func times(n int) string {
	if n <= 1 {
		return ""
	}
	return " ×" + strconv.Itoa(n)
}

// actingAs names the acting user for a button's title.
func actingAs(user string) string {
	if user == "" {
		return "nobody yet (choose who you are acting as)"
	}
	return user
}

// hasOpen reports whether any incident is open.
func hasOpen(items []IncidentItem) bool {
	for _, in := range items {
		if !in.Resolved {
			return true
		}
	}
	return false
}

// hasCandidates reports whether any region offers an activity.
func hasCandidates(regions []RegionItem) bool {
	for _, r := range regions {
		if len(r.Candidates) > 0 {
			return true
		}
	}
	return false
}

// Thousands writes n with comma thousands separators ("100,000").
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

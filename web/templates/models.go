// Package templates holds the cockpit's templ components and the view-model
// structs they render. Components are pure functions of these structs: the
// handlers in internal/cockpit fill them from the runtime's read API and
// nothing here imports an internal package (STYLE.md theme 12).
//
// # Fragments
//
// Each page marks its changing parts with templ.Fragment(FragmentLive). An
// htmx poll asks for the page with the HX-Request header and gets only that
// fragment back, so the diagram is never re-imported and forms outside the
// fragment are never replaced.
package templates

import "time"

// FragmentLive names the part of a page that htmx polling refreshes.
const FragmentLive = "live"

// LiveTrigger is the htmx trigger of every live region: two events that
// cockpit.js sends, gobpm:changed for a change pushed by the server-sent
// events of /events, gobpm:poll for its timer (every two seconds while no
// push connection is open, every 30 seconds anyway: changes committed by
// another node of a cluster are not pushed). It has no filter: the
// Content-Security-Policy allows no eval, and HTMXConfig turns htmx's off,
// so the script holds a refresh back while the person types in the region.
const LiveTrigger = "gobpm:changed, gobpm:poll"

// Values of data-live on an element inside a live region, which tell
// cockpit.js how the region refreshes beyond a pushed change: LivePoll,
// every two seconds even while the push stream is open (what it shows is
// not pushed: a migration batch's progress); LiveFinal, never again
// (nothing it shows changes any more: a finished batch).
const (
	LivePoll  = "poll"
	LiveFinal = "final"
)

// HTMXConfig is htmx's configuration (the htmx-config meta tag of every
// page): no eval of attribute expressions (hx-trigger filters, hx-on,
// js: values), which the Content-Security-Policy (script-src 'self')
// refuses; no script tags in swapped content; no inline indicator styles.
const HTMXConfig = `{"allowEval":false,"allowScriptTags":false,"includeIndicatorStyles":false}`

// Nav entries, to highlight the current one.
const (
	NavDashboard = "dashboard"
	NavProcesses = "processes"
	NavInstances = "instances"
	NavTasks     = "tasks"
	NavIncidents = "incidents"
	NavDecisions = "decisions"
)

// Layout is what every page shares: title, navigation, identity and the
// message left by the previous action.
type Layout struct {
	Title string
	Nav   string
	// Actor is the identity the cockpit acts as (from its cookie).
	Actor Actor
	// CSRF is the token every state-changing form carries.
	CSRF string
	// Flash is the outcome of the last action, shown once.
	Flash Flash
	// VendorMissing is true when the npm files were not embedded.
	VendorMissing bool
	// Here is the current path and query, where the identity form returns.
	Here string
	// Auth is true when the cockpit has logins (--auth builtin or oidc):
	// the header shows the logged-in person (Actor, empty before login)
	// and a logout button instead of the acting-as box.
	Auth bool
	// Can says which parts of the cockpit the person may use.
	Can Can
	// ManualClock is the time of the runtime's manual clock (--clock
	// manual), shown in the header so nobody mistakes it for the time;
	// zero when the clock is the real one.
	ManualClock time.Time
}

// Can says what the person looking at a page may do, for the navigation
// and the forms every page shares. Without logins everybody may do
// everything but administer (there is nobody to administer).
type Can struct {
	// Read is true when the person may read some process: the processes,
	// instances and incidents pages.
	Read bool
	// Decisions is true when the person may read some decision: the
	// decisions pages.
	Decisions bool
	// Deploy is true when the person may deploy some process or decision.
	Deploy bool
	// Admin is true for administrators: the admin pages.
	Admin bool
}

// Actor is the acting user and groups.
type Actor struct {
	User   string
	Groups []string
}

// Flash is a one-time message; Kind is "ok" or "error".
type Flash struct {
	Kind    string
	Message string
}

// DashboardPage is the landing page.
type DashboardPage struct {
	Layout
	Live DashboardLive
}

// DashboardLive is the changing part of the dashboard.
type DashboardLive struct {
	Processes     []ProcessStatus
	OpenIncidents int
	OpenTasks     int
	MyTasks       int
	// OpenOffers counts manual ad-hoc regions waiting for a person to pick
	// an activity (open waits of kind offer).
	OpenOffers int
	// Restricted is true when the person may not read every process: the
	// server-wide counts of tasks and ad-hoc regions are left out and the
	// tasks card counts their own tasks only.
	Restricted bool
	// Incidents are the most recent open incidents.
	Incidents []IncidentItem
	// Nodes are the gobpm processes sharing the database, oldest first
	// (one on SQLite); left out when Restricted.
	Nodes []NodeItem
}

// NodeItem is one gobpm process of the cluster.
type NodeItem struct {
	ID          string
	Address     string
	Version     string
	StartedAt   time.Time
	HeartbeatAt time.Time
	// Self marks the node that rendered the page.
	Self bool
}

// ProcessStatus counts the instances of one process key by status.
type ProcessStatus struct {
	Key        string
	Name       string
	Latest     int
	Running    Total
	Failed     Total
	Completed  Total
	Terminated Total
	// Stuck counts the instances of this process with an open incident
	// in their call tree: in themselves or in an instance they called,
	// directly or further down.
	Stuck int
}

// Total is a count of instances as the instance list counts them: it stops
// counting somewhere (10,000), and More is true when there are more than N,
// shown as "10,000+".
type Total struct {
	N    int
	More bool
}

// String shows the count with thousands separators, "+" when it is a lower
// bound.
func (t Total) String() string {
	if t.More {
		return Thousands(t.N) + "+"
	}
	return Thousands(t.N)
}

// Paging says which page of a long list an instance page shows (its scopes
// or its tokens, paged by cursor) and links the next one.
type Paging struct {
	// Shown is how many items the page holds, Total how many there are.
	Shown int
	Total int
	// After is the cursor the page starts after ("" for the first page).
	After string
	// FirstURL leads back to the first page ("" on it); NextURL to the next
	// page ("" on the last one).
	FirstURL string
	NextURL  string
}

// Partial reports whether the page shows less than the whole list.
func (p Paging) Partial() bool {
	return p.After != "" || p.NextURL != "" || p.Shown < p.Total
}

// ProcessesPage lists the deployed process keys and offers a deployment.
type ProcessesPage struct {
	Layout
	Items []ProcessItem
	// Problems are the reasons the last upload was refused.
	Problems []DeployProblem
	// Refused is the first refused BPMN file with problems on its
	// elements, drawn beside them (nil when there is none).
	Refused *RefusedModel
}

// RefusedModel is an uploaded BPMN file a deployment refused, drawn with
// its problems marked on the elements they name.
type RefusedModel struct {
	Name string
	// XML is the file as uploaded; HasDiagram is false without BPMNDI
	// (it is then laid out in the browser).
	XML        string
	HasDiagram bool
	// State marks the problems' elements on the diagram (JSON).
	State string
}

// ProcessItem is one process key with its versions.
type ProcessItem struct {
	Key        string
	Name       string
	Latest     int
	Versions   []int
	DeployedAt time.Time
	Resource   string
}

// DeployProblem is one reason a deployment was refused.
type DeployProblem struct {
	Resource string
	Element  string
	Rule     string
	Detail   string
	// OnDiagram is true when Element is drawn on the refused model's
	// diagram: the problem links to it there.
	OnDiagram bool
}

// ProcessPage shows one definition version: diagram, counts, start form.
type ProcessPage struct {
	Layout
	Key      string
	Name     string
	Version  int
	Versions []int
	// XMLURL serves the deployed XML the diagram is drawn from.
	XMLURL string
	// HasDiagram is false when the model carries no BPMNDI layout.
	HasDiagram bool
	Live       ProcessLive
	// Start keeps what was typed into the start form when it was refused.
	Start StartForm
	// CanStart shows the start form (the start permission on this key).
	CanStart bool
	// CanMigrate links the migration page (operate on this key).
	CanMigrate bool
	// CanEdit links the modeler (the deploy permission on this key).
	CanEdit bool
	// Insight is the process's statistics and heatmaps (nil when the
	// store keeps none).
	Insight *Insight
}

// StartForm is the start form's content.
type StartForm struct {
	BusinessKey string
	Variables   string
}

// ProcessLive is the changing part of a definition page.
type ProcessLive struct {
	Elements []ElementCount
	// State is the JSON the diagram overlays are drawn from.
	State string
	// Running counts the running and failed instances of this version;
	// Elements counts over all of them.
	Running Total
}

// ElementCount is the activity on one element.
type ElementCount struct {
	NodeID string
	// Name is the element's name in the model ("" when it has none).
	Name      string
	Active    int
	Incidents int
	// ChildIncidents counts open incidents in instances called from here.
	ChildIncidents int
	// Candidates counts the activities an ad-hoc region here offers.
	Candidates int
}

// InstancesPage lists instances with filters and paging.
type InstancesPage struct {
	Layout
	Filter      InstanceFilter
	ProcessKeys []string
	// CanOperate shows the selection's cancel and retry: the person may
	// operate instances of some process (each is checked on its own).
	CanOperate bool
	Live       InstancesLive
	// CanSave shows the form that saves the current filter: the person
	// has a user name and the store keeps saved filters.
	CanSave bool
	// SavedFilters are the person's saved filters, by name.
	SavedFilters []SavedFilterItem
	// FilterQuery is the current filter's query string (no page): what a
	// save stores.
	FilterQuery string
}

// SavedFilterItem is one saved filter of the instance list: its name and
// the list with it applied.
type SavedFilterItem struct {
	Name string
	URL  string
}

// InstanceFilter is the list's query string.
type InstanceFilter struct {
	Process     string
	Version     string
	Status      string
	BusinessKey string
	Parent      string
	// Number finds an instance by its number: "#1042", "1042" or
	// "order #1042" (which also sets the process).
	Number string
	// Element keeps the instances waiting or failed at that element id.
	Element string
	// IncidentMessage keeps the instances with an open incident with
	// that message, or one starting with it when it ends in '*'.
	IncidentMessage string
	// Vars keep the instances whose top-level variables have these
	// values, each written name=value with the value as JSON
	// (orderId="A-17", amount=120), as typed.
	Vars []string
	// StartedFrom, StartedTo, EndedFrom and EndedTo are days
	// (2025-03-14, UTC), both ends included.
	StartedFrom, StartedTo string
	EndedFrom, EndedTo     string
	// Sort is the column the list is sorted by (created, number,
	// process, status, ended), largest first, or smallest first after a
	// '+'; "" is newest first.
	Sort string
	Page int
}

// InstancesLive is the list and its pager.
type InstancesLive struct {
	Rows  []InstanceItem
	Total Total
	Page  int
	// Pages is the number of pages, 0 when the total is only a lower bound
	// (Total.More): NextURL is then set while pages come back full.
	Pages    int
	PrevURL  string
	NextURL  string
	PageSize int
}

// InstanceItem is one row of the instance list.
type InstanceItem struct {
	ID string
	// Number is the instance's number among its process key's.
	Number      int64
	ProcessKey  string
	Version     int
	Status      string
	BusinessKey string
	ParentID    string
	// ParentKey and ParentNumber name the parent ("" and 0 when it is gone).
	ParentKey    string
	ParentNumber int64
	CreatedAt    time.Time
	UpdatedAt    time.Time
	EndedAt      time.Time
	// Incident: the instance has an open incident; IncidentsInTree: an
	// instance it called, directly or further down, has one.
	Incident        bool
	IncidentsInTree bool
}

// InstancePage is everything about one instance.
type InstancePage struct {
	Layout
	ID         string
	Number     int64
	ProcessKey string
	Version    int
	XMLURL     string
	HasDiagram bool
	// ScopeOptions are the open scopes the variables form can write to.
	ScopeOptions []ScopeOption
	// Variables keeps the variables form's content when it was refused.
	Variables VariablesForm
	// VarRefused is the one-variable editor the server refused, shown
	// again open with its error.
	VarRefused VarForm
	// VarOpen is the variable whose editor the page shows open (its
	// edit link's ParamVarScope and ParamVar).
	VarOpen VarForm
	// CanOperate shows the cancel button, the modify form and the
	// variables form (the operate permission on the instance's process).
	CanOperate bool
	// CanDelete shows the delete button: the instance is completed or
	// terminated and the caller has delete on its process.
	CanDelete bool
	// Modify is the modify form: what it offers and what was chosen.
	Modify ModifyForm
	Live   InstanceLive
}

// ModifyForm is the instance page's "Modify…" form: cancel the tokens at an
// element, start an element, or both (a move). A preview lists what would
// happen and asks for the confirmation.
type ModifyForm struct {
	// Active are the elements with tokens, Startable every element a
	// modification can start.
	Active, Startable []ElementOption
	// Cancel, Activate and Variables are what was chosen (element ids and
	// the JSON of the variables).
	Cancel, Activate, Variables string
	// Preview says, sentence by sentence, what the confirmation does; set
	// only on the preview.
	Preview []string
}

// ElementOption is one element a form offers.
type ElementOption struct {
	ID    string
	Label string
}

// ScopeOption is one scope the variables form offers.
type ScopeOption struct {
	ID    string
	Label string
}

// VariablesForm is the variables form's content.
type VariablesForm struct {
	ScopeID string
	JSON    string
	Local   bool
}

// InstanceLive is the changing part of the instance page.
type InstanceLive struct {
	Status      string
	BusinessKey string
	CreatedAt   time.Time
	EndedAt     time.Time
	Ended       bool
	// Trace runs from the root caller down to this instance (included, last).
	Trace []TraceItem
	// Children are the called instances with their status.
	Children []ChildItem
	// ChildIncidents are open incidents anywhere below this instance.
	ChildIncidents []IncidentItem
	// Regions are the open ad-hoc regions, nested ones too, by path.
	Regions []RegionItem
	// Scopes is the shown page of open scopes as a tree (a scope whose
	// parent is on another page sits at the top with its path).
	Scopes []ScopeNode
	// ScopePage and TrackPage say which page of scopes and of tokens is
	// shown; the tree's tokens and the element counts are the shown
	// token page's.
	ScopePage Paging
	TrackPage Paging
	// Variables are the root scope's.
	Variables []VarRow
	// Waits are the first of WaitCount open waits.
	Waits     []WaitItem
	WaitCount int
	Incidents []IncidentItem
	History   []HistoryItem
	// HistoryCut is true when only the first facts are shown.
	HistoryCut bool
	// Elements and State drive the diagram overlays.
	Elements []ElementCount
	State    string
}

// TraceItem is one instance on the call path.
type TraceItem struct {
	ID         string
	Number     int64
	ProcessKey string
	Status     string
	// CallNode is the call activity in this instance that leads to the next item.
	CallNode string
	// CallName is the call activity's name ("" when it has none).
	CallName string
	// Current marks this page's instance.
	Current bool
	// Incidents counts open incidents in this instance and below it.
	Incidents int
}

// ChildItem is one called instance.
type ChildItem struct {
	ID         string
	Number     int64
	ProcessKey string
	NodeID     string
	// NodeName is the call activity's name ("" when it has none).
	NodeName string
	Status   string
	// Incidents counts open incidents in the child and its own children.
	Incidents int
}

// RegionItem is an open ad-hoc region with what it offers, runs and has
// completed.
type RegionItem struct {
	ScopeID string
	Path    string
	NodeID  string
	// Name is the region's name in the model ("" when it has none).
	Name string
	// Within is the path of the enclosing region of a nested one.
	Within string
	// Selection is "automatic" or "manual"; Ordering "parallel" or "sequential".
	Selection  string
	Ordering   string
	Candidates []CandidateItem
	// Running and Completed count instances per inner activity.
	Running        []ActivityCount
	Completed      []ActivityCount
	RunningTotal   int
	CompletedTotal int
	// Stopped says why the region no longer routes ("" while it does).
	Stopped string
	// Router is the region's router (standard, expression, sequence,
	// job); Deciding is true while its router job awaits a worker.
	Router   string
	Deciding bool
}

// CandidateItem is an activity a manual region offers.
type CandidateItem struct {
	ActivityID string
	Name       string
}

// ActivityCount is how many times an inner activity runs or has run.
type ActivityCount struct {
	ActivityID string
	Name       string
	Count      int
}

// ScopeNode is one scope of the live scope tree.
type ScopeNode struct {
	ID     string
	Path   string
	NodeID string
	// Label names the scope for people, e.g. "approve · iteration 2 of 3".
	Label string
	// Kind is "body" for a loop or multi-instance body, "iteration" for one
	// of its iterations (Index from 1), "" otherwise.
	Kind  string
	Index int
	// Counters sum up a body's iterations ("" for other scopes).
	Counters string
	// LoopCounter is an iteration's loopCounter variable (JSON, "" if unset).
	LoopCounter string
	State       string
	Handlers    []HandlerItem
	Variables   []VarRow
	Tracks      []TrackItem
	Children    []ScopeNode
	// Root is the instance's root scope, whose variables the variables
	// panel edits (the tree shows them only).
	Root bool
}

// HandlerItem is an armed event handler.
type HandlerItem struct {
	NodeID string
	// NodeName is the handler element's name ("" when it has none).
	NodeName     string
	Kind         string
	Trigger      string
	Name         string
	Interrupting bool
}

// TrackItem is one token.
type TrackItem struct {
	ID     string
	NodeID string
	// Name is the element's name in the model ("" when it has none).
	Name  string
	State string
}

// VarItem is one variable with its JSON value.
type VarItem struct {
	Name  string
	Value string
}

// WaitItem is something the instance waits for.
type WaitItem struct {
	ID     string
	Kind   string
	NodeID string
	// NodeName is the element's name in the model ("" when it has none).
	NodeName string
	Name     string
	Assignee string
	DueAt    time.Time
	Retries  int
	Error    string
}

// IncidentKindJob is the kind of the incident of a job whose retries ran
// out (the engine's IncidentJobFailed): the only kind a retry gives retries.
const IncidentKindJob = "job-failed"

// TakesRetries reports whether a retry of the incident gives a job new
// retries; other incidents (a decision, an expression failing) just run
// the step again.
func (in IncidentItem) TakesRetries() bool { return in.Kind == IncidentKindJob }

// IncidentItem is an incident, possibly of another instance.
type IncidentItem struct {
	ID         string
	InstanceID string
	// InstanceNumber is the instance's number (0 when not read).
	InstanceNumber int64
	ProcessKey     string
	NodeID         string
	// NodeName is the element's name in the model ("" when unknown).
	NodeName  string
	Kind      string
	Message   string
	CreatedAt time.Time
	Resolved  bool
	// CanRetry shows the Retry button of an open incident (the operate
	// permission on its instance's process).
	CanRetry bool
	// RootID and RootKey name the root of the instance's call tree when
	// another instance called it (and the person may read the root).
	RootID     string
	RootKey    string
	RootNumber int64
}

// HistoryItem is one entry of the timeline: a fact told as a sentence
// (Who, Verb, the element, Rest: "ann completed «Check the claim» with 2
// variables"), with the raw facts it tells foldable beneath.
type HistoryItem struct {
	Seq       int64
	At        time.Time
	Kind      string
	NodeID    string
	ScopePath string
	// Who did it ("" when the fact names nobody); Verb is what happened,
	// before the element; NodeName the element's name ("" without a
	// name: the id is shown); Rest what follows the element.
	Who      string
	Verb     string
	NodeName string
	Rest     string
	// Raw are the facts behind the sentence: "#seq kind {detail}".
	Raw []string
	// Detail is the fact's detail in words or as JSON (compensation and
	// the like), "" when the sentence says it all.
	Detail string
	// By is who or what activated an ad-hoc activity (a person, "router",
	// "router job <type> (worker <name>)"); "" for other facts.
	By string
}

// TasksPage is the inbox of the acting user: the filtered, sorted list of
// the tasks they have or may claim, and the task they opened with its
// variables and form.
type TasksPage struct {
	Layout
	Filter TaskFilter
	// Processes are the processes of the tasks, for the filter.
	Processes []ProcessOption
	Live      TasksLive
	// Open is the task the person opened (nil: none).
	Open *TaskDetail
}

// ProcessOption is a process a filter offers.
type ProcessOption struct {
	Key  string
	Name string
}

// Task inbox filters and orders.
const (
	TasksMine       = "mine"
	TasksGroups     = "groups"
	TasksUnassigned = "unassigned"
	// TasksCompleted shows the completed tasks instead of the open ones.
	TasksCompleted = "completed"
	DueOverdue     = "overdue"
	DueToday       = "today"
	DueWeek        = "week"
	SortOldest     = ""
	SortNewest     = "newest"
	SortDue        = "due"
)

// TaskFilter is the inbox's query string: Show is "" (everything for the
// person), TasksMine, TasksGroups or TasksUnassigned; Process a process
// key; Due "", DueOverdue, DueToday or DueWeek; Sort SortOldest,
// SortNewest or SortDue; Task the opened task.
type TaskFilter struct {
	Show    string
	Process string
	Due     string
	Sort    string
	Task    string
	// Var keeps the tasks whose instance's top-level variable meets it
	// (name=value with the value as JSON, or name:op:value).
	Var string
	// Page is the page of the inbox's longer list, from 1 (0 reads as 1).
	Page int
}

// TasksLive is the inbox content.
type TasksLive struct {
	NoUser    bool
	Assigned  []TaskItem
	Claimable []TaskItem
	// AssignedTotal and ClaimableTotal count every task of each list the
	// filter keeps, on every page.
	AssignedTotal, ClaimableTotal int
	// Paged names the list the page numbers page ("assigned" with the
	// filter "mine", else "claimable"); the other list shows its first
	// page. First and Last number the paged list's tasks shown (from 1).
	Paged       string
	First, Last int
	// PrevURL and NextURL link the neighbouring pages ("" at the ends).
	PrevURL, NextURL string
	// Hidden counts the person's tasks the filter leaves out.
	Hidden int
	// Completed is the page of completed tasks the filter "completed"
	// shows (Paged "completed"), of CompletedTotal; CompletedByAnyone says
	// whether it lists everyone's completions or the person's own.
	Completed         []CompletedTaskItem
	CompletedTotal    int
	CompletedByAnyone bool
}

// TaskItem is one user task with what the acting user may do with it.
type TaskItem struct {
	ID         string
	Name       string
	NodeID     string
	InstanceID string
	// InstanceNumber is the instance's number among its process key's.
	InstanceNumber  int64
	ProcessKey      string
	ProcessName     string
	BusinessKey     string
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	CreatedAt       time.Time
	DueAt           time.Time
	// Age is how long the task has waited, in words ("3 hours").
	Age string
	// Overdue: the due date has passed.
	Overdue     bool
	CanClaim    bool
	CanUnclaim  bool
	CanComplete bool
	// OpenURL opens the task in the inbox, keeping its filter.
	OpenURL string
}

// TaskDetail is the task a person opened: its variables and the form that
// completes it.
type TaskDetail struct {
	TaskItem
	Variables []VarItem
	// FormSchema is the Camunda Form (JSON) the task is completed with:
	// the one the model links (FormID, from FormResource) or one generated
	// from the task's variables and declared outputs (Generated).
	FormSchema   string
	FormID       string
	FormResource string
	Generated    bool
	// FormData is the variables the form is filled with (JSON).
	FormData string
	// FormMissing names a linked form that is not deployed with the
	// process ("" when there is none or it was found).
	FormMissing string
	// Return is where the task's forms return (the task itself: once
	// completed, the inbox with its filter); Back closes the task.
	Return string
	Back   string
}

// IncidentsPage lists open incidents across instances, filtered, with a
// bulk retry.
type IncidentsPage struct {
	Layout
	Filter IncidentFilter
	// ProcessKeys and Kinds are what the filter form offers: the processes
	// and kinds of the open incidents.
	ProcessKeys []string
	Kinds       []string
	Live        IncidentsLive
}

// Age filters of the incidents page: open for longer than an hour, a day,
// a week.
const (
	AgeHour = "1h"
	AgeDay  = "1d"
	AgeWeek = "7d"
)

// IncidentFilter is the incidents page's query string: Process is the
// incident's instance's process, Root the process at the root of its call
// tree, Element a part of the element id, Kind the incident kind, Age one
// of the Age constants.
type IncidentFilter struct {
	Process string
	Root    string
	// Under keeps the incidents of an instance of this process or of any
	// instance it called, directly or further down (what leaves such an
	// instance stuck).
	Under   string
	Element string
	Kind    string
	Age     string
	// Message keeps the incidents with exactly this error message.
	Message string
}

// IncidentGroup is the open incidents that share one error message.
type IncidentGroup struct {
	Message string
	Count   int
	// Kinds are the incident kinds met in the group, in order.
	Kinds []string
	// URL lists the group's incidents (the page's filter plus the message).
	URL string
}

// IncidentsLive is the incident list.
type IncidentsLive struct {
	Items []IncidentItem
	// Groups are the incidents the filter keeps (its message aside) by
	// error message, the largest group first.
	Groups []IncidentGroup
	// Total counts the open incidents before the filter.
	Total int
	// CanRetry shows the bulk retry: some listed incident may be retried.
	CanRetry bool
}

// ErrorPage tells a person what went wrong.
type ErrorPage struct {
	Layout
	Status  int
	Message string
	// LoginURL is where a person who is not logged in logs in (and comes
	// back).
	LoginURL string
}

// DecisionsPage lists the deployed decision keys.
type DecisionsPage struct {
	Layout
	Items []ProcessItem
}

// DecisionPage shows one decision version drawn with dmn-js (its table and
// requirements diagram) and an evaluation form with its outcome.
type DecisionPage struct {
	Layout
	Key      string
	Name     string
	Version  int
	Versions []int
	Resource string
	// XMLURL serves the deployed DMN document.
	XMLURL string
	// Inputs are the evaluation form's fields, from the decision's table
	// inputs whose expression is a plain name.
	Inputs []DecisionInput
	// Variables keeps the JSON typed beside the fields.
	Variables string
	// Latest is true on the latest version, the one an evaluation uses.
	Latest bool
	// CanEvaluate shows the form (the start permission on the decision).
	CanEvaluate bool
	// Result is the last evaluation's outcome (nil before one).
	Result *DecisionOutcome
}

// DecisionInput is one field of the evaluation form.
type DecisionInput struct {
	Name  string
	Label string
	// Type is "number", "boolean" or "string" (from the input's typeRef).
	Type  string
	Value string
}

// DecisionOutcome is an evaluation's result.
type DecisionOutcome struct {
	Version int
	// Result is the value as JSON; Matched the ids of the matched rules.
	Result  string
	Matched []string
	// Error says why the evaluation failed ("" when it did not).
	Error string
}

// ModelerPage opens a deployed process version in the bpmn-js Modeler, with
// a panel for the engine settings of the selected element (gobpm:, zeebe:
// or camunda:, as the element has them), deploys the edited model as the
// next version and downloads it as ProcessFileName(Key, Version, true).
type ModelerPage struct {
	Layout
	Key      string
	Name     string
	Version  int
	Resource string
	// XMLURL serves the version's XML; DeployURL takes the edited model.
	XMLURL    string
	DeployURL string
	// HasDiagram is false without BPMNDI: the model is laid out first.
	HasDiagram bool
}

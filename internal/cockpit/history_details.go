package cockpit

import (
	"encoding/json"

	"github.com/gobpm/gobpm/internal/runtime"
)

// details is a history fact's detail decoded once (decodeDetails) into
// the typed detail of its kind; the members of the other kinds stay zero.
type details struct {
	// decoded reports that the detail read as its kind's type (false for
	// an empty detail, and for a kind the timeline keeps as JSON).
	decoded      bool
	Instance     instanceDetail
	Element      elementDetail
	Variable     variableDetail
	Incident     incidentDetail
	Job          jobDetail
	Task         taskDetail
	Timer        timerDetail
	Event        eventDetail
	Thrown       thrownDetail
	Call         callDetail
	Decision     decisionDetail
	Compensation compensationDetail
	AdHoc        adHocDetail
	Migration    migrationDetail
	Connector    connectorDetail
}

// instanceDetail is the detail of instance-started: the version started.
type instanceDetail struct {
	ProcessKey string `json:"processKey"`
	Version    int    `json:"version"`
}

// elementDetail is the detail of element-activated (the element's type),
// element-completed (the flow a gateway chose) and element-terminated (who
// or what cancelled it).
type elementDetail struct {
	Type string `json:"type"`
	Flow string `json:"flow"`
	By   string `json:"by"`
}

// variableDetail is the detail of variable-set: the variable and, for a
// write from outside the model, who made it.
type variableDetail struct {
	Name string `json:"name"`
	By   string `json:"by"`
}

// incidentDetail is the detail of incident-created and incident-resolved.
type incidentDetail struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	By      string `json:"by"`
}

// jobDetail is the detail of job-failed: the worker's error and the
// retries left (nil when not told).
type jobDetail struct {
	ErrorMessage string `json:"errorMessage"`
	Retries      *int   `json:"retries"`
}

// taskDetail is the detail of task-claimed and task-unclaimed: the person.
type taskDetail struct {
	User string `json:"user"`
}

// timerDetail is the detail of timer-armed: when it is due.
type timerDetail struct {
	DueAt string `json:"dueAt"`
}

// eventDetail is the detail of event-triggered: the event's kind.
type eventDetail struct {
	Kind string `json:"kind"`
}

// thrownDetail is the detail of error-thrown, escalation-thrown and
// signal-thrown.
type thrownDetail struct {
	ErrorCode  string `json:"errorCode"`
	Message    string `json:"message"`
	Escalation string `json:"escalationCode"`
	Signal     string `json:"signal"`
}

// callDetail is the detail of call-started: the version called.
type callDetail struct {
	Key     string `json:"key"`
	Version int    `json:"version"`
}

// decisionDetail is the detail of decision-evaluated.
type decisionDetail struct {
	Decision string          `json:"decision"`
	Version  int             `json:"version"`
	Matched  json.RawMessage `json:"matchedRules"`
	Error    string          `json:"error"`
}

// compensationDetail is the detail of compensation-thrown, -started and
// -completed: what is undone, by which handler, thrown by what.
type compensationDetail struct {
	Activities  []string `json:"activities"`
	ActivityRef string   `json:"activityRef"`
	Cancel      bool     `json:"cancel"`
	Wait        *bool    `json:"waitForCompletion"`
	Cause       string   `json:"cause"`
	Handler     string   `json:"handler"`
}

// adHocDetail is the detail of the ad-hoc region facts.
type adHocDetail struct {
	Router     string   `json:"router"`
	Manual     bool     `json:"manual"`
	Sequential bool     `json:"sequential"`
	Candidates []string `json:"candidates"`
	Activate   []string `json:"activate"`
	Variables  []string `json:"variables"`
	Reason     string   `json:"reason"`
	Worker     string   `json:"worker"`
	By         string   `json:"by"`
}

// migrationDetail is the detail of instance-migrated.
type migrationDetail struct {
	By          string            `json:"by"`
	FromVersion int               `json:"fromVersion"`
	ToVersion   int               `json:"toVersion"`
	Mapping     map[string]string `json:"mapping"`
}

// connectorDetail is the detail of connector-call: one HTTP call the
// REST connector made (the URL as written, secrets as placeholders).
type connectorDetail struct {
	Method     string `json:"method"`
	URL        string `json:"url"`
	Status     int    `json:"status"`
	Error      string `json:"error"`
	DurationMs int64  `json:"durationMs"`
	Attempt    int    `json:"attempt"`
}

// decodeDetails decodes a fact's detail into the typed detail of its kind.
func decodeDetails(kind string, raw json.RawMessage) details {
	var d details
	var into any
	switch kind {
	case runtime.FactInstanceStarted:
		into = &d.Instance
	case runtime.FactElementActivated, runtime.FactElementCompleted, runtime.FactElementTerminated:
		into = &d.Element
	case runtime.FactVariableSet:
		into = &d.Variable
	case runtime.FactIncidentCreated, runtime.FactIncidentResolved:
		into = &d.Incident
	case runtime.FactJobFailed:
		into = &d.Job
	case runtime.FactTaskClaimed, runtime.FactTaskUnclaimed:
		into = &d.Task
	case runtime.FactTimerArmed:
		into = &d.Timer
	case runtime.FactEventTriggered:
		into = &d.Event
	case runtime.FactErrorThrown, runtime.FactEscalationThrown, runtime.FactSignalThrown:
		into = &d.Thrown
	case runtime.FactCallStarted:
		into = &d.Call
	case runtime.FactDecisionEvaluated:
		into = &d.Decision
	case runtime.FactCompensationThrown, runtime.FactCompensationStarted, runtime.FactCompensationCompleted:
		into = &d.Compensation
	case runtime.FactRegionOpened, runtime.FactCandidates, runtime.FactAdHocActivated, runtime.FactRouterAnswered, runtime.FactRegionStopped:
		into = &d.AdHoc
	case runtime.FactInstanceMigrated:
		into = &d.Migration
	case runtime.FactConnectorCall:
		into = &d.Connector
	default:
		return d
	}
	d.decoded = json.Unmarshal(raw, into) == nil
	return d
}

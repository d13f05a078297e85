package cockpit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Fact kinds the timeline tells in words (the engine's Fact… constants;
// the cockpit reads facts as the API does).
const (
	factInstanceStarted    = "instance-started"
	factInstanceCompleted  = "instance-completed"
	factInstanceTerminated = "instance-terminated"
	factInstanceFailed     = "instance-failed"
	factInstanceModified   = "instance-modified"
	factElementActivated   = "element-activated"
	factElementCompleted   = "element-completed"
	factElementTerminated  = "element-terminated"
	factVariableSet        = "variable-set"
	factIncidentCreated    = "incident-created"
	factIncidentResolved   = "incident-resolved"
	factJobCreated         = "job-created"
	factJobFailed          = "job-failed"
	factTaskCreated        = "task-created"
	factTaskClaimed        = "task-claimed"
	factTaskUnclaimed      = "task-unclaimed"
	factTimerArmed         = "timer-armed"
	factEventTriggered     = "event-triggered"
	factErrorThrown        = "error-thrown"
	factEscalationThrown   = "escalation-thrown"
	factSignalThrown       = "signal-thrown"
	factCallStarted        = "call-started"
	factCallEnded          = "call-ended"
	factScopeOpened        = "scope-opened"
	factScopeClosed        = "scope-closed"
	factScopeCancelled     = "scope-cancelled"
	factDecisionEvaluated  = "decision-evaluated"
)

// trackStateInScope is the state of a track that hosts a scope (an
// embedded sub-process or a loop or multi-instance body) while it runs.
const trackStateInScope = "in-scope"

// factFields are the detail members the sentences read.
type factFields struct {
	Type         string `json:"type"`
	User         string `json:"user"`
	By           string `json:"by"`
	Name         string `json:"name"`
	Flow         string `json:"flow"`
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	ErrorMessage string `json:"errorMessage"`
	Retries      *int   `json:"retries"`
	DueAt        string `json:"dueAt"`
	ErrorCode    string `json:"errorCode"`
	Escalation   string `json:"escalationCode"`
	Signal       string `json:"signal"`
	Key          string `json:"key"`
	Version      int    `json:"version"`
	ProcessKey   string `json:"processKey"`
}

// historyItems tells facts as sentences. The variables a step wrote just
// before an element completed are told with the completion ("ann
// completed «Check the claim» with 2 variables"), their facts folded
// beneath it; a user task's completion names the person who had claimed
// it. names are the model's element names by id, flows its sequence
// flows (runtime.Outline).
func historyItems(facts []runtime.FactRow, names map[string]string, flows map[string]runtime.OutlineFlow) []templates.HistoryItem {
	var out []templates.HistoryItem
	claimedBy := map[string]string{} // node → who holds its task
	for i := 0; i < len(facts); i++ {
		f := facts[i]
		var d factFields
		_ = json.Unmarshal(f.Detail, &d)
		it := templates.HistoryItem{Seq: f.Seq, At: f.At, Kind: f.Kind, NodeID: f.NodeID, NodeName: names[f.NodeID],
			ScopePath: f.ScopePath, Raw: []string{rawFact(f)}, By: activatedBy(f.Kind, f.Detail)}
		if f.Kind == factVariableSet && d.By == "" {
			// Written by an element: told with its completion if one follows
			// in the same step.
			j := i
			var vars []string
			for j < len(facts) && facts[j].Kind == factVariableSet && facts[j].NodeID == f.NodeID && facts[j].At.Equal(f.At) {
				var v factFields
				_ = json.Unmarshal(facts[j].Detail, &v)
				if v.By != "" {
					break
				}
				vars = append(vars, v.Name)
				j++
			}
			if j < len(facts) && j > i && facts[j].Kind == factElementCompleted && facts[j].NodeID == f.NodeID {
				done := facts[j]
				it = templates.HistoryItem{Seq: done.Seq, At: done.At, Kind: done.Kind, NodeID: done.NodeID, NodeName: names[done.NodeID],
					ScopePath: done.ScopePath, Who: claimedBy[done.NodeID], Verb: "completed"}
				if it.Who == "" {
					it.Verb = "Completed"
				}
				it.Rest = "with " + counted(len(vars), "variable") + " (" + strings.Join(vars, ", ") + ")"
				for k := i; k <= j; k++ {
					it.Raw = append(it.Raw, rawFact(facts[k]))
				}
				delete(claimedBy, done.NodeID)
				out = append(out, it)
				i = j
				continue
			}
		}
		switch f.Kind {
		case factTaskClaimed:
			claimedBy[f.NodeID] = d.User
		case factTaskUnclaimed:
			delete(claimedBy, f.NodeID)
		case factElementCompleted:
			if who := claimedBy[f.NodeID]; who != "" {
				it.Who = who
				delete(claimedBy, f.NodeID)
			}
		}
		if !tellAdHoc(&it, f.Kind, f.Detail, names) {
			tell(&it, f, d, names, flows)
		}
		out = append(out, it)
	}
	return out
}

// tell fills the sentence of one fact, naming elements and flows by
// their names in the model.
func tell(it *templates.HistoryItem, f runtime.FactRow, d factFields, names map[string]string, flows map[string]runtime.OutlineFlow) {
	switch f.Kind {
	case factInstanceStarted:
		it.Verb = "Started"
		if d.ProcessKey != "" {
			it.Rest = d.ProcessKey + " version " + strconv.Itoa(d.Version)
		}
	case factInstanceCompleted:
		it.Verb = "The instance completed"
	case factInstanceTerminated:
		it.Verb = "The instance was terminated"
	case factInstanceFailed:
		it.Verb = "The instance failed"
	case factInstanceModified:
		it.Verb = "The instance was modified"
		it.Detail = detail(f.Detail)
	case factElementActivated:
		switch {
		case strings.HasSuffix(d.Type, "Event"):
			it.Verb = "Reached"
		case strings.HasSuffix(d.Type, "Gateway"):
			it.Verb = "Arrived at"
		default:
			it.Verb = "Started"
		}
	case factElementCompleted:
		if it.Who != "" {
			it.Verb = "completed"
		} else {
			it.Verb = "Completed"
		}
		if d.Flow != "" {
			it.Rest = "and took " + flowWords(d.Flow, names, flows)
		}
	case factElementTerminated:
		it.Verb = "Cancelled"
		if d.By != "" {
			it.Rest = "(" + d.By + ")"
		}
	case factVariableSet:
		it.Who = d.By
		if d.By == "" {
			it.Verb = "Set variable " + d.Name + " at"
		} else {
			it.Verb = "set variable " + d.Name
			it.NodeID, it.NodeName = "", ""
		}
	case factIncidentCreated:
		it.Verb = "Incident at"
		it.Rest = "— " + d.Kind + ": " + d.Message
	case factIncidentResolved:
		it.Who = d.By
		it.Verb = "resolved the incident at"
		if d.By == "" {
			it.Verb = "Resolved the incident at"
		}
	case factJobCreated:
		it.Verb = "Waits for a worker at"
	case factJobFailed:
		it.Verb = "A worker failed"
		it.Rest = "— " + d.ErrorMessage
		if d.Retries != nil {
			it.Rest += fmt.Sprintf(" (%s left)", counted(*d.Retries, "retry"))
		}
	case factTaskCreated:
		it.Verb = "Waits for a person at"
	case factTaskClaimed:
		it.Who, it.Verb = d.User, "claimed"
	case factTaskUnclaimed:
		it.Who, it.Verb = d.User, "gave back"
	case factTimerArmed:
		it.Verb = "Waits until " + d.DueAt + " at"
	case factEventTriggered:
		it.Verb = "Triggered"
		if d.Kind != "" {
			it.Rest = "(" + d.Kind + ")"
		}
	case factErrorThrown:
		it.Verb = "Error " + d.ErrorCode + " thrown at"
		if d.Message != "" {
			it.Rest = "— " + d.Message
		}
	case factEscalationThrown:
		it.Verb = "Escalation " + d.Escalation + " at"
	case factSignalThrown:
		it.Verb = "Sent signal " + d.Signal + " from"
	case factCallStarted:
		it.Verb = "Called " + d.Key + " version " + strconv.Itoa(d.Version) + " from"
	case factCallEnded:
		it.Verb = "The call ended at"
	case factScopeOpened:
		it.Verb = "Entered"
	case factScopeClosed:
		it.Verb = "Left"
	case factScopeCancelled:
		it.Verb = "Cancelled the scope of"
	case factDecisionEvaluated:
		var dd struct {
			Decision string          `json:"decision"`
			Version  int             `json:"version"`
			Matched  json.RawMessage `json:"matchedRules"`
			Error    string          `json:"error"`
		}
		_ = json.Unmarshal(f.Detail, &dd)
		it.Verb = "Evaluated decision " + dd.Decision + " version " + strconv.Itoa(dd.Version) + " at"
		switch {
		case dd.Error != "":
			it.Rest = "— failed: " + dd.Error
		default:
			it.Rest = "— matched rules: " + matchedRules(dd.Matched)
		}
	default:
		it.Verb = strings.ReplaceAll(f.Kind, "-", " ")
		if it.NodeID != "" {
			it.Verb += " at"
		}
		it.Detail = factDetail(f.Kind, f.Detail, names)
	}
}

// matchedRules names the rules a decision matched (the ids its fact
// lists), "none" for none.
func matchedRules(raw json.RawMessage) string {
	var ids []string
	if json.Unmarshal(raw, &ids) != nil {
		return detail(raw)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// rawFact is a fact as the foldable detail shows it.
func rawFact(f runtime.FactRow) string {
	s := "#" + strconv.FormatInt(f.Seq, 10) + " " + f.Kind
	if f.NodeID != "" {
		s += " " + f.NodeID
	}
	if d := detail(f.Detail); d != "" {
		s += " " + d
	}
	return s
}

// counted counts things in words: "1 variable", "2 variables", "0 retries".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// pathTaken is the path an instance took, from its history, for the
// diagram: the completed elements, the elements reached, the flows
// gateways chose and the gateways that recorded their choice.
type pathTaken struct {
	Completed []string `json:"completed"`
	Reached   []string `json:"reached"`
	Flows     []string `json:"flows"`
	Decided   []string `json:"decided"`
}

// pathOf reads the path taken from facts.
func pathOf(facts []runtime.FactRow) *pathTaken {
	completed, reached, flows, decided := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range facts {
		if f.NodeID == "" {
			continue
		}
		switch f.Kind {
		case factElementCompleted:
			completed[f.NodeID] = true
			var d factFields
			if json.Unmarshal(f.Detail, &d) == nil && d.Flow != "" {
				flows[d.Flow], decided[f.NodeID] = true, true
			}
		case factElementActivated:
			reached[f.NodeID] = true
		}
	}
	return &pathTaken{Completed: setList(completed), Reached: setList(reached), Flows: setList(flows), Decided: setList(decided)}
}

// setList is a set's members in order.
func setList(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tokenNodes returns the element each token stands on, for counting: a
// track that hosts a loop or multi-instance body is left out, since the
// body's iterations are the tokens there (a body with 2 active iterations
// shows 2, not 3). scopes are the known open scopes.
func tokenNodes(tracks []runtime.TrackView, scopes []runtime.ScopeView) []string {
	bodies := map[[2]string]bool{} // (parent scope, node) of every body
	for _, s := range scopes {
		if s.Kind == "body" {
			bodies[[2]string{s.ParentID, s.NodeID}] = true
		}
	}
	out := make([]string, 0, len(tracks))
	for _, t := range tracks {
		if t.State == trackStateInScope && bodies[[2]string{t.ScopeID, t.NodeID}] {
			continue
		}
		out = append(out, t.NodeID)
	}
	return out
}

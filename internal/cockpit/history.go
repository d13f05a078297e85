package cockpit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// trackStateInScope is the state of a track that hosts a scope (an
// embedded sub-process or a loop or multi-instance body) while it runs.
const trackStateInScope = "in-scope"

// historyItems tells facts as sentences. The variables a step wrote just
// before an element completed are told with the completion ("ann
// completed «Check the claim» with 2 variables"), their facts folded
// beneath it; a user task's completion names the person who had claimed
// it. names are the model's element names by id, flows its sequence
// flows (runtime.Outline).
func historyItems(facts []runtime.FactRow, names map[string]string, flows map[string]runtime.OutlineFlow) []templates.HistoryItem {
	var out []templates.HistoryItem
	claimedBy := map[string]string{} // node → who holds its task
	all := make([]details, len(facts))
	for i, f := range facts {
		all[i] = decodeDetails(f.Kind, f.Detail)
	}
	for i := 0; i < len(facts); i++ {
		f, d := facts[i], all[i]
		it := templates.HistoryItem{Seq: f.Seq, At: f.At, Kind: f.Kind, NodeID: f.NodeID, NodeName: names[f.NodeID],
			ScopePath: f.ScopePath, Raw: []string{rawFact(f)}, By: activatedBy(f.Kind, d)}
		if f.Kind == runtime.FactVariableSet && d.Variable.By == "" {
			// Written by an element: told with its completion if one follows
			// in the same step.
			j := i
			var vars []string
			for j < len(facts) && facts[j].Kind == runtime.FactVariableSet && facts[j].NodeID == f.NodeID && facts[j].At.Equal(f.At) {
				if all[j].Variable.By != "" {
					break
				}
				vars = append(vars, all[j].Variable.Name)
				j++
			}
			if j < len(facts) && j > i && facts[j].Kind == runtime.FactElementCompleted && facts[j].NodeID == f.NodeID {
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
		case runtime.FactTaskClaimed:
			claimedBy[f.NodeID] = d.Task.User
		case runtime.FactTaskUnclaimed:
			delete(claimedBy, f.NodeID)
		case runtime.FactElementCompleted:
			if who := claimedBy[f.NodeID]; who != "" {
				it.Who = who
				delete(claimedBy, f.NodeID)
			}
		}
		if !tellAdHoc(&it, f, d, names) {
			tell(&it, f, d, names, flows)
		}
		out = append(out, it)
	}
	return out
}

// connectorWords tells an HTTP call of the REST connector: "Called GET
// https://… from" the task, "— 200 OK in 120 ms" (or "— no answer: …"),
// and the attempt after the first.
func connectorWords(c connectorDetail) (verb, rest string) {
	verb = "Called " + c.Method + " " + c.URL + " from"
	switch {
	case c.Status != 0:
		rest = "— " + strconv.Itoa(c.Status)
		if t := http.StatusText(c.Status); t != "" {
			rest += " " + t
		}
	case c.Error != "":
		rest = "— no answer: " + c.Error
	default:
		rest = "— no answer"
	}
	rest += " in " + callDuration(c.DurationMs)
	if c.Attempt > 1 {
		rest += fmt.Sprintf(" (attempt %d)", c.Attempt)
	}
	return verb, rest
}

// callDuration words a call's duration: milliseconds below ten seconds,
// else seconds.
func callDuration(ms int64) string {
	if ms < 10000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

// tell fills the sentence of one fact, naming elements and flows by
// their names in the model.
func tell(it *templates.HistoryItem, f runtime.FactRow, d details, names map[string]string, flows map[string]runtime.OutlineFlow) {
	switch f.Kind {
	case runtime.FactInstanceStarted:
		it.Verb = "Started"
		if d.Instance.ProcessKey != "" {
			it.Rest = d.Instance.ProcessKey + " version " + strconv.Itoa(d.Instance.Version)
		}
	case runtime.FactInstanceCompleted:
		it.Verb = "The instance completed"
	case runtime.FactInstanceTerminated:
		it.Verb = "The instance was terminated"
	case runtime.FactInstanceFailed:
		it.Verb = "The instance failed"
	case runtime.FactInstanceModified:
		it.Verb = "The instance was modified"
		it.Detail = detail(f.Detail)
	case runtime.FactElementActivated:
		switch {
		case strings.HasSuffix(d.Element.Type, "Event"):
			it.Verb = "Reached"
		case strings.HasSuffix(d.Element.Type, "Gateway"):
			it.Verb = "Arrived at"
		default:
			it.Verb = "Started"
		}
	case runtime.FactElementCompleted:
		if it.Who != "" {
			it.Verb = "completed"
		} else {
			it.Verb = "Completed"
		}
		if d.Element.Flow != "" {
			it.Rest = "and took " + flowWords(d.Element.Flow, names, flows)
		}
	case runtime.FactElementTerminated:
		it.Verb = "Cancelled"
		if d.Element.By != "" {
			it.Rest = "(" + d.Element.By + ")"
		}
	case runtime.FactVariableSet:
		it.Who = d.Variable.By
		if d.Variable.By == "" {
			it.Verb = "Set variable " + d.Variable.Name + " at"
		} else {
			it.Verb = "set variable " + d.Variable.Name
			it.NodeID, it.NodeName = "", ""
		}
	case runtime.FactIncidentCreated:
		it.Verb = "Incident at"
		it.Rest = "— " + d.Incident.Kind + ": " + d.Incident.Message
	case runtime.FactIncidentResolved:
		it.Who = d.Incident.By
		it.Verb = "resolved the incident at"
		if d.Incident.By == "" {
			it.Verb = "Resolved the incident at"
		}
	case runtime.FactJobCreated:
		it.Verb = "Waits for a worker at"
	case runtime.FactConnectorCall:
		it.Verb, it.Rest = connectorWords(d.Connector)
	case runtime.FactJobFailed:
		it.Verb = "A worker failed"
		it.Rest = "— " + d.Job.ErrorMessage
		if d.Job.Retries != nil {
			it.Rest += fmt.Sprintf(" (%s left)", counted(*d.Job.Retries, "retry"))
		}
	case runtime.FactTaskCreated:
		it.Verb = "Waits for a person at"
	case runtime.FactTaskClaimed:
		it.Who, it.Verb = d.Task.User, "claimed"
	case runtime.FactTaskUnclaimed:
		it.Who, it.Verb = d.Task.User, "gave back"
	case runtime.FactTimerArmed:
		it.Verb = "Waits until " + d.Timer.DueAt + " at"
	case runtime.FactEventTriggered:
		it.Verb = "Triggered"
		if d.Event.Kind != "" {
			it.Rest = "(" + d.Event.Kind + ")"
		}
	case runtime.FactErrorThrown:
		it.Verb = "Error " + d.Thrown.ErrorCode + " thrown at"
		if d.Thrown.Message != "" {
			it.Rest = "— " + d.Thrown.Message
		}
	case runtime.FactEscalationThrown:
		it.Verb = "Escalation " + d.Thrown.Escalation + " at"
	case runtime.FactSignalThrown:
		it.Verb = "Sent signal " + d.Thrown.Signal + " from"
	case runtime.FactCallStarted:
		it.Verb = "Called " + d.Call.Key + " version " + strconv.Itoa(d.Call.Version) + " from"
	case runtime.FactCallEnded:
		it.Verb = "The call ended at"
	case runtime.FactScopeOpened:
		it.Verb = "Entered"
	case runtime.FactScopeClosed:
		it.Verb = "Left"
	case runtime.FactScopeCancelled:
		it.Verb = "Cancelled the scope of"
	case runtime.FactDecisionEvaluated:
		dd := d.Decision
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
		it.Detail = compensationWords(f.Kind, f.Detail, d, names)
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
		case runtime.FactElementCompleted:
			completed[f.NodeID] = true
			if d := decodeDetails(f.Kind, f.Detail); d.decoded && d.Element.Flow != "" {
				flows[d.Element.Flow], decided[f.NodeID] = true, true
			}
		case runtime.FactElementActivated:
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

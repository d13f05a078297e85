package camunda7

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Events is what POST /message and POST /signal need from the runtime;
// *runtime.Runtime implements it.
type Events interface {
	// CorrelateMatching delivers a message by Camunda 7's rule: ECONFLICT
	// when more than one matches without All, ENOTFOUND when none does.
	CorrelateMatching(ctx context.Context, m runtime.MessageMatch) ([]runtime.MessageDelivery, error)
	// BroadcastSignal triggers every wait for the signal and returns how
	// many.
	BroadcastSignal(ctx context.Context, name string, vars map[string]any) (int, error)
	// Instance returns a snapshot of an instance; ENOTFOUND if absent.
	Instance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
}

// TypeMismatchingCorrelation is the exception type of a message that
// matches nothing, or more than one execution without all.
const TypeMismatchingCorrelation = "MismatchingMessageCorrelationException"

// messageBody is POST /message's body (Camunda 7's
// CorrelationMessageDto).
type messageBody struct {
	MessageName              string                `json:"messageName"`
	BusinessKey              string                `json:"businessKey"`
	ProcessInstanceID        string                `json:"processInstanceId"`
	TenantID                 string                `json:"tenantId"`
	WithoutTenantID          bool                  `json:"withoutTenantId"`
	CorrelationKeys          map[string]TypedValue `json:"correlationKeys"`
	LocalCorrelationKeys     map[string]TypedValue `json:"localCorrelationKeys"`
	ProcessVariables         map[string]TypedValue `json:"processVariables"`
	ProcessVariablesLocal    map[string]TypedValue `json:"processVariablesLocal"`
	All                      bool                  `json:"all"`
	ResultEnabled            bool                  `json:"resultEnabled"`
	VariablesInResultEnabled bool                  `json:"variablesInResultEnabled"`
}

// Execution is the execution of a correlation result; gobpm has no
// executions below the instance, so its id is the instance's.
type Execution struct {
	ID                string  `json:"id"`
	ProcessInstanceID string  `json:"processInstanceId"`
	Ended             bool    `json:"ended"`
	TenantID          *string `json:"tenantId"`
}

// CorrelationResult is one entry of POST /message's result (Camunda 7's
// MessageCorrelationResultWithVariableDto).
type CorrelationResult struct {
	ResultType      string                `json:"resultType"`
	Execution       *Execution            `json:"execution"`
	ProcessInstance *ProcessInstance      `json:"processInstance"`
	Variables       map[string]TypedValue `json:"variables,omitempty"`
}

// correlate handles POST /message: the message reaches the waits of the
// instances its businessKey, processInstanceId and correlationKeys
// select, else a message start event; exactly one unless all (400
// MismatchingMessageCorrelationException saying how many matched). It
// answers 204, or the results with resultEnabled.
func (h *handler) correlate(w http.ResponseWriter, r *http.Request) error {
	var body messageBody
	if err := h.readBody(r, &body); err != nil {
		return err
	}
	switch {
	case body.MessageName == "":
		return invalid("messageName is required")
	case body.TenantID != "":
		return invalid(fmt.Sprintf("tenantId %q: gobpm has no tenants", body.TenantID))
	case len(body.LocalCorrelationKeys) > 0:
		return invalid("localCorrelationKeys: gobpm correlates by the instance's top-level variables (correlationKeys) only")
	case len(body.ProcessVariablesLocal) > 0:
		return invalid("processVariablesLocal: gobpm writes a message's variables by its write rule; send processVariables")
	}
	keys, err := FromTypedMap(body.CorrelationKeys)
	if err != nil {
		return err
	}
	vars, err := FromTypedMap(body.ProcessVariables)
	if err != nil {
		return err
	}
	got, err := h.svc.CorrelateMatching(r.Context(), runtime.MessageMatch{Name: body.MessageName, BusinessKey: body.BusinessKey,
		InstanceID: runtime.InstanceID(body.ProcessInstanceID), CorrelationKeys: keys, Variables: vars, All: body.All})
	if code := runtime.ErrorCode(err); code == runtime.ENOTFOUND || code == runtime.ECONFLICT {
		return &Error{Status: http.StatusBadRequest, Type: TypeMismatchingCorrelation, Msg: messageOf(err)}
	}
	if err != nil {
		return err
	}
	if !body.ResultEnabled {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	out := make([]CorrelationResult, 0, len(got))
	for _, d := range got {
		view, err := h.svc.Instance(r.Context(), d.InstanceID)
		if err != nil {
			return fmt.Errorf("camunda7: read instance %s after a message: %w", d.InstanceID, err)
		}
		pi := toProcessInstance(r, view.InstanceRow)
		res := CorrelationResult{ResultType: "Execution", Execution: &Execution{ID: pi.ID, ProcessInstanceID: pi.ID, Ended: pi.Ended}}
		if d.Started {
			res = CorrelationResult{ResultType: "ProcessDefinition", ProcessInstance: &pi}
		}
		if body.VariablesInResultEnabled {
			if res.Variables, err = ToTypedMap(view.Variables); err != nil {
				return err
			}
			if res.Variables == nil {
				res.Variables = map[string]TypedValue{}
			}
		}
		out = append(out, res)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// signalBody is POST /signal's body (Camunda 7's SignalDto).
type signalBody struct {
	Name            string                `json:"name"`
	ExecutionID     string                `json:"executionId"`
	Variables       map[string]TypedValue `json:"variables"`
	TenantID        string                `json:"tenantId"`
	WithoutTenantID bool                  `json:"withoutTenantId"`
}

// signal handles POST /signal: {name, variables}; every wait for the
// signal and every signal start event is triggered. 204.
func (h *handler) signal(w http.ResponseWriter, r *http.Request) error {
	var body signalBody
	if err := h.readBody(r, &body); err != nil {
		return err
	}
	switch {
	case body.Name == "":
		return invalid("name is required")
	case body.ExecutionID != "":
		return invalid("executionId: gobpm broadcasts a signal to every instance waiting for it")
	case body.TenantID != "":
		return invalid(fmt.Sprintf("tenantId %q: gobpm has no tenants", body.TenantID))
	}
	vars, err := FromTypedMap(body.Variables)
	if err != nil {
		return err
	}
	if _, err := h.svc.BroadcastSignal(r.Context(), body.Name, vars); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

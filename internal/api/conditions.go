package api

import (
	"errors"
	"net/http"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// ConditionalStarts is the answer of POST /api/v1/conditions/evaluate: the
// instances the call started, each as GET /api/v1/instances/{id} shows it
// (empty when no condition held).
type ConditionalStarts struct {
	Items []Instance `json:"items"`
}

// conditionsRequest is the body of POST /api/v1/conditions/evaluate:
// {variables?, businessKey?, processKey?, version?}.
type conditionsRequest struct {
	bodyMembers
	Variables   map[string]any
	BusinessKey string
	ProcessKey  string
	// Version is 0 (the latest versions) when the body has none.
	Version int
}

// Validate decodes and checks variables, businessKey, processKey and
// version, in that order.
func (q *conditionsRequest) Validate() error {
	var err error
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	if q.BusinessKey, err = stringField(q.members, "businessKey"); err != nil {
		return err
	}
	if q.ProcessKey, err = stringField(q.members, "processKey"); err != nil {
		return err
	}
	q.Version, err = positiveIntField(q.members, "version")
	return err
}

// evaluateConditions handles POST /api/v1/conditions/evaluate
// (conditionsRequest). Every conditional
// start event of the latest versions (or of the version named) is evaluated
// against the variables, and an instance starts at each whose condition
// holds. Without processKey only the processes the caller may start are
// evaluated; the others are skipped unseen. With it, start on that process
// is checked here (403).
func (s *server) evaluateConditions(w http.ResponseWriter, r *http.Request) error {
	var q conditionsRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	req := runtime.ConditionsRequest{Variables: vars(q.Variables), BusinessKey: q.BusinessKey, ProcessKey: q.ProcessKey, Version: q.Version}
	ctx := r.Context()
	if req.ProcessKey != "" {
		if err := check(ctx, auth.PermStart, auth.KindProcess, req.ProcessKey); err != nil {
			return err
		}
	} else {
		req.Startable = func(key string) bool { return check(ctx, auth.PermStart, auth.KindProcess, key) == nil }
	}
	views, err := s.svc.EvaluateConditions(ctx, req)
	if errors.Is(err, runtime.ErrConditionFailed) {
		detail := err.Error()
		var re *runtime.Error
		if errors.As(err, &re) {
			detail = re.Message // it names the process and the start event
		}
		return errorf(kindConditionFailed, "variables", detail)
	}
	if err != nil {
		return err
	}
	out := ConditionalStarts{Items: make([]Instance, 0, len(views))}
	for _, v := range views {
		body, err := s.instanceBody(r, v)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, body)
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

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

// evaluateConditions handles POST /api/v1/conditions/evaluate:
// {variables?, businessKey?, processKey?, version?}. Every conditional
// start event of the latest versions (or of the version named) is evaluated
// against the variables, and an instance starts at each whose condition
// holds. Without processKey only the processes the caller may start are
// evaluated; the others are skipped unseen. With it, start on that process
// is checked here (403).
func (s *server) evaluateConditions(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	req := runtime.ConditionsRequest{}
	if req.Variables, err = objectField(members, "variables"); err != nil {
		return err
	}
	req.Variables = vars(req.Variables)
	if req.BusinessKey, err = stringField(members, "businessKey"); err != nil {
		return err
	}
	if req.ProcessKey, err = stringField(members, "processKey"); err != nil {
		return err
	}
	if req.Version, err = positiveIntField(members, "version"); err != nil {
		return err
	}
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

package api

import (
	"errors"
	"math"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// listDecisions handles GET /api/v1/decisions: the latest version of each
// decision key.
func (s *server) listDecisions(w http.ResponseWriter, r *http.Request) error {
	defs, err := s.svc.Decisions(r.Context())
	if err != nil {
		return err
	}
	readable := readFilter(r, auth.KindDecision)
	out := List[Decision]{Items: make([]Decision, 0, len(defs))}
	for _, d := range defs {
		if readable(d.Key) {
			out.Items = append(out.Items, toDecision(d))
		}
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// listDecisionVersions handles GET /api/v1/decisions/{key}/versions.
func (s *server) listDecisionVersions(w http.ResponseWriter, r *http.Request) error {
	defs, err := s.svc.DecisionVersions(r.Context(), chi.URLParam(r, "key"))
	if err != nil {
		return err
	}
	out := List[DecisionVersion]{Items: make([]DecisionVersion, 0, len(defs))}
	for _, d := range defs {
		out.Items = append(out.Items, DecisionVersion{Decision: toDecision(d), DeploymentID: d.DeploymentID})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// decisionXML handles GET /api/v1/decisions/{key}/versions/{version}/xml:
// the deployed DMN document the version was registered from, byte for byte.
func (s *server) decisionXML(w http.ResponseWriter, r *http.Request) error {
	v, err := versionParam(r)
	if err != nil {
		return err
	}
	def, err := s.svc.DecisionDefinition(r.Context(), chi.URLParam(r, "key"), v)
	if err != nil {
		return err
	}
	writeDocument(w, def.XML)
	return nil
}

// evaluateRequest is the body of POST /api/v1/decisions/{key}/evaluate:
// {variables?, version?}.
type evaluateRequest struct {
	bodyMembers
	Variables map[string]any
	// Version is 0 (the latest) when the body has none.
	Version int
}

// Validate decodes and checks variables and version, in that order.
func (q *evaluateRequest) Validate() error {
	var err error
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	version, _, err := intField(q.members, "version", 1, math.MaxInt32)
	q.Version = int(version)
	return err
}

// evaluateDecision handles POST /api/v1/decisions/{key}/evaluate
// (evaluateRequest) → the result of that version (the latest when
// absent) with the ids of the rules that matched; an unknown version is
// 404. A failed evaluation (e.g. a UNIQUE table with two matches)
// is 422 decision-failed with the reasons in detail.
func (s *server) evaluateDecision(w http.ResponseWriter, r *http.Request) error {
	var q evaluateRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	key := chi.URLParam(r, "key")
	res, err := s.svc.EvaluateDecision(r.Context(), key, q.Version, vars(q.Variables))
	if err != nil {
		if runtime.ErrorCode(err) == runtime.EINVALID {
			return decisionFailed(err)
		}
		return err
	}
	out := DecisionEvaluation{Key: res.Key, Version: res.Version, Result: res.Result, MatchedRules: res.MatchedRules}
	if out.MatchedRules == nil {
		out.MatchedRules = []string{}
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// decisionFailed turns a failed evaluation into a decision-failed problem
// whose detail is the runtime's message (it names the decision and why).
func decisionFailed(err error) error {
	field := ""
	var re *runtime.Error
	if errors.As(err, &re) {
		field = re.Field
	}
	return errorf(kindDecisionFailed, field, err.Error())
}

package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gobpm/gobpm/internal/connector/webhook"
	"github.com/gobpm/gobpm/internal/runtime"
)

// problemTypeBase prefixes every problem type URI. The URIs are identifiers,
// stable across releases; clients branch on them, not on titles or details.
const problemTypeBase = "https://gobpm.dev/problems/"

// contentTypeProblem is the media type of every error response (RFC 9457).
const contentTypeProblem = "application/problem+json"

// statusClientClosed is the non-standard status logged for a request whose
// client went away before the answer.
const statusClientClosed = 499

// kind is one row of the error table: an HTTP status with its problem type.
type kind struct {
	status int
	slug   string
	title  string
}

// The error table. This is the one place that decides which status and which
// problem type an error gets; handlers only pick a row (or pass a runtime
// error, whose code picks it through codeKinds).
var (
	kindMalformedJSON        = kind{http.StatusBadRequest, "malformed-json", "Malformed JSON"}
	kindInvalidRequest       = kind{http.StatusBadRequest, "invalid-request", "Invalid request"}
	kindUnauthorized         = kind{http.StatusUnauthorized, "unauthorized", "Unauthorized"}
	kindForbidden            = kind{http.StatusForbidden, "forbidden", "Forbidden"}
	kindNotFound             = kind{http.StatusNotFound, "not-found", "Not found"}
	kindMethodNotAllowed     = kind{http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed"}
	kindConflict             = kind{http.StatusConflict, "conflict", "Conflict"}
	kindPayloadTooLarge      = kind{http.StatusRequestEntityTooLarge, "payload-too-large", "Payload too large"}
	kindTooManyRequests      = kind{http.StatusTooManyRequests, "too-many-requests", "Too many requests"}
	kindUnavailable          = kind{http.StatusServiceUnavailable, "unavailable", "Service unavailable"}
	kindHeaderTooLarge       = kind{http.StatusRequestHeaderFieldsTooLarge, "header-too-large", "Request header fields too large"}
	kindUnsupportedMediaType = kind{http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type"}
	kindInvalidModel         = kind{http.StatusUnprocessableEntity, "invalid-model", "Invalid model"}
	kindDecisionFailed       = kind{http.StatusUnprocessableEntity, "decision-failed", "Decision failed"}
	kindConditionFailed      = kind{http.StatusUnprocessableEntity, "condition-failed", "Condition failed"}
	kindInternal             = kind{http.StatusInternalServerError, "internal", "Internal server error"}
	// kindClientClosed is for the log only: the client has gone and never
	// sees the answer (nginx's 499 convention).
	kindClientClosed = kind{statusClientClosed, "client-closed-request", "Client closed request"}
)

// codeKinds maps runtime error codes to rows of the error table. An unknown
// code is internal.
var codeKinds = map[string]kind{
	runtime.ENOTFOUND:  kindNotFound,
	runtime.ECONFLICT:  kindConflict,
	runtime.EINVALID:   kindInvalidRequest,
	runtime.EFORBIDDEN: kindForbidden,
	runtime.EINTERNAL:  kindInternal,
}

// webhookKinds maps the codes of a refused webhook request to rows of the
// error table.
var webhookKinds = map[webhook.Code]kind{
	webhook.CodeNotFound:         kindNotFound,
	webhook.CodeMethodNotAllowed: kindMethodNotAllowed,
	webhook.CodeUnauthorized:     kindUnauthorized,
	webhook.CodeTooLarge:         kindPayloadTooLarge,
	webhook.CodeRateLimited:      kindTooManyRequests,
	webhook.CodeInvalid:          kindInvalidRequest,
}

// Problem is an RFC 9457 problem details document, the body of every error
// response, with the gobpm extension members.
type Problem struct {
	// Type is a stable URI naming the kind of problem, e.g.
	// https://gobpm.dev/problems/not-found.
	Type string `json:"type"`
	// Title is a short human summary of Type.
	Title string `json:"title"`
	// Status repeats the HTTP status code.
	Status int `json:"status"`
	// Detail explains this occurrence to a human.
	Detail string `json:"detail"`
	// Instance is the request path the problem occurred on.
	Instance string `json:"instance,omitempty"`
	// RequestID is the X-Request-Id of the request, for finding it in the server log.
	RequestID string `json:"requestId,omitempty"`
	// Field names the offending request field or parameter, if any.
	Field string `json:"field,omitempty"`
	// Errors lists every problem of a refused deployment (invalid-model only).
	Errors []ModelError `json:"errors,omitempty"`
	// MigrationProblems and Instances explain a refused migration: the
	// plan's own problems and every selected instance with its problems.
	MigrationProblems []MigrationProblem       `json:"problems,omitempty"`
	Instances         []InstanceMigrationCheck `json:"instances,omitempty"`
	// UnlistedInstances counts the instances of a refused migration that
	// Instances leaves out: the caller may not read their process.
	UnlistedInstances int `json:"unlistedInstances,omitempty"`
	// Refused lists what a refused deployment's models reach beyond the
	// deployer's rights (forbidden only).
	Refused []ReachRefusal `json:"refused,omitempty"`
}

// ReachRefusal is one thing a refused deployment's model reaches that its
// deployer may not reach.
type ReachRefusal struct {
	// Resource is the uploaded file, Process the reaching process's key,
	// Element the id of the reaching element.
	Resource string `json:"resource"`
	Process  string `json:"process"`
	Element  string `json:"element"`
	// Reaches is what is reached: process, decision, job-type or signal;
	// Key its key, job type or signal name.
	Reaches string `json:"reaches"`
	Key     string `json:"key"`
	// Missing are the rights the deployer lacks ("start process payroll").
	Missing []string `json:"missing"`
	// Detail explains the refusal to a human.
	Detail string `json:"detail"`
}

// ModelError is one reason a deployment was refused.
type ModelError struct {
	// Element is the id of the offending BPMN or DMN element.
	Element string `json:"element"`
	// Rule is the stable code of the broken rule.
	Rule string `json:"rule"`
	// Detail explains the problem to a human.
	Detail string `json:"detail"`
	// Resource is the uploaded file the element is in.
	Resource string `json:"resource"`
}

// apiError is an error detected by the api package itself (bad parameters,
// bodies, media types). It carries its row of the error table.
type apiError struct {
	kind   kind
	detail string
	field  string
}

func (e *apiError) Error() string { return e.detail }

// errorf builds an apiError of kind k.
func errorf(k kind, field, detail string) *apiError {
	return &apiError{kind: k, field: field, detail: detail}
}

// problemFor turns any error into a problem document. It reports whether the
// error is internal, i.e. a fault of the server that must be logged.
func problemFor(err error) (p Problem, internal bool) {
	var (
		ae *apiError
		de *runtime.DeploymentError
		me *http.MaxBytesError
		re *runtime.Error
		rr *runtime.ReachError
		we *webhook.Error
	)
	if p, ok := refusedMigrationProblem(err); ok {
		return p, false
	}
	switch {
	case errors.As(err, &ae):
		return newProblem(ae.kind, ae.detail, ae.field), ae.kind == kindInternal
	case errors.As(err, &de):
		p := newProblem(kindInvalidModel, deploymentDetail(de), "")
		p.Errors = make([]ModelError, 0, len(de.Problems))
		for _, pr := range de.Problems {
			p.Errors = append(p.Errors, ModelError{Element: pr.Element, Rule: pr.Rule, Detail: pr.Detail, Resource: pr.Resource})
		}
		return p, false
	case errors.As(err, &rr):
		p := newProblem(kindForbidden, reachDetail(rr), "")
		for _, f := range rr.Refusals {
			p.Refused = append(p.Refused, ReachRefusal{Resource: f.Resource, Process: f.Process, Element: f.Element,
				Reaches: string(f.Kind), Key: f.Key, Missing: f.Missing, Detail: f.Detail})
		}
		return p, false
	case errors.As(err, &we):
		p := newProblem(webhookKinds[we.Code], we.Detail, "")
		if p.Status == 0 {
			p = newProblem(kindInvalidRequest, we.Detail, "")
		}
		return p, false
	case errors.As(err, &me):
		return newProblem(kindPayloadTooLarge, "request body exceeds the limit of "+formatBytes(me.Limit), ""), false
	}
	k, ok := codeKinds[runtime.ErrorCode(err)]
	if !ok {
		k = kindInternal
	}
	if k == kindInternal {
		// Never leak internal causes to clients; the log has them.
		return newProblem(kindInternal, "the server failed to handle the request; the server log has the cause under this request id", ""), true
	}
	field := ""
	if errors.As(err, &re) {
		field = re.Field
	}
	return newProblem(k, err.Error(), field), false
}

func newProblem(k kind, detail, field string) Problem {
	return Problem{Type: problemTypeBase + k.slug, Title: k.title, Status: k.status, Detail: detail, Field: field}
}

func deploymentDetail(de *runtime.DeploymentError) string {
	switch n := len(de.Problems); n {
	case 0:
		return "the deployment was refused"
	case 1:
		return "the deployment was refused: 1 problem (see errors)"
	default:
		return "the deployment was refused: " + strconv.Itoa(n) + " problems (see errors)"
	}
}

func reachDetail(rr *runtime.ReachError) string {
	if len(rr.Refusals) == 1 {
		return "the deployment reaches beyond the deployer's rights; nothing was registered: " + rr.Refusals[0].Detail
	}
	return "the deployment reaches beyond the deployer's rights in " + strconv.Itoa(len(rr.Refusals)) + " places (see refused); nothing was registered"
}

// writeError answers err as problem+json. Internal errors are logged here, and
// only here: attached to the request's log line when the logging middleware
// runs, logged directly otherwise.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	p, internal := problemFor(err)
	if internal {
		if st := logStateFrom(r.Context()); st != nil {
			st.err = err
		} else {
			s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
				slog.String(keyRequestID, RequestID(r.Context())), slog.String(keyPath, r.URL.Path), slog.Any(keyError, err))
		}
	}
	writeProblem(w, r, p)
}

// writeProblem writes p with its status.
func writeProblem(w http.ResponseWriter, r *http.Request, p Problem) {
	p.Instance = r.URL.Path
	p.RequestID = RequestID(r.Context())
	body, err := json.Marshal(p)
	if err != nil {
		// A Problem always marshals; keep a fallback anyway.
		body = []byte(`{"type":"` + problemTypeBase + `internal","title":"Internal server error","status":500,"detail":"problem encoding failed"}`)
		p.Status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", contentTypeProblem)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="gobpm"`)
	}
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}

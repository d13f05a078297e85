package camunda8

import (
	"encoding/json"
	"net/http"
)

// Problem is Camunda 8's error body: an RFC 9457 problem detail, served as
// application/problem+json. Title is the rejection's name as Camunda 8
// answers it (NOT_FOUND, INVALID_ARGUMENT, INVALID_STATE, FORBIDDEN,
// UNAUTHORIZED…).
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Instance string `json:"instance,omitempty"`
}

// Error implements error.
func (p *Problem) Error() string { return p.Title + ": " + p.Detail }

// The titles of Camunda 8's problems.
const (
	TitleNotFound        = "NOT_FOUND"
	TitleInvalidArgument = "INVALID_ARGUMENT"
	TitleInvalidState    = "INVALID_STATE"
	TitleAlreadyExists   = "ALREADY_EXISTS"
	TitleForbidden       = "FORBIDDEN"
	TitleUnauthorized    = "UNAUTHORIZED"
	TitleInternal        = "INTERNAL_ERROR"
	TitleDeadline        = "DEADLINE_EXCEEDED"
	TitleUnavailable     = "UNAVAILABLE"
	TitleTooMany         = "RESOURCE_EXHAUSTED"
)

// NewProblem returns a problem of status with title and detail.
func NewProblem(status int, title, detail string) *Problem {
	return &Problem{Type: "about:blank", Title: title, Status: status, Detail: detail}
}

// invalid is a 400 INVALID_ARGUMENT problem.
func invalid(detail string) *Problem {
	return NewProblem(http.StatusBadRequest, TitleInvalidArgument, detail)
}

// notFound is a 404 NOT_FOUND problem.
func notFound(detail string) *Problem {
	return NewProblem(http.StatusNotFound, TitleNotFound, detail)
}

// WriteProblem writes p as application/problem+json. Camunda 8 names
// the request's path as the instance, which its own schema types as a URL
// and its strict clients then refuse: gobpm leaves instance out.
func WriteProblem(w http.ResponseWriter, _ *http.Request, p *Problem) {
	out := *p
	if out.Type == "" {
		out.Type = "about:blank"
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(out.Status)
	_ = json.NewEncoder(w).Encode(out)
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Suspensions is the part of Service behind the suspension routes
// (runtime/suspend.go).
type Suspensions interface {
	// SuspendInstance suspends a running instance (idempotent) and returns
	// it; ENOTFOUND for an unknown instance, ECONFLICT for an ended one.
	SuspendInstance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// ResumeInstance resumes it, likewise.
	ResumeInstance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// SuspendVersion suspends a process version (idempotent) and, with
	// IncludeInstances, its running instances, returning how many it
	// suspended; ENOTFOUND for an unknown version.
	SuspendVersion(ctx context.Context, req runtime.VersionSuspension) (int, error)
	// ResumeVersion resumes it, likewise.
	ResumeVersion(ctx context.Context, req runtime.VersionSuspension) (int, error)
	// SuspendedVersions returns the suspended versions of a key, ascending.
	SuspendedVersions(ctx context.Context, key string) ([]int, error)
}

// VersionSuspension is the answer of the version suspension routes: the
// version's state now and how many of its instances the act changed.
type VersionSuspension struct {
	Key       string `json:"key"`
	Version   int    `json:"version"`
	Suspended bool   `json:"suspended"`
	// Instances is how many instances the act suspended or resumed (0
	// without includeInstances).
	Instances int `json:"instances"`
}

// suspendInstance handles POST /api/v1/instances/{id}/suspend.
func (s *server) suspendInstance(w http.ResponseWriter, r *http.Request) error {
	view, err := s.svc.SuspendInstance(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// resumeInstance handles POST /api/v1/instances/{id}/resume.
func (s *server) resumeInstance(w http.ResponseWriter, r *http.Request) error {
	view, err := s.svc.ResumeInstance(r.Context(), runtime.InstanceID(chi.URLParam(r, "id")))
	if err != nil {
		return err
	}
	return s.writeInstance(w, r, http.StatusOK, view)
}

// suspendVersion handles POST /api/v1/processes/{key}/versions/{version}/suspend
// with an optional body {includeInstances}.
func (s *server) suspendVersion(w http.ResponseWriter, r *http.Request) error {
	return s.setVersionSuspension(w, r, true)
}

// resumeVersion handles POST /api/v1/processes/{key}/versions/{version}/resume.
func (s *server) resumeVersion(w http.ResponseWriter, r *http.Request) error {
	return s.setVersionSuspension(w, r, false)
}

// setVersionSuspension reads the version and the body and runs the act.
func (s *server) setVersionSuspension(w http.ResponseWriter, r *http.Request, suspended bool) error {
	v, err := versionParam(r)
	if err != nil {
		return err
	}
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	for name := range members {
		if name != "includeInstances" {
			return errorf(kindInvalidRequest, name, fmt.Sprintf("%s is not a member of a suspension request; it takes only includeInstances", name))
		}
	}
	include, err := boolField(members, "includeInstances")
	if err != nil {
		return err
	}
	req := runtime.VersionSuspension{Key: chi.URLParam(r, "key"), Version: v, IncludeInstances: include}
	act := s.svc.ResumeVersion
	if suspended {
		act = s.svc.SuspendVersion
	}
	n, err := act(r.Context(), req)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, VersionSuspension{Key: req.Key, Version: v, Suspended: suspended, Instances: n})
	return nil
}

// suspendedSet returns the suspended versions of key as a set, for the
// version lists.
func (s *server) suspendedSet(ctx context.Context, key string) (func(v int) bool, error) {
	vs, err := s.svc.SuspendedVersions(ctx, key)
	if err != nil {
		return nil, err
	}
	return func(v int) bool { return slices.Contains(vs, v) }, nil
}

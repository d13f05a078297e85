package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	gobpm "github.com/gobpm/gobpm"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Service is what the API needs from the runtime; *runtime.Runtime
// implements it. Errors carry runtime error codes (runtime.ErrorCode), which
// the error table in problem.go maps to HTTP statuses.
type Service interface {
	// Deploy validates and registers the files. An invalid model fails with
	// *runtime.DeploymentError and nothing is registered.
	Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error)
	// Processes returns the latest version of every process key.
	Processes(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// ProcessVersions returns every version of key, ascending; ENOTFOUND for an unknown key.
	ProcessVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// Definition returns one version of key with its XML; ENOTFOUND if absent.
	Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// StartInstance starts an instance and returns it after its first step
	// committed; ENOTFOUND for an unknown key or version, EINVALID for bad input.
	StartInstance(ctx context.Context, req runtime.StartRequest) (runtime.InstanceView, error)
	// Instance returns a snapshot of an instance; ENOTFOUND if absent.
	Instance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// ListInstances returns a page of instances matching f and the total count.
	ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error)
	// History returns the facts of an instance after afterSeq, at most limit;
	// ENOTFOUND for an unknown instance.
	History(ctx context.Context, id runtime.InstanceID, afterSeq int64, limit int) ([]runtime.FactRow, error)
	// Cancel terminates an instance; ENOTFOUND if absent, ECONFLICT if it already ended.
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// Incidents lists the incidents of an instance ("" = all instances).
	Incidents(ctx context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error)
}

// Default body size limits.
const (
	DefaultMaxDeploymentBytes int64 = 16 << 20
	DefaultMaxJSONBytes       int64 = 1 << 20
)

// Options tunes the API. The zero value is usable.
type Options struct {
	// MaxDeploymentBytes caps a deployment request body (all files together);
	// 0 means DefaultMaxDeploymentBytes. Larger bodies get 413.
	MaxDeploymentBytes int64
	// MaxJSONBytes caps a JSON request body; 0 means DefaultMaxJSONBytes.
	MaxJSONBytes int64
}

func (o Options) withDefaults() Options {
	if o.MaxDeploymentBytes <= 0 {
		o.MaxDeploymentBytes = DefaultMaxDeploymentBytes
	}
	if o.MaxJSONBytes <= 0 {
		o.MaxJSONBytes = DefaultMaxJSONBytes
	}
	return o
}

// server holds the dependencies of the handlers.
type server struct {
	svc  Service
	log  *slog.Logger
	opts Options
}

// New returns the HTTP handler of the JSON API: every route of openapi.yaml,
// with request ids, request logging and panic recovery. Every error, unknown
// routes and methods included, is answered with application/problem+json.
// A nil logger discards logs.
func New(svc Service, logger *slog.Logger, opts Options) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &server{svc: svc, log: logger, opts: opts.withDefaults()}

	r := chi.NewRouter()
	r.Use(requestID, requestLogger(logger), s.recoverer)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(s.methodNotAllowed(r))

	r.Get("/healthz", s.healthz)
	r.Route("/api/v1", func(r chi.Router) {
		r.Get("/openapi.yaml", s.openAPI)
		r.Post("/deployments", s.handle(s.deploy))
		r.Get("/processes", s.handle(s.listProcesses))
		r.Get("/processes/{key}/versions", s.handle(s.listVersions))
		r.Get("/processes/{key}/versions/{version}/xml", s.handle(s.definitionXML))
		r.Post("/processes/{key}/instances", s.handle(s.startInstance))
		r.Get("/instances", s.handle(s.listInstances))
		r.Get("/instances/{id}", s.handle(s.getInstance))
		r.Get("/instances/{id}/history", s.handle(s.history))
		r.Post("/instances/{id}/cancel", s.handle(s.cancel))
		r.Get("/incidents", s.handle(s.listIncidents))
	})
	return r
}

// handle adapts a handler that returns an error: a non-nil error is answered
// as problem+json by writeError.
func (s *server) handle(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, errorf(kindNotFound, "", "no route for "+r.Method+" "+r.URL.Path))
}

// methodNotAllowed answers 405 with the Allow header RFC 9110 requires; chi
// hands a custom handler no method list, so it asks the router.
func (s *server) methodNotAllowed(routes chi.Routes) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
			if routes.Match(chi.NewRouteContext(), m, r.URL.Path) {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
		}
		s.writeError(w, r, errorf(kindMethodNotAllowed, "", "method "+r.Method+" is not allowed on "+r.URL.Path))
	}
}

// healthz is the liveness probe: it answers as long as the process serves HTTP.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, Health{Status: "ok"})
}

// openAPI serves the embedded contract.
func (s *server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(gobpm.OpenAPI)
}

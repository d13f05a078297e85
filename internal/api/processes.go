package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
)

// listProcesses handles GET /api/v1/processes: the latest version of each key.
func (s *server) listProcesses(w http.ResponseWriter, r *http.Request) error {
	defs, err := s.svc.Processes(r.Context())
	if err != nil {
		return err
	}
	out := List[Process]{Items: make([]Process, 0, len(defs))}
	for _, d := range defs {
		out.Items = append(out.Items, toProcess(d))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// listVersions handles GET /api/v1/processes/{key}/versions.
func (s *server) listVersions(w http.ResponseWriter, r *http.Request) error {
	defs, err := s.svc.ProcessVersions(r.Context(), chi.URLParam(r, "key"))
	if err != nil {
		return err
	}
	out := List[ProcessVersion]{Items: make([]ProcessVersion, 0, len(defs))}
	for _, d := range defs {
		out.Items = append(out.Items, ProcessVersion{Process: toProcess(d), DeploymentID: d.DeploymentID})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// definitionXML handles GET /api/v1/processes/{key}/versions/{version}/xml:
// the deployed document, byte for byte.
func (s *server) definitionXML(w http.ResponseWriter, r *http.Request) error {
	v, err := versionParam(r)
	if err != nil {
		return err
	}
	def, err := s.svc.Definition(r.Context(), chi.URLParam(r, "key"), v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(def.XML)
	return nil
}

// versionParam reads the {version} path parameter: a positive integer.
func versionParam(r *http.Request) (int, error) {
	raw := chi.URLParam(r, "version")
	v, err := strconv.Atoi(raw)
	if err != nil || v < 1 {
		return 0, errorf(kindInvalidRequest, "version", fmt.Sprintf("version must be a positive integer, not %q", raw))
	}
	return v, nil
}

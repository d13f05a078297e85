package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
)

// listProcesses handles GET /api/v1/processes: the latest version of each key.
func (s *server) listProcesses(w http.ResponseWriter, r *http.Request) error {
	defs, err := s.svc.Processes(r.Context())
	if err != nil {
		return err
	}
	readable := readFilter(r, auth.KindProcess)
	out := List[Process]{Items: make([]Process, 0, len(defs))}
	for _, d := range defs {
		if readable(d.Key) {
			out.Items = append(out.Items, toProcess(d))
		}
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
	suspended, err := s.suspendedSet(r.Context(), chi.URLParam(r, "key"))
	if err != nil {
		return err
	}
	out := List[ProcessVersion]{Items: make([]ProcessVersion, 0, len(defs))}
	for _, d := range defs {
		out.Items = append(out.Items, ProcessVersion{Process: toProcess(d), DeploymentID: d.DeploymentID, Suspended: suspended(d.Version)})
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
	writeDocument(w, def.XML)
	return nil
}

// documentCSP keeps a browser from running anything in a deployed document:
// the XML is served verbatim, and a model may carry XHTML (a <script> in its
// documentation or extensions is valid BPMN), which a browser navigating to
// the URL would otherwise run in the server's origin. Scripts fetching the
// document (the cockpit's diagram) are unaffected.
const documentCSP = "default-src 'none'; sandbox"

// writeDocument answers a deployed XML document, byte for byte.
func writeDocument(w http.ResponseWriter, doc []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Security-Policy", documentCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc)
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

package camunda7

import "net/http"

// Version is what GET /version answers: the Camunda 7 REST API version
// whose shapes the adapter follows (the Modeler reads it to pick its
// features), not gobpm's own version.
const Version = "7.22.0"

// engines handles GET /engine: gobpm is one engine, "default".
func (h *handler) engines(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, []map[string]string{{"name": "default"}})
	return nil
}

// version handles GET /version: {"version":"7.22.0"}.
func (h *handler) version(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	return nil
}

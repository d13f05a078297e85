package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// readListFilters reads the element, incident and time filters of GET
// /api/v1/instances into f: element, incidentMessage (exact) or
// incidentMessagePrefix, createdAfter, createdBefore, endedAfter and
// endedBefore (RFC 3339 times; After inclusive, Before exclusive).
func readListFilters(r *http.Request, f *runtime.InstanceFilter) error {
	q := r.URL.Query()
	f.Element = q.Get("element")
	exact, prefix := q.Get("incidentMessage"), q.Get("incidentMessagePrefix")
	switch {
	case exact != "" && prefix != "":
		return errorf(kindInvalidRequest, "incidentMessagePrefix", "give incidentMessage or incidentMessagePrefix, not both")
	case prefix != "":
		f.IncidentMessage, f.IncidentMessagePrefix = prefix, true
	default:
		f.IncidentMessage = exact
	}
	for _, b := range []struct {
		name string
		dst  *time.Time
	}{{"createdAfter", &f.CreatedAfter}, {"createdBefore", &f.CreatedBefore}, {"endedAfter", &f.EndedAfter}, {"endedBefore", &f.EndedBefore}} {
		t, err := queryTime(r, b.name)
		if err != nil {
			return err
		}
		*b.dst = t
	}
	return nil
}

// queryTime parses an optional RFC 3339 time query parameter; the zero
// time if absent.
func queryTime(r *http.Request, name string) (time.Time, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errorf(kindInvalidRequest, name,
			fmt.Sprintf("query parameter %s must be an RFC 3339 time such as 2025-03-14T15:09:26Z, not %q", name, s))
	}
	return t, nil
}

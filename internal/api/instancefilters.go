package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// readListFilters reads the element, incident, variable and time filters
// of GET /api/v1/instances into f: element, incidentMessage (exact) or
// incidentMessagePrefix, var (repeated name=JSON value), createdAfter,
// createdBefore, endedAfter and endedBefore (RFC 3339 times; After
// inclusive, Before exclusive).
func readListFilters(r *http.Request, f *runtime.InstanceFilter) error {
	q := r.URL.Query()
	f.Element = q.Get("element")
	if err := readVariableFilters(q["var"], f); err != nil {
		return err
	}
	exact, prefix := q.Get("incidentMessage"), q.Get("incidentMessagePrefix")
	switch {
	case exact != "" && prefix != "":
		return errorf(kindInvalidRequest, "incidentMessagePrefix", "give incidentMessage or incidentMessagePrefix, not both")
	case prefix != "":
		f.IncidentMessage, f.IncidentMessagePrefix = prefix, true
	default:
		f.IncidentMessage = exact
	}
	if err := readSort(r, f); err != nil {
		return err
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

// listSorts are the columns the sort parameter names.
var listSorts = map[string]bool{
	runtime.SortCreated: true, runtime.SortNumber: true, runtime.SortProcess: true, runtime.SortStatus: true, runtime.SortEnded: true,
}

// readSort reads the sort parameter: a column, descending (the largest,
// newest first), or "+column" ascending; "-column" is descending too.
func readSort(r *http.Request, f *runtime.InstanceFilter) error {
	s := r.URL.Query().Get("sort")
	if s == "" {
		return nil
	}
	col := strings.TrimLeft(s, "+- ")
	if !listSorts[col] || len(s)-len(col) > 1 {
		return errorf(kindInvalidRequest, "sort", fmt.Sprintf("sort must be created, number, process, status or ended, with + for ascending, not %q", s))
	}
	f.SortBy, f.Ascending = col, s[0] == '+' || s[0] == ' '
	return nil
}

// readVariableFilters reads the var parameters into f: the instances
// whose top-level variables meet them all.
func readVariableFilters(vars []string, f *runtime.InstanceFilter) error {
	vfs, err := parseVariableFilters(vars)
	f.Variables = append(f.Variables, vfs...)
	return err
}

// parseVariableFilters parses var parameters (each name=value with the
// value as JSON, or name:op:value: runtime.ParseVariableFilter); a
// malformed one, or more than runtime.MaxVariableFilters, is a problem
// naming var.
func parseVariableFilters(vars []string) ([]runtime.VariableFilter, error) {
	if len(vars) > runtime.MaxVariableFilters {
		return nil, errorf(kindInvalidRequest, "var", fmt.Sprintf("at most %d var filters, not %d", runtime.MaxVariableFilters, len(vars)))
	}
	var out []runtime.VariableFilter
	for _, v := range vars {
		vf, err := runtime.ParseVariableFilter(v)
		if err != nil {
			return nil, errorf(kindInvalidRequest, "var", err.Error())
		}
		out = append(out, vf)
	}
	return out, nil
}

// readTaskFilters reads the variable and creation filters of GET
// /api/v1/tasks into f: var (as for instances, on each task's instance),
// createdAfter and createdBefore (the task's creation; RFC 3339, After
// inclusive, Before exclusive).
func readTaskFilters(r *http.Request, f *runtime.TaskFilter) error {
	vfs, err := parseVariableFilters(r.URL.Query()["var"])
	if err != nil {
		return err
	}
	f.Variables = vfs
	if f.CreatedAfter, err = queryTime(r, "createdAfter"); err != nil {
		return err
	}
	f.CreatedBefore, err = queryTime(r, "createdBefore")
	return err
}

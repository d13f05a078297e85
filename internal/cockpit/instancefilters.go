package cockpit

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// dayLayout is the format of the list's date filters (an HTML date
// input's value), read as a UTC day as the cockpit shows times in UTC.
const dayLayout = "2006-01-02"

// listSorts are the columns the list sorts by.
var listSorts = map[string]bool{
	runtime.SortCreated: true, runtime.SortNumber: true, runtime.SortProcess: true, runtime.SortStatus: true, runtime.SortEnded: true,
}

// readListFilters reads the element, incident message, variable and date
// filters of the instance list's query into f (as typed, for the form) and
// into rf (for the store). It returns a sentence for the person when a
// filter is malformed.
func readListFilters(q url.Values, f *templates.InstanceFilter, rf *runtime.InstanceFilter) (problem string) {
	if problem := readVarFilters(q["var"], f, rf); problem != "" {
		return problem
	}
	f.Element = strings.TrimSpace(q.Get("element"))
	f.IncidentMessage = strings.TrimSpace(q.Get("incidentMessage"))
	rf.Element = f.Element
	// "text*" matches the messages that start with text.
	if m, ok := strings.CutSuffix(f.IncidentMessage, "*"); ok {
		rf.IncidentMessage, rf.IncidentMessagePrefix = m, true
	} else {
		rf.IncidentMessage = f.IncidentMessage
	}
	f.Sort = strings.TrimSpace(q.Get("sort"))
	if f.Sort != "" {
		col := strings.TrimPrefix(f.Sort, "+")
		if !listSorts[col] {
			return "The list sorts by created, number, process, status or ended (+ first for the smallest first)."
		}
		rf.SortBy, rf.Ascending = col, col != f.Sort
	}
	for _, d := range []struct {
		name     string
		typed    *string
		bound    *time.Time
		dayAfter bool // the bound is the end of the day (exclusive), not its start
		sentence string
	}{
		{"startedFrom", &f.StartedFrom, &rf.CreatedAfter, false, "started from"},
		{"startedTo", &f.StartedTo, &rf.CreatedBefore, true, "started to"},
		{"endedFrom", &f.EndedFrom, &rf.EndedAfter, false, "ended from"},
		{"endedTo", &f.EndedTo, &rf.EndedBefore, true, "ended to"},
	} {
		*d.typed = strings.TrimSpace(q.Get(d.name))
		if *d.typed == "" {
			continue
		}
		day, err := time.Parse(dayLayout, *d.typed)
		if err != nil {
			return "The " + d.sentence + " filter must be a date such as 2025-03-14."
		}
		if d.dayAfter {
			day = day.AddDate(0, 0, 1)
		}
		*d.bound = day
	}
	return ""
}

// readVarFilters reads the list's variable filters (each name=value with
// the value as JSON; empty fields are the form's spare one) into f and rf.
func readVarFilters(vars []string, f *templates.InstanceFilter, rf *runtime.InstanceFilter) (problem string) {
	for _, v := range vars {
		if v = strings.TrimSpace(v); v != "" {
			f.Vars = append(f.Vars, v)
		}
	}
	if len(f.Vars) > runtime.MaxVariableFilters {
		return fmt.Sprintf("The list takes at most %d variable filters.", runtime.MaxVariableFilters)
	}
	for _, v := range f.Vars {
		vf, err := runtime.ParseVariableFilter(v)
		if err != nil {
			msg := err.Error()
			return strings.ToUpper(msg[:1]) + msg[1:] + "."
		}
		rf.Variables = append(rf.Variables, vf)
	}
	return ""
}

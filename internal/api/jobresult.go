package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// jobResulter completes a user task listener's job with its result.
// *runtime.Runtime implements it; a service that does not refuses a
// completion with a result.
type jobResulter interface {
	CompleteResolvedJobWithResult(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, res runtime.JobResult) error
}

// jobResultField decodes the optional result member of a job completion,
// Camunda 8.8's job result for user task listeners: {type?: "userTask",
// denied?, deniedReason?, corrections?: {assignee?, dueDate?,
// candidateUsers?, candidateGroups?}}. Nil when absent or null. A member
// gobpm's tasks do not have (followUpDate, priority) is refused, naming
// it.
func jobResultField(members map[string]json.RawMessage, name string) (*runtime.JobResult, error) {
	raw := members[name]
	if isNull(raw) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errorf(kindInvalidRequest, name, name+" must be a JSON object {denied?, deniedReason?, corrections?}")
	}
	for k := range m {
		if !slices.Contains([]string{"type", "denied", "deniedReason", "corrections"}, k) {
			return nil, errorf(kindInvalidRequest, name+"."+k, fmt.Sprintf("%s.%s is not a member of a job result (type, denied, deniedReason, corrections)", name, k))
		}
	}
	typ, err := stringField(m, "type")
	if err != nil {
		return nil, prefixed(err, name)
	}
	if typ != "" && typ != "userTask" {
		return nil, errorf(kindInvalidRequest, name+".type", fmt.Sprintf("%s.type %q is not supported: only userTask (a user task listener's result)", name, typ))
	}
	var res runtime.JobResult
	if res.Denied, err = boolField(m, "denied"); err != nil {
		return nil, prefixed(err, name)
	}
	if res.DeniedReason, err = stringField(m, "deniedReason"); err != nil {
		return nil, prefixed(err, name)
	}
	if res.Corrections, err = correctionsField(m, name+".corrections"); err != nil {
		return nil, err
	}
	return &res, nil
}

// correctionsField decodes the corrections of a job result (path names
// it for errors).
func correctionsField(m map[string]json.RawMessage, path string) (runtime.TaskCorrections, error) {
	var c runtime.TaskCorrections
	raw := m["corrections"]
	if isNull(raw) {
		return c, nil
	}
	var cm map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cm); err != nil || cm == nil {
		return c, errorf(kindInvalidRequest, path, path+" must be a JSON object")
	}
	for k, v := range cm {
		if isNull(v) {
			continue
		}
		field := path + "." + k
		switch k {
		case "assignee":
			var s string
			if json.Unmarshal(v, &s) != nil {
				return c, errorf(kindInvalidRequest, field, field+" must be a string")
			}
			c.Assignee = &s
		case "dueDate":
			var s string
			if json.Unmarshal(v, &s) != nil {
				return c, errorf(kindInvalidRequest, field, field+" must be an RFC 3339 date-time string")
			}
			at, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return c, errorf(kindInvalidRequest, field, fmt.Sprintf("%s %q is not an RFC 3339 date-time", field, s))
			}
			c.DueAt = &at
		case "candidateUsers", "candidateGroups":
			var list []string
			if json.Unmarshal(v, &list) != nil || slices.ContainsFunc(list, func(s string) bool { return strings.TrimSpace(s) == "" }) {
				return c, errorf(kindInvalidRequest, field, field+" must be an array of non-empty strings")
			}
			if list == nil {
				list = []string{}
			}
			if k == "candidateUsers" {
				c.CandidateUsers = &list
			} else {
				c.CandidateGroups = &list
			}
		case "followUpDate", "priority":
			return c, errorf(kindInvalidRequest, field, fmt.Sprintf("%s is not supported: gobpm's user tasks have no %s", field, k))
		default:
			return c, errorf(kindInvalidRequest, field, fmt.Sprintf("%s is not a task correction (assignee, dueDate, candidateUsers, candidateGroups)", field))
		}
	}
	return c, nil
}

// prefixed names the member of an error of a nested field's decoding
// under parent.
func prefixed(err error, parent string) error {
	if e, ok := err.(*apiError); ok && e.field != "" {
		return errorf(e.kind, parent+"."+e.field, parent+"."+e.detail)
	}
	return err
}

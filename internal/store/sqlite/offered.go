package sqlite

import (
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// offeredTo is the condition of the tasks offered to a person (see
// store.TaskFilter.OfferedTo) and its arguments: assigned to them, or
// unassigned and claimable by them — a candidate user, a member of a
// candidate group, or a task without candidates.
func offeredTo(a store.Actor) (string, []any) {
	var b strings.Builder
	args := []any{a.User}
	b.WriteString("(assignee = ? OR (assignee = '' AND (")
	b.WriteString("(COALESCE(json_array_length(candidate_users), 0) = 0 AND COALESCE(json_array_length(candidate_groups), 0) = 0)")
	b.WriteString(" OR EXISTS (SELECT 1 FROM json_each(waits.candidate_users) WHERE json_each.value = ?)")
	args = append(args, a.User)
	if len(a.Groups) > 0 {
		b.WriteString(" OR EXISTS (SELECT 1 FROM json_each(waits.candidate_groups) WHERE json_each.value IN (")
		for i, g := range a.Groups {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?")
			args = append(args, g)
		}
		b.WriteString("))")
	}
	b.WriteString(")))")
	return b.String(), args
}

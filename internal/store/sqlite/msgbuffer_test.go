package sqlite

import (
	"strings"
	"testing"
)

// TestMessageBufferPlans checks that the buffer's look-ups, the publishing
// side's subscriber look-up and the known-empty probe each search an index
// and never scan a table: their cost follows the rows of one name and
// correlation key, whatever the database holds. SQLite-only: it reads
// EXPLAIN QUERY PLAN.
func TestMessageBufferPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	for _, tt := range []struct {
		name, query string
		want        []string
	}{
		{"match", bufferedMatchSQL, []string{"buffered_messages_match (name=? AND correlation_key=?)"}},
		{"any", anyBufferedSQL, []string{"INDEX"}},
		{"subscriber keys", subscriberKeysSQL, []string{"waits_messages (name=? AND correlation_key=?)"}},
		{"oldest subscriber", oldestSubscriberSQL, []string{"waits_messages (name=? AND correlation_key=?)"}},
		{"sweep", sweepBufferedSQL, []string{"buffered_messages_expiry (expires_at<?)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := accessPlan(t, db, tt.query)
			for _, want := range tt.want {
				if !strings.Contains(plan, want) {
					t.Errorf("plan does not use %s:\n%s", want, plan)
				}
			}
			for _, line := range strings.Split(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && !strings.HasPrefix(line, "SCAN CONSTANT ROW") {
					t.Errorf("full scan:\n%s", plan)
				}
			}
		})
	}
}

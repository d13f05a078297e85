package postgres_test

import (
	"strconv"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
)

// TestStatsMaxBucket: the SQL that buckets a duration stops where
// store.StatsBucket does.
func TestStatsMaxBucket(t *testing.T) {
	t.Parallel()
	if postgres.MaxBucket != strconv.Itoa(store.StatsMaxBucket) {
		t.Errorf("maxBucket = %s, store.StatsMaxBucket = %d", postgres.MaxBucket, store.StatsMaxBucket)
	}
}

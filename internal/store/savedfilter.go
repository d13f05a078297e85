package store

import (
	"context"
	"time"
)

// SavedFilter is an instance-list filter a cockpit user saved under a
// name: the list's query string (process=order&var=amount:gt:100).
type SavedFilter struct {
	User      string
	Name      string
	Query     string
	CreatedAt time.Time
}

// Limits of saved filters, the same in every store.
const (
	// MaxSavedFilters caps the filters one user saves.
	MaxSavedFilters = 50
	// MaxSavedFilterName caps a saved filter's name, in bytes.
	MaxSavedFilterName = 100
	// MaxSavedFilterQuery caps a saved filter's query, in bytes.
	MaxSavedFilterQuery = 4096
)

// SavedFilterStore keeps the saved filters of each user. Both drivers
// implement it.
type SavedFilterStore interface {
	// SaveFilter stores f, replacing the user's filter of the same name;
	// EINVALID for an empty or over-long name or query, ECONFLICT when the
	// user already has MaxSavedFilters others.
	SaveFilter(ctx context.Context, f SavedFilter) error
	// SavedFilters lists a user's filters by name.
	SavedFilters(ctx context.Context, user string) ([]SavedFilter, error)
	// DeleteSavedFilter deletes a user's filter; ENOTFOUND if absent.
	DeleteSavedFilter(ctx context.Context, user, name string) error
}

// CheckSavedFilter returns an EINVALID error when f cannot be saved.
func CheckSavedFilter(f SavedFilter) error {
	switch {
	case f.Name == "" || len(f.Name) > MaxSavedFilterName:
		return Errorf(EINVALID, "a saved filter's name has 1 to %d bytes", MaxSavedFilterName)
	case f.Query == "" || len(f.Query) > MaxSavedFilterQuery:
		return Errorf(EINVALID, "a saved filter's query has 1 to %d bytes", MaxSavedFilterQuery)
	}
	return nil
}

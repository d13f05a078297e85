package runtime

import (
	"context"
	"fmt"

	"github.com/gobpm/gobpm/internal/store"
)

// savedFilters is the runtime's store as a store.SavedFilterStore, or an
// EINVALID error when it keeps no saved filters (a store of a test).
func (r *Runtime) savedFilters() (store.SavedFilterStore, error) {
	s, ok := r.store.(store.SavedFilterStore)
	if !ok {
		return nil, store.Errorf(store.EINVALID, "this store keeps no saved filters")
	}
	return s, nil
}

// SaveFilter saves the instance-list query of user under name, replacing
// their filter of that name; EINVALID for an empty user, name or query or
// one too long, ECONFLICT beyond store.MaxSavedFilters.
func (r *Runtime) SaveFilter(ctx context.Context, user, name, query string) error {
	s, err := r.savedFilters()
	if err != nil {
		return err
	}
	if user == "" {
		return store.Errorf(store.EINVALID, "a saved filter needs a user")
	}
	if err := s.SaveFilter(ctx, SavedFilter{User: user, Name: name, Query: query, CreatedAt: r.now().UTC()}); err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	return nil
}

// SavedFilters lists the saved filters of user by name.
func (r *Runtime) SavedFilters(ctx context.Context, user string) ([]SavedFilter, error) {
	s, err := r.savedFilters()
	if err != nil {
		return nil, err
	}
	fs, err := s.SavedFilters(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return fs, nil
}

// DeleteSavedFilter deletes a saved filter of user; ENOTFOUND if absent.
func (r *Runtime) DeleteSavedFilter(ctx context.Context, user, name string) error {
	s, err := r.savedFilters()
	if err != nil {
		return err
	}
	if err := s.DeleteSavedFilter(ctx, user, name); err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	return nil
}

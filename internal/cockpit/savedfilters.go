package cockpit

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// SavedFilterService is what the cockpit needs of the runtime to keep
// each person's saved instance-list filters (*runtime.Runtime implements
// it). A Service without it shows no saved filters.
type SavedFilterService interface {
	// SaveFilter saves the list query of user under name, replacing their
	// filter of that name; EINVALID, ECONFLICT beyond the cap.
	SaveFilter(ctx context.Context, user, name, query string) error
	// SavedFilters lists the saved filters of user by name.
	SavedFilters(ctx context.Context, user string) ([]runtime.SavedFilter, error)
	// DeleteSavedFilter deletes one; ENOTFOUND if absent.
	DeleteSavedFilter(ctx context.Context, user, name string) error
}

// savedFilterService is the service's SavedFilterService, if it has one.
func (h *handler) savedFilterService() (SavedFilterService, bool) {
	s, ok := h.svc.(SavedFilterService)
	return s, ok
}

// savedFilters fills the saved-filter part of the instance list: the
// person's filters and the current query (without the page) to save.
func (h *handler) savedFilters(r *http.Request, p *templates.InstancesPage) error {
	s, ok := h.savedFilterService()
	user := h.actor(r).User
	if !ok || user == "" {
		return nil
	}
	p.CanSave = true
	cur := p.Filter
	cur.Page = 0
	if u := templates.InstancesURL(cur); u != templates.RouteInstances {
		p.FilterQuery = strings.TrimPrefix(u, templates.RouteInstances+"?")
	}
	fs, err := s.SavedFilters(r.Context(), user)
	if err != nil {
		return err
	}
	for _, f := range fs {
		p.SavedFilters = append(p.SavedFilters, templates.SavedFilterItem{Name: f.Name, URL: templates.RouteInstances + "?" + f.Query})
	}
	return nil
}

// saveFilter saves the posted query (a query string of the instance
// list) under the posted name for the person, and returns to the list
// with it applied.
func (h *handler) saveFilter(w http.ResponseWriter, r *http.Request) {
	s, ok := h.savedFilterService()
	user := h.actor(r).User
	name := strings.TrimSpace(r.PostFormValue("name"))
	query := r.PostFormValue("query")
	to := templates.RouteInstances
	if _, err := url.ParseQuery(query); err == nil && query != "" {
		to += "?" + query
	}
	switch {
	case !ok || user == "":
		h.done(w, r, to, "error", "Saving a filter needs a user name: sign in or choose who you are.")
		return
	case name == "":
		h.done(w, r, to, "error", "Give the filter a name.")
		return
	case to == templates.RouteInstances:
		h.done(w, r, to, "error", "There is no filter to save: choose some filters first.")
		return
	}
	if err := s.SaveFilter(r.Context(), user, name, query); err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "Saved the filter "+name+".")
}

// deleteSavedFilter deletes the posted saved filter of the person.
func (h *handler) deleteSavedFilter(w http.ResponseWriter, r *http.Request) {
	s, ok := h.savedFilterService()
	user := h.actor(r).User
	name := r.PostFormValue("name")
	if !ok || user == "" {
		h.done(w, r, templates.RouteInstances, "error", "Saved filters need a user name.")
		return
	}
	if err := s.DeleteSavedFilter(r.Context(), user, name); err != nil {
		h.actFailed(w, r, templates.RouteInstances, err)
		return
	}
	h.done(w, r, templates.RouteInstances, "ok", "Deleted the saved filter "+name+".")
}

package api

import (
	"net/http"
)

// correlateMessage handles POST /api/v1/messages: {name, correlationKey?,
// variables?}. The message goes to one waiting subscription (oldest first)
// or starts an instance through a message start event; nothing waiting → 404.
func (s *server) correlateMessage(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	name, err := requiredStringField(members, "name")
	if err != nil {
		return err
	}
	key, err := stringField(members, "correlationKey")
	if err != nil {
		return err
	}
	vs, err := objectField(members, "variables")
	if err != nil {
		return err
	}
	ctx, err := idempotent(r, members)
	if err != nil {
		return err
	}
	n, err := s.svc.CorrelateMessage(ctx, name, key, vs)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, Correlated{Correlated: n})
	return nil
}

// broadcastSignal handles POST /api/v1/signals: {name, variables?}. Every
// waiting catch and signal start event of that name is triggered; none is
// not an error.
func (s *server) broadcastSignal(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	name, err := requiredStringField(members, "name")
	if err != nil {
		return err
	}
	vs, err := objectField(members, "variables")
	if err != nil {
		return err
	}
	ctx, err := idempotent(r, members)
	if err != nil {
		return err
	}
	n, err := s.svc.BroadcastSignal(ctx, name, vs)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, Triggered{Triggered: n})
	return nil
}

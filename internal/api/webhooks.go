package api

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/connector/webhook"
)

// webhook serves ANY /webhooks/{path}: the webhook handler checks the
// webhook's own method, limits and authentication, then starts or
// correlates; a refusal is answered as problem+json with Retry-After (429)
// or Allow (405).
func (s *server) webhook(w http.ResponseWriter, r *http.Request) error {
	path := chi.URLParam(r, "path")
	if s.opts.Webhooks == nil {
		return errorf(kindNotFound, "", "no webhook is served at /webhooks/"+path)
	}
	err := s.opts.Webhooks.Serve(w, r, path)
	var we *webhook.Error
	if errors.As(err, &we) {
		switch we.Code {
		case webhook.CodeRateLimited:
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Max(1, math.Ceil(we.RetryAfter.Seconds())))))
		case webhook.CodeMethodNotAllowed:
			w.Header().Set("Allow", we.Allow)
		}
	}
	return err
}

package cockpit

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/gobpm/gobpm/web/templates"
)

// maxCSRFFieldBytes bounds the CSRF field read off the front of an upload.
const maxCSRFFieldBytes = 256

// errForgedForm is a form whose CSRF token is missing or wrong.
var errForgedForm = errors.New("cockpit: the form's CSRF token is missing or wrong")

// sameOrigin refuses browser requests from another origin (Sec-Fetch-Site,
// Origin: http.CrossOriginProtection) before anything else is looked at.
func (h *handler) sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused. Open the cockpit itself and try again.")
	}))
	return cop.Handler(next)
}

// readForm reads the body of a state-changing request, which must repeat
// the CSRF cookie's token (double submit), and only then serves it. It
// runs after the login and the route's rule (which need no body), so an
// unauthenticated or unauthorized request is refused unread. A request
// without the CSRF cookie is refused unread. An upload (multipart) is read
// in one of a few slots (503 when all are taken) and must begin with the
// token, checked before the files are read.
func (h *handler) readForm(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cookie, err := r.Cookie(CookieCSRF)
		if err != nil || cookie.Value == "" {
			h.refuseForged(w, r)
			return
		}
		limit := maxFormBytes
		if r.URL.Path == templates.RouteProcesses {
			limit = h.opts.MaxUploadBytes
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		multipartBody := false
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			multipartBody = true
			select {
			case h.uploads <- struct{}{}:
				defer func() { <-h.uploads }()
			default:
				w.Header().Set("Retry-After", "2")
				h.fail(w, r, http.StatusServiceUnavailable, "Too many uploads are being read right now, so this one was refused unread; nothing changed. Try again in a moment.")
				return
			}
		}
		if multipartBody {
			err = readMultipart(r, cookie.Value, limit)
			if r.MultipartForm != nil {
				defer func() { _ = r.MultipartForm.RemoveAll() }()
			}
		} else if err = r.ParseForm(); err == nil && !tokenMatches(r.PostFormValue(CSRFField), cookie.Value) {
			err = errForgedForm
		}
		var tooBig *http.MaxBytesError
		switch {
		case err == nil:
			next.ServeHTTP(w, r)
		case errors.Is(err, errForgedForm):
			h.refuseForged(w, r)
		case errors.As(err, &tooBig):
			h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than the limit of %d bytes, so it was refused; nothing changed.", tooBig.Limit))
		default:
			h.fail(w, r, http.StatusBadRequest, "The form could not be read, so it was refused; nothing changed. Reload the page and try again.")
		}
	})
}

// refuseForged answers a form without the right CSRF token.
func (h *handler) refuseForged(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, http.StatusForbidden, "This form has expired or did not come from this cockpit, so it was refused. Reload the page and try again.")
}

// readMultipart reads a multipart form whose first part must be the CSRF
// field holding want; the rest (the files) is read only once it matched,
// up to limit in memory. r's Form, PostForm and MultipartForm are set as
// ParseMultipartForm sets them, so handlers read the form as usual.
func readMultipart(r *http.Request, want string, limit int64) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return fmt.Errorf("cockpit: read upload: %w", err)
	}
	first, err := mr.NextPart()
	if err != nil {
		return fmt.Errorf("cockpit: read upload: %w", err)
	}
	if first.FormName() != CSRFField || first.FileName() != "" {
		return errForgedForm
	}
	tok, err := io.ReadAll(io.LimitReader(first, maxCSRFFieldBytes+1))
	if err != nil {
		return fmt.Errorf("cockpit: read upload: %w", err)
	}
	if len(tok) > maxCSRFFieldBytes || !tokenMatches(string(tok), want) {
		return errForgedForm
	}
	form, err := mr.ReadForm(limit)
	if err != nil {
		return fmt.Errorf("cockpit: read upload: %w", err)
	}
	form.Value[CSRFField] = append([]string{string(tok)}, form.Value[CSRFField]...)
	values := url.Values{}
	for k, vs := range form.Value {
		values[k] = append([]string(nil), vs...)
	}
	r.PostForm = values
	r.Form = mergeQuery(values, r.URL.Query())
	r.MultipartForm = form
	return nil
}

// mergeQuery returns the post values followed by the query's, as
// Request.Form holds them.
func mergeQuery(post, query url.Values) url.Values {
	out := url.Values{}
	for k, vs := range post {
		out[k] = append([]string(nil), vs...)
	}
	for k, vs := range query {
		out[k] = append(out[k], vs...)
	}
	return out
}

// tokenMatches compares a form's token with the cookie's in constant time.
func tokenMatches(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

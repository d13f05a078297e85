package cockpit

import "net/http"

// htmx headers the cockpit reads and sets (one place, STYLE.md theme 12).
const (
	// HeaderHXRequest is "true" on every request htmx makes.
	HeaderHXRequest = "HX-Request"
	// HeaderHXTarget is the id of the element htmx swaps the answer into.
	HeaderHXTarget = "HX-Target"
	// HeaderHXRedirect, in an answer, makes htmx load another page instead
	// of swapping the answer in: a live region whose session ended goes to
	// the login page.
	HeaderHXRedirect = "HX-Redirect"
)

// liveTargetID is the id of every page's live region (see templates.live).
const liveTargetID = "live"

// isLivePoll reports whether r is htmx refreshing a page's live region,
// which is answered with that fragment only.
func isLivePoll(r *http.Request) bool {
	if r.Header.Get(HeaderHXRequest) != "true" {
		return false
	}
	t := r.Header.Get(HeaderHXTarget)
	return t == "" || t == liveTargetID
}

package api

import (
	"net/http"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Identity headers (openapi.yaml). With no credentials configured the server
// listens on loopback only and trusts these headers as the acting user; with
// credentials, a service token may act for the user they name.
const (
	// HeaderUser names the acting user.
	HeaderUser = "X-Gobpm-User"
	// HeaderGroups lists the acting user's groups, comma-separated.
	HeaderGroups = "X-Gobpm-Groups"
)

// actorFrom reads the acting identity of r from the identity headers. The
// user is trimmed; groups are split on commas (over every header line),
// trimmed, and empty entries dropped. ok is false when no user is named.
func actorFrom(r *http.Request) (a runtime.Actor, ok bool) {
	a.User = strings.TrimSpace(r.Header.Get(HeaderUser))
	for _, line := range r.Header.Values(HeaderGroups) {
		for g := range strings.SplitSeq(line, ",") {
			if g = strings.TrimSpace(g); g != "" {
				a.Groups = append(a.Groups, g)
			}
		}
	}
	return a, a.User != ""
}

// actorOf returns who acts on a task or an ad-hoc region: the
// authenticated caller (or the user they act for), or — without
// authentication — the identity headers. ok is false when nobody is named.
func actorOf(r *http.Request) (a runtime.Actor, ok bool) {
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Via == "" {
		return actorFrom(r)
	}
	a.User = string(c.User)
	for _, g := range c.Groups {
		a.Groups = append(a.Groups, string(g))
	}
	return a, a.User != ""
}

// requireActor is actorOf for acts that need a user: without one it fails
// with a 403 problem naming the header.
func requireActor(r *http.Request) (runtime.Actor, error) {
	a, ok := actorOf(r)
	if !ok {
		return runtime.Actor{}, errorf(kindForbidden, HeaderUser, "the "+HeaderUser+" header is required to act on a task")
	}
	return a, nil
}

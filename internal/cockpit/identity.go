package cockpit

import (
	"net/http"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// setIdentity sets the acting user and groups (loopback mode: no
// credentials; the runtime checks every act against this identity).
func (h *handler) setIdentity(w http.ResponseWriter, r *http.Request) {
	if h.authOn() {
		h.fail(w, r, http.StatusNotFound, "People log in to this cockpit and act as themselves: there is no acting-as box.")
		return
	}
	to := localPath(r.PostFormValue("return"), templates.RouteDashboard)
	user := strings.TrimSpace(r.PostFormValue("user"))
	if len(user) > maxNameLen || strings.ContainsAny(user, ",\r\n") {
		h.done(w, r, to, "error", "A user name is at most 100 characters, without commas or line breaks.")
		return
	}
	a := runtime.Actor{User: user, Groups: splitGroups(r.PostFormValue("groups"))}
	h.setActor(w, r, a)
	if a.User == "" {
		h.done(w, r, to, "ok", "You are no longer acting as anyone.")
		return
	}
	msg := "You are acting as " + a.User
	if len(a.Groups) > 0 {
		msg += " in " + strings.Join(a.Groups, ", ")
	}
	h.done(w, r, to, "ok", msg+".")
}

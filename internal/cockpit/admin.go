package cockpit

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// Admin list limits.
const (
	// adminPageSize is how many users or audit entries a page shows.
	adminPageSize = 100
	// maxTokenDays caps a token's lifetime typed into the mint form.
	maxTokenDays = 3650
)

// adminLayout fills what every admin page shares.
func (h *handler) adminLayout(w http.ResponseWriter, r *http.Request, title, section string) templates.AdminLayout {
	return templates.AdminLayout{Layout: h.layout(w, r, title, templates.NavAdmin), Section: section}
}

// adminPlain says why an administrative act failed: the runtime codes the
// access service returns, in words about what was asked (what names the
// thing, e.g. "a user named ann").
func (h *handler) adminPlain(r *http.Request, err error, what string) string {
	if errors.Is(err, auth.ErrBusy) {
		return "The server is busy checking other passwords. Try again in a moment."
	}
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return "There is no " + what + "."
	case runtime.ECONFLICT:
		return "There is " + what + " already."
	case runtime.EINVALID:
		var re *runtime.Error
		if errors.As(err, &re) {
			return "Invalid input: " + sentence(re.Message)
		}
	}
	return h.plain(r, err)
}

// adminStatus is statusOf, and 503 for a refusal by the full password
// hash pool (auth.ErrBusy).
func adminStatus(err error) int {
	if errors.Is(err, auth.ErrBusy) {
		return http.StatusServiceUnavailable
	}
	return statusOf(err)
}

// adminFailed ends a refused administrative act with the reason.
func (h *handler) adminFailed(w http.ResponseWriter, r *http.Request, to string, err error, what string) {
	noteStatus(r, adminStatus(err))
	h.done(w, r, to, "error", h.adminPlain(r, err, what))
}

func (h *handler) adminHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, templates.RouteAdminUsers, http.StatusSeeOther)
}

func userItem(u access.User) templates.UserItem {
	return templates.UserItem{ID: string(u.ID), Name: u.Name, CanLogIn: u.PasswordHash != "", Disabled: u.Disabled, CreatedAt: u.CreatedAt}
}

// users lists the users a page at a time (after= the last id shown).
func (h *handler) users(w http.ResponseWriter, r *http.Request) {
	h.renderUsers(w, r, http.StatusOK, r.URL.Query().Get("after"), templates.UserItem{}, "")
}

func (h *handler) renderUsers(w http.ResponseWriter, r *http.Request, status int, after string, form templates.UserItem, msg string) {
	users, err := h.opts.Access.Users(r.Context(), after, adminPageSize)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.UsersPage{AdminLayout: h.adminLayout(w, r, "Users", templates.AdminUsers), New: form}
	if msg != "" {
		p.Flash = errFlash(msg)
		p.Here = templates.RouteAdminUsers
	}
	for _, u := range users {
		p.Users = append(p.Users, userItem(u))
	}
	if len(users) == adminPageSize {
		p.NextURL = templates.RouteAdminUsers + "?" + url.Values{"after": {string(users[len(users)-1].ID)}}.Encode()
	}
	h.render(w, r, status, templates.Users(p))
}

// createUser creates a user from the form; a refusal shows the form again
// with what was typed (not the password).
func (h *handler) createUser(w http.ResponseWriter, r *http.Request) {
	req := access.NewUser{ID: strings.TrimSpace(r.PostFormValue("id")), Name: strings.TrimSpace(r.PostFormValue("name")), Password: r.PostFormValue("password")}
	noteResource(r, "user "+req.ID)
	u, err := h.opts.Access.CreateUser(r.Context(), h.caller(r).User, req)
	if err != nil {
		status := adminStatus(err)
		noteStatus(r, status)
		h.renderUsers(w, r, status, "", templates.UserItem{ID: req.ID, Name: req.Name}, h.adminPlain(r, err, "a user named "+req.ID))
		return
	}
	msg := "Created the user " + string(u.ID) + "."
	if u.PasswordHash == "" {
		msg += " Without a password they cannot log in; mint them an API token."
	}
	h.done(w, r, templates.AdminUserURL(string(u.ID)), "ok", msg+" Give them a role or add them to a group.")
}

// user shows one user with their groups, grants and tokens.
func (h *handler) user(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	acc := h.opts.Access
	id := chi.URLParam(r, "id")
	u, err := acc.User(ctx, id)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			h.fail(w, r, http.StatusNotFound, "There is no user named "+id+".")
			return
		}
		h.failErr(w, r, err)
		return
	}
	p := templates.UserPage{AdminLayout: h.adminLayout(w, r, "User "+id, templates.AdminUsers), User: userItem(u), Self: u.ID == h.caller(r).User}
	groups, err := acc.GroupsOf(ctx, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	for _, g := range groups {
		p.Groups = append(p.Groups, string(g))
	}
	grants, err := acc.Grants(ctx, access.Subject{Kind: access.SubjectUser, ID: id})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Grants = grantItems(grants)
	tokens, err := acc.Tokens(ctx, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Tokens = tokenItems(tokens)
	h.render(w, r, http.StatusOK, templates.User(p))
}

// setPassword sets (or, empty, removes) a user's password.
func (h *handler) setPassword(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	pw := r.PostFormValue("password")
	if _, err := h.opts.Access.UpdateUser(r.Context(), id, access.UserChange{Password: &pw}); err != nil {
		h.adminFailed(w, r, templates.AdminUserURL(id), err, "user named "+id)
		return
	}
	msg := "Set a new password for " + id + "; their sessions have ended."
	if pw == "" {
		msg = "Removed the password of " + id + ": they can no longer log in (their API tokens still work)."
	}
	h.done(w, r, templates.AdminUserURL(id), "ok", msg)
}

// disableUser disables or enables a user; nobody disables themselves.
func (h *handler) disableUser(disable bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := chi.URLParam(r, "id")
		to := templates.AdminUserURL(id)
		if disable && auth.UserID(id) == h.caller(r).User {
			noteStatus(r, http.StatusConflict)
			h.done(w, r, to, "error", "You cannot disable yourself; another administrator can.")
			return
		}
		if _, err := h.opts.Access.UpdateUser(r.Context(), id, access.UserChange{Disabled: &disable}); err != nil {
			h.adminFailed(w, r, to, err, "user named "+id)
			return
		}
		msg := "Enabled " + id + ": they can log in again and their tokens work."
		if disable {
			msg = "Disabled " + id + ": they cannot log in, and their sessions and tokens stopped working."
		}
		h.done(w, r, to, "ok", msg)
	}
}

// deleteUser deletes a user with everything that is theirs; nobody deletes
// themselves.
func (h *handler) deleteUser(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if auth.UserID(id) == h.caller(r).User {
		noteStatus(r, http.StatusConflict)
		h.done(w, r, templates.AdminUserURL(id), "error", "You cannot delete yourself; another administrator can.")
		return
	}
	if err := h.opts.Access.DeleteUser(r.Context(), id); err != nil {
		h.adminFailed(w, r, templates.RouteAdminUsers, err, "user named "+id)
		return
	}
	h.done(w, r, templates.RouteAdminUsers, "ok", "Deleted the user "+id+" with their memberships, grants and tokens.")
}

// groups lists the groups.
func (h *handler) groups(w http.ResponseWriter, r *http.Request) {
	h.renderGroups(w, r, http.StatusOK, templates.GroupItem{}, "")
}

func (h *handler) renderGroups(w http.ResponseWriter, r *http.Request, status int, form templates.GroupItem, msg string) {
	groups, err := h.opts.Access.Groups(r.Context())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.GroupsPage{AdminLayout: h.adminLayout(w, r, "Groups", templates.AdminGroups), New: form}
	if msg != "" {
		p.Flash = errFlash(msg)
		p.Here = templates.RouteAdminGroups
	}
	for _, g := range groups {
		p.Groups = append(p.Groups, templates.GroupItem{ID: string(g.ID), Name: g.Name, CreatedAt: g.CreatedAt})
	}
	h.render(w, r, status, templates.Groups(p))
}

// createGroup creates a group from the form.
func (h *handler) createGroup(w http.ResponseWriter, r *http.Request) {
	id, name := strings.TrimSpace(r.PostFormValue("id")), strings.TrimSpace(r.PostFormValue("name"))
	noteResource(r, "group "+id)
	if _, err := h.opts.Access.CreateGroup(r.Context(), id, name); err != nil {
		status := statusOf(err)
		noteStatus(r, status)
		h.renderGroups(w, r, status, templates.GroupItem{ID: id, Name: name}, h.adminPlain(r, err, "a group named "+id))
		return
	}
	h.done(w, r, templates.AdminGroupURL(id), "ok", "Created the group "+id+". Add its members and give it roles.")
}

// group shows one group with its members and grants.
func (h *handler) group(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	acc := h.opts.Access
	id := chi.URLParam(r, "id")
	groups, err := acc.Groups(ctx)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.GroupPage{AdminLayout: h.adminLayout(w, r, "Group "+id, templates.AdminGroups)}
	found := false
	for _, g := range groups {
		if string(g.ID) == id {
			p.Group, found = templates.GroupItem{ID: string(g.ID), Name: g.Name, CreatedAt: g.CreatedAt}, true
		}
	}
	if !found {
		h.fail(w, r, http.StatusNotFound, "There is no group named "+id+".")
		return
	}
	members, err := acc.Members(ctx, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	for _, m := range members {
		p.Members = append(p.Members, string(m))
	}
	grants, err := acc.Grants(ctx, access.Subject{Kind: access.SubjectGroup, ID: id})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Grants = grantItems(grants)
	h.render(w, r, http.StatusOK, templates.Group(p))
}

// deleteGroup deletes a group with its memberships and grants.
func (h *handler) deleteGroup(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if err := h.opts.Access.DeleteGroup(r.Context(), id); err != nil {
		h.adminFailed(w, r, templates.RouteAdminGroups, err, "group named "+id)
		return
	}
	h.done(w, r, templates.RouteAdminGroups, "ok", "Deleted the group "+id+" with its memberships and grants.")
}

// addMember adds the form's user to a group.
func (h *handler) addMember(w http.ResponseWriter, r *http.Request) {
	id, user := chi.URLParam(r, "id"), strings.TrimSpace(r.PostFormValue("user"))
	to := templates.AdminGroupURL(id)
	noteResource(r, "group "+id+" user "+user)
	if user == "" {
		h.done(w, r, to, "error", "Type the user to add.")
		return
	}
	if err := h.opts.Access.SetMember(r.Context(), id, user, true); err != nil {
		h.adminFailed(w, r, to, err, "user named "+user+" (or no group "+id+")")
		return
	}
	h.done(w, r, to, "ok", "Added "+user+" to "+id+".")
}

// removeMember removes a user from a group.
func (h *handler) removeMember(w http.ResponseWriter, r *http.Request) {
	id, user := chi.URLParam(r, "id"), chi.URLParam(r, "user")
	to := templates.AdminGroupURL(id)
	noteResource(r, "group "+id+" user "+user)
	if err := h.opts.Access.SetMember(r.Context(), id, user, false); err != nil {
		h.adminFailed(w, r, to, err, "user named "+user+" (or no group "+id+")")
		return
	}
	h.done(w, r, to, "ok", "Removed "+user+" from "+id+".")
}

func grantItems(gs []access.GrantRecord) []templates.GrantItem {
	out := make([]templates.GrantItem, 0, len(gs))
	for _, g := range gs {
		it := templates.GrantItem{ID: g.ID, SubjectKind: string(g.Subject.Kind), SubjectID: g.Subject.ID, Role: string(g.Role),
			CreatedAt: g.CreatedAt, CreatedBy: string(g.CreatedBy)}
		if g.Grant != nil {
			it.Grant = g.Grant.String()
		}
		out = append(out, it)
	}
	return out
}

// grants lists the grants of one subject (subjectKind, subjectId) or all.
func (h *handler) grants(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	form := templates.GrantForm{SubjectKind: q.Get("subjectKind"), SubjectID: q.Get("subjectId")}
	h.renderGrants(w, r, http.StatusOK, form, "")
}

func (h *handler) renderGrants(w http.ResponseWriter, r *http.Request, status int, form templates.GrantForm, msg string) {
	q := r.URL.Query()
	subject := access.Subject{Kind: access.SubjectKind(q.Get("subjectKind")), ID: q.Get("subjectId")}
	if subject.Kind == "" || subject.ID == "" {
		subject = access.Subject{}
	}
	grants, err := h.opts.Access.Grants(r.Context(), subject)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.GrantsPage{AdminLayout: h.adminLayout(w, r, "Grants", templates.AdminGrants), SubjectKind: string(subject.Kind),
		SubjectID: subject.ID, Grants: grantItems(grants), Form: form}
	if msg != "" {
		p.Flash = errFlash(msg)
	}
	for _, ro := range auth.Roles() {
		p.Roles = append(p.Roles, string(ro))
	}
	for _, pe := range auth.Permissions() {
		p.Permissions = append(p.Permissions, string(pe))
	}
	for _, k := range auth.ResourceKinds() {
		p.Kinds = append(p.Kinds, string(k))
	}
	h.render(w, r, status, templates.Grants(p))
}

// grant gives a role, or a single grant, to a user or group.
func (h *handler) grant(w http.ResponseWriter, r *http.Request) {
	form := templates.GrantForm{
		SubjectKind: r.PostFormValue("subjectKind"), SubjectID: strings.TrimSpace(r.PostFormValue("subjectId")),
		Role: r.PostFormValue("role"), Permission: r.PostFormValue("permission"), Kind: r.PostFormValue("kind"),
		Pattern: strings.TrimSpace(r.PostFormValue("pattern")),
	}
	noteResource(r, form.SubjectKind+" "+form.SubjectID)
	refuse := func(status int, msg string) {
		noteStatus(r, status)
		h.renderGrants(w, r, status, form, msg)
	}
	g := access.GrantRecord{Subject: access.Subject{Kind: access.SubjectKind(form.SubjectKind), ID: form.SubjectID}}
	switch {
	case g.Subject.Kind != access.SubjectUser && g.Subject.Kind != access.SubjectGroup:
		refuse(http.StatusBadRequest, "Give it to a user or a group.")
		return
	case form.SubjectID == "":
		refuse(http.StatusBadRequest, "Name the "+form.SubjectKind+" to give it to.")
		return
	case form.Role != "" && (form.Permission != "" || form.Pattern != ""):
		refuse(http.StatusBadRequest, "Give either a role or a single grant, not both.")
		return
	case form.Role != "":
		ro, err := auth.ParseRole(form.Role)
		if err != nil {
			refuse(http.StatusBadRequest, "There is no role "+form.Role+".")
			return
		}
		g.Role = ro
	default:
		pattern := form.Pattern
		if form.Kind == string(auth.KindSystem) && pattern == "" {
			pattern = "*"
		}
		gr, err := auth.NewGrant(auth.Permission(form.Permission), auth.ResourceKind(form.Kind), pattern)
		if err != nil {
			refuse(http.StatusBadRequest, "That grant does not fit together: choose a role, or a permission, the kind of resource it applies to and a key pattern (such as order-*). "+
				"deploy, read, start and delete apply to process and decision; operate to process; work to job-type; admin and act-as to system with the pattern *.")
			return
		}
		g.Grant = &gr
	}
	out, err := h.opts.Access.Grant(r.Context(), h.caller(r).User, g)
	if err != nil {
		refuse(statusOf(err), h.adminPlain(r, err, form.SubjectKind+" named "+form.SubjectID))
		return
	}
	noteResource(r, fmt.Sprintf("grant %d", out.ID))
	what := "the role " + string(out.Role)
	if out.Grant != nil {
		what = "“" + out.Grant.String() + "”"
	}
	h.done(w, r, templates.AdminGrantsURL(form.SubjectKind, form.SubjectID), "ok", "Gave "+what+" to "+form.SubjectKind+" "+form.SubjectID+".")
}

// revokeGrant takes a grant back.
func (h *handler) revokeGrant(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		noteStatus(r, http.StatusNotFound)
		h.done(w, r, templates.RouteAdminGrants, "error", "There is no grant "+chi.URLParam(r, "id")+".")
		return
	}
	if err := h.opts.Access.Revoke(r.Context(), id); err != nil {
		h.adminFailed(w, r, templates.RouteAdminGrants, err, "grant "+strconv.FormatInt(id, 10))
		return
	}
	h.done(w, r, templates.RouteAdminGrants, "ok", "Took the grant back; it no longer applies.")
}

func tokenItem(t auth.Token) templates.TokenItem {
	it := templates.TokenItem{ID: string(t.ID), Owner: string(t.Owner), Name: t.Name, CreatedAt: t.CreatedAt,
		ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
	if t.Restriction != nil {
		it.Restriction = []string{}
		for _, g := range t.Restriction.Grants {
			it.Restriction = append(it.Restriction, g.String())
		}
	}
	return it
}

func tokenItems(ts []auth.Token) []templates.TokenItem {
	out := make([]templates.TokenItem, 0, len(ts))
	for _, t := range ts {
		out = append(out, tokenItem(t))
	}
	return out
}

// tokens lists API tokens, of one owner or all.
func (h *handler) tokens(w http.ResponseWriter, r *http.Request) {
	owner := r.URL.Query().Get("owner")
	h.renderTokens(w, r, http.StatusOK, owner, templates.TokenForm{Owner: owner}, "")
}

func (h *handler) renderTokens(w http.ResponseWriter, r *http.Request, status int, owner string, form templates.TokenForm, msg string) {
	tokens, err := h.opts.Access.Tokens(r.Context(), owner)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.TokensPage{AdminLayout: h.adminLayout(w, r, "Tokens", templates.AdminTokens), Owner: owner, Tokens: tokenItems(tokens), Form: form}
	if msg != "" {
		p.Flash = errFlash(msg)
		p.Here = templates.RouteAdminTokens
	}
	h.render(w, r, status, templates.Tokens(p))
}

// parseRestriction reads one grant per line ("work job-type invoice").
func parseRestriction(s string) ([]auth.Grant, error) {
	var out []auth.Grant
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) == 2 && f[1] == string(auth.KindSystem) {
			f = append(f, "*")
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d of the restriction must read “permission kind pattern”, such as “work job-type invoice”", i+1)
		}
		g, err := auth.NewGrant(auth.Permission(f[0]), auth.ResourceKind(f[1]), f[2])
		if err != nil {
			return nil, fmt.Errorf("line %d of the restriction (“%s”) is not a grant: the permission, the kind of resource it applies to and the pattern do not fit together", i+1, strings.Join(f, " "))
		}
		out = append(out, g)
	}
	return out, nil
}

// mintToken mints an API token for a user and shows its secret, once.
func (h *handler) mintToken(w http.ResponseWriter, r *http.Request) {
	form := templates.TokenForm{Owner: strings.TrimSpace(r.PostFormValue("owner")), Name: strings.TrimSpace(r.PostFormValue("name")),
		Days: strings.TrimSpace(r.PostFormValue("days")), Restriction: r.PostFormValue("restriction")}
	noteResource(r, "user "+form.Owner)
	refuse := func(status int, msg string) {
		noteStatus(r, status)
		h.renderTokens(w, r, status, "", form, msg)
	}
	req := access.NewToken{Owner: form.Owner, Name: form.Name}
	if form.Owner == "" || form.Name == "" {
		refuse(http.StatusBadRequest, "Name the token's owner and the token.")
		return
	}
	if form.Days != "" {
		d, err := strconv.Atoi(form.Days)
		if err != nil || d < 1 || d > maxTokenDays {
			refuse(http.StatusBadRequest, fmt.Sprintf("The lifetime must be a whole number of days from 1 to %d, or empty for a token that lives until it is revoked.", maxTokenDays))
			return
		}
		req.TTL = time.Duration(d) * 24 * time.Hour
	}
	if strings.TrimSpace(form.Restriction) != "" {
		gs, err := parseRestriction(form.Restriction)
		if err != nil {
			refuse(http.StatusBadRequest, sentence(err.Error()))
			return
		}
		req.Grants = gs
	}
	secret, t, err := h.opts.Access.MintTokenBy(r.Context(), h.caller(r), req)
	if err != nil {
		refuse(statusOf(err), h.adminPlain(r, err, "user named "+form.Owner))
		return
	}
	noteResource(r, "token "+string(t.ID))
	p := templates.TokenMintedPage{AdminLayout: h.adminLayout(w, r, "Token minted", templates.AdminTokens), Token: tokenItem(t), Secret: secret}
	h.render(w, r, http.StatusCreated, templates.TokenMinted(p))
}

// revokeToken revokes a token; it stops working at once.
func (h *handler) revokeToken(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	to := templates.RouteAdminTokens
	t, err := h.opts.Access.Token(r.Context(), id)
	if err != nil {
		h.adminFailed(w, r, to, err, "token "+id)
		return
	}
	if err := h.opts.Access.RevokeToken(r.Context(), id); err != nil {
		h.adminFailed(w, r, to, err, "token "+id)
		return
	}
	h.done(w, r, templates.AdminTokensURL(string(t.Owner)), "ok", "Revoked the token “"+t.Name+"” of "+string(t.Owner)+"; it stopped working.")
}

// auditOutcomes are the outcomes an audit entry can have.
var auditOutcomes = []string{"ok", "denied", "failed", "error"}

// audit lists the audit trail, newest first, filtered and paged by
// before (the Seq the page starts below).
func (h *handler) audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := templates.AuditFilter{Actor: strings.TrimSpace(q.Get("actor")), Action: strings.TrimSpace(q.Get("action")),
		Resource: strings.TrimSpace(q.Get("resource")), Outcome: q.Get("outcome")}
	var before int64
	if s := q.Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			h.fail(w, r, http.StatusBadRequest, "before must be a positive whole number (the entry the page starts below).")
			return
		}
		before = n
	}
	if f.Outcome != "" && !slices.Contains(auditOutcomes, f.Outcome) {
		h.fail(w, r, http.StatusBadRequest, "The outcome must be ok, denied, failed or error.")
		return
	}
	acc := h.opts.Access
	// One's own last act is on the page: entries are written in batches.
	if err := acc.FlushAudit(r.Context()); err != nil {
		h.failErr(w, r, err)
		return
	}
	entries, err := acc.Audit(r.Context(), access.AuditFilter{Actor: auth.UserID(f.Actor), Action: f.Action, Resource: f.Resource,
		Outcome: f.Outcome, Before: before, Limit: adminPageSize})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := templates.AuditPage{AdminLayout: h.adminLayout(w, r, "Audit trail", templates.AdminAudit), Filter: f, Outcomes: auditOutcomes}
	for _, e := range entries {
		p.Entries = append(p.Entries, templates.AuditItem{Seq: e.Seq, At: e.At, Actor: string(e.Actor), OnBehalfOf: string(e.OnBehalfOf),
			Via: e.Via, Action: e.Action, Resource: e.Resource, Outcome: e.Outcome, Status: e.Status, RequestID: e.RequestID, Addr: e.Addr})
	}
	if before > 0 {
		p.NewestURL = templates.AdminAuditURL(f, 0)
	}
	if len(entries) == adminPageSize {
		p.OlderURL = templates.AdminAuditURL(f, entries[len(entries)-1].Seq)
	}
	h.render(w, r, http.StatusOK, templates.Audit(p))
}

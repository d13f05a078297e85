// Package cockpit serves the operator cockpit: server-rendered HTML pages
// (templ components from web/templates) for processes (with a modeler),
// instances, the task inbox (with Camunda Forms), incidents and decisions,
// at the root of the server next to the JSON API, and with logins the
// login, first-run and admin pages. The browser side draws with the
// bpmn.io packages from npm (bpmn-js viewer and modeler, bpmn-auto-layout,
// form-js, dmn-js), which make vendor copies or bundles into web/static.
//
// # What it owns
//
// The HTTP handlers of the cockpit pages and actions, the mapping from the
// runtime's read API to the templates' view models, who is acting (a
// cookie in loopback mode, the logged-in person otherwise), cross-site
// request protection, and the flash messages that tell a person in plain
// words what an action did.
//
// # What it must not do
//
// It reads and acts only through Service, the narrow slice of the runtime it
// needs, and through access.Service for logins, rights and the audit trail;
// it never reaches into engine or store internals and never imports
// internal/api. Every action goes through the same runtime command as the
// JSON API, and is allowed by the same rule.
//
// # Logins and rights
//
// Without Options.Access (or in access mode none) nobody logs in: the
// acting-as box names who acts, and everybody may do everything; the
// server listens on loopback only. With builtin or oidc every page needs a
// session, the JSON API's gobpm_session cookie: without one a page leads
// to /login and back, an action answers 401. One table (routes.go) says
// what each page and action requires, as the API's route table does for
// the same act: lists show only the processes, instances and incidents the
// person may read, forms and buttons appear only for what they may do, and
// a forged form for anything else is refused with 403. Tasks and ad-hoc
// activations act as the logged-in person with their groups. Every action,
// refused ones too, is recorded in the audit trail; logins, failed logins
// and logouts as the API records them.
//
// # Live refresh
//
// Every page has a live region that htmx refreshes with the HX-Request
// header; the handler then renders only the templates.FragmentLive
// fragment of the same page. htmx evaluates nothing (allowEval is off: the
// Content-Security-Policy allows no eval): the region's trigger names two
// events, and cockpit.js decides when to send them. What changed is
// pushed: cockpit.js opens GET /events (server-sent events, events.go) for
// the page's instance or list, and each committed step the page shows (as
// far as the person may read it) refreshes the region once. While that
// stream is open the region does not poll but every 30 seconds (steps of
// other cluster nodes are not pushed); without it — no EventSource, a
// proxy that buffers, a broken connection until the browser reconnects —
// it polls every two seconds. The diagram sits outside that region, so it
// is imported once; forms a person fills are outside it or marked
// hx-preserve, and a refresh waits while focus is in one of the region's
// fields or a panel with fields is open there. A poll whose session ended
// sends htmx to the login page (HX-Redirect).
//
// # Example
//
//	h := cockpit.New(rt, logger, cockpit.Options{Access: acc})
//	http.ListenAndServe("127.0.0.1:8080", h)
package cockpit

// Package cockpit serves the operator cockpit: server-rendered HTML pages
// (templ components from web/templates) for processes, instances, the task
// inbox and incidents, at the root of the server next to the JSON API.
//
// # What it owns
//
// The HTTP handlers of the cockpit pages and actions, the mapping from the
// runtime's read API to the templates' view models, the acting identity
// (a cookie in loopback mode), cross-site request protection, and the flash
// messages that tell a person in plain words what an action did.
//
// # What it must not do
//
// It reads and acts only through Service, the narrow slice of the runtime it
// needs; it never reaches into engine or store internals and never imports
// internal/api. Every action goes through the same runtime command, and so
// the same authorization, as the JSON API.
//
// # Live refresh
//
// Every page has a live region that htmx polls every two seconds with the
// HX-Request header; the handler then renders only the templates.FragmentLive
// fragment of the same page. The diagram sits outside that region, so it is
// imported once; forms a person fills are outside it or marked hx-preserve.
//
// # Example
//
//	h := cockpit.New(rt, logger, cockpit.Options{})
//	http.ListenAndServe("127.0.0.1:8080", h)
package cockpit

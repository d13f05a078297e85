// Package httpjson is the REST connector gobpm's server runs itself: a
// built-in job worker for the job types io.camunda:http-json:1 (Camunda 8's
// REST connector, whose models run unchanged) and gobpm:http (gobpm's own
// name for it).
//
// # How it runs
//
// The worker activates, locks, completes and fails jobs through the
// runtime exactly as an external worker does (the Jobs interface): retries,
// backoff, incidents and lock expiry are the runtime's, and there is no
// second path into the engine. While a call runs its lock is extended; a
// job that is cancelled (its instance cancelled, its task interrupted)
// stops extending and its call is cancelled.
//
// Each call is handed to the job's act (runtime.ConnectorCall: method, URL
// as written, status or error, duration), whose step records it in the
// instance's history as a connector-call fact: with the act, or not at all
// when the act is refused. OAuth client credentials tokens are kept per
// client by the worker until shortly before they expire.
//
// # Inputs
//
// A job's variables carry Camunda's inputs as its element template sets
// them (zeebe:ioMapping): method, url, headers, queryParameters, body,
// authentication (type noAuth, basic, bearer, apiKey or
// oauth-client-credentials-flow, with their fields),
// connectionTimeoutInSeconds and readTimeoutInSeconds. Its headers
// (zeebe:taskHeaders) carry resultVariable, resultExpression,
// errorExpression and retryBackoff. {{secrets.NAME}} in any input string is
// replaced by a secret (Secrets) just before the call; secret values never
// reach variables, job errors or logs (they are masked as ***).
//
// # Safety
//
// Calls never reach loopback, private, link-local or other non-public
// addresses unless Options.AllowHosts allows them. The check runs on the
// resolved address when the connection is dialled (so DNS rebinding cannot
// pass it) and again for every redirect. Request and response bodies are
// capped and every call has a deadline.
//
// It imports runtime (the job acts), bpmn (the job types) and feel (the
// result and error expressions with Camunda's bpmnError and jobError); it
// must not import the store, the API or the engine.
package httpjson

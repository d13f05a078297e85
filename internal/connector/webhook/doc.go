// Package webhook serves the inbound webhooks of deployed processes at
// /webhooks/{path}: Camunda 8's webhook connector (zeebe:properties
// inbound.type="io.camunda:webhook:1" on a start event or a message
// intermediate catch or boundary event) and gobpm's gobpm:webhook.
//
// # How it runs
//
// Every request looks its path up among the webhooks of the latest
// version of every process (runtime.Webhooks, derived from the store, so
// it holds after a restart and on every node sharing the store), checks
// the method, the body cap, the per-path rate limit and the webhook's own
// authentication (HMAC over the raw body, basic, API key; {{secrets.NAME}}
// resolved by the REST connector's Secrets), and then starts an instance
// or correlates the message through the runtime's ordinary start and
// message paths. There is no second path into the engine.
//
// # Secrets
//
// Credentials and resolved secret values are masked as *** in the request
// kept in variables (a basic Authorization header entirely), and never
// logged.
//
// It imports runtime, bpmn and expr; the REST connector's Secrets reach it
// through the Secrets interface. It must not import the store, the API or
// the engine.
package webhook

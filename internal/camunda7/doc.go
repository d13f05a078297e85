// Package camunda7 is the adapter that serves Camunda 7's engine-rest
// shapes (/engine-rest) over the runtime, so Camunda 7 external task
// workers, clients and the Camunda Modeler work against gobpm unchanged.
// It is a thin translation layer, never a second engine: one file per
// resource — external tasks (externaltask.go, which holds New, the
// Service and Guard it needs and the error mapping), deployments
// (deployment.go), process definitions and starts (definitions.go),
// messages and signals (messages.go), process instances (instances.go),
// user tasks (tasks.go), incidents and history (history.go), the engine
// and version (misc.go) — plus typed variables (variables.go), Camunda
// 7's date format (dates.go) and its error bodies (errors.go).
package camunda7

// Package camunda7 is the adapter that serves Camunda 7's engine-rest
// shapes (/engine-rest) over the runtime, so Camunda 7 external task
// workers and clients work against gobpm unchanged. It is a thin
// translation layer, never a second engine: typed variables
// (variables.go), Camunda 7's date format (dates.go) and its error bodies
// (errors.go).
package camunda7

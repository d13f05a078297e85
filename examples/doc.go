// Package examples holds the README's example models and the tests that
// run them through the process-test harness (gobpmtest) and the job worker
// (client). It has no code of its own.
package examples

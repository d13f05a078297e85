// Package conformance replays the execution scenarios of
// shared/conformance/SCENARIOS.md against the real runtime over SQLite.
//
// The package has no production code: its tests hold one table entry per
// SCENARIOS row (scenarios_test.go), written in the step vocabulary of that
// file, and a harness (harness_test.go) that parses the steps and drives a
// fresh runtime.Runtime with an injected clock for every run. The BPMN files
// are read from shared/conformance next to the repository; without that
// folder those rows skip, unless CI=true, where its absence fails. The
// Flowable ad-hoc rows (F1–F9) deploy gobpm's translations from
// internal/bpmn/testdata/flowable instead (the originals lack the required
// gobpm:router and are refused); they run without the shared folder, and
// each says in its table entry how its steps differ from SCENARIOS.md.
package conformance

// Package tck runs the DMN Technology Compatibility Kit (github.com/dmn-tck/tck)
// against package dmn: the engine of cmd/gobpm-tck and of the
// compliance-level-2 test.
//
// # What it compares
//
// Run walks a directory tree. Every folder with .dmn models and test case
// files (*-test-NN.xml) is one test folder; its models are loaded together
// (dmn.ParseAll), so that they may import one another, and each test file
// tests the model its modelName names. A test case's input nodes are the
// model's input data by name — or, with a namespace attribute other than
// the model's, an imported model's (dmn.Request.Imported). Then:
//
//   - type="decision" (the default): each result node names a decision,
//     evaluated on its own;
//   - type="decisionService": the decision service invocableName is
//     evaluated with the inputs as its parameters, and each result node
//     names one of its output decisions;
//   - any other type fails the case.
//
// A result node passes when its expected value equals the FEEL-native
// result (dmn.Result.Native) by type and value — numbers by value within
// NumberTolerance (the TCK's own runners allow 1e-8), strings and
// booleans exactly, dates, times, dates and times and both kinds of
// duration by type and value (never by text: P1Y is P12M, 10:00:00+01:00
// is not 09:00:00Z), lists item by item, contexts entry by entry with the
// same keys; null only null — and, when errorResult="true", the
// evaluation reported an error (dmn.Result.Errors). A case passes when all
// its result nodes do. A model that does not load fails every case of the
// files that test it.
//
// The outcome is a Report: one CaseResult per test case, with the TCK's
// tck_results.csv format (WriteCSV) and per-folder counts (Folders).
package tck

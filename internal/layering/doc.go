// Package layering holds no code: its test keeps the package table of
// docs/architecture.md true, import by import, so that the layer rules
// written there (the pure core imports nothing above it, the API and the
// cockpit never import the engine or the store) are checked, not hoped for.
package layering

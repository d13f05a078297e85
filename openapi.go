// Package gobpm holds repository-level assets that other packages embed.
//
// Go cannot embed files from a parent directory, so the HTTP API contract
// (openapi.yaml, kept at the repository root where clients and reviewers look
// for it) is embedded here and served by internal/api.
package gobpm

import _ "embed"

// OpenAPI is the verbatim OpenAPI 3.1 document of the JSON API (openapi.yaml).
// internal/api serves it at GET /api/v1/openapi.yaml and its tests check that
// every route is documented and every response matches it.
//
//go:embed openapi.yaml
var OpenAPI []byte

// Package access decides who is calling gobpm and what they may do: it
// authenticates requests (cockpit sessions, API tokens, OIDC bearer tokens,
// or nobody on a loopback-only server), resolves the caller's roles and
// grants from the Store, manages built-in users, groups, grants and tokens,
// and keeps the audit trail. The decisions themselves (password hashes,
// token formats, Allowed) live in package auth; this package adds storage
// and time.
package access

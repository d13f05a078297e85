// Package auth is gobpm's identity and authorization core
// (docs/security.md): password hashing, API tokens, cockpit sessions, login
// throttling, OIDC verification and the authorization decision. It holds
// no state of its own beyond a Throttle's counters, a HashPool's slots and
// an OIDC's key cache:
// the store keeps users, tokens and sessions; the API asks this package
// what they mean.
//
// It imports neither store, runtime, engine nor api. Time and randomness
// come in as arguments (a now, a clock func, an io.Reader) so tests are
// deterministic; a nil io.Reader means crypto/rand.
//
// # Passwords
//
// HashPassword makes an argon2id hash in the PHC string format
// ($argon2id$v=19$m=…,t=…,p=…$salt$key); VerifyPassword reads the
// parameters back from it, so DefaultParams can be raised later and
// NeedsRehash tells which stored hashes to replace at the next login.
// CheckPasswordPolicy is the rule for setting a password. Every hash holds
// its Params.Memory (64 MiB by default) while it runs, so a server runs
// them in one HashPool: GOMAXPROCS at once, a short queue, and ErrBusy for
// the excess before any hashing.
//
// # Tokens and sessions
//
// An API token is "gobpm_" + a public id + "_" + a 256-bit secret. The store
// keeps a Token: metadata and the SHA-256 of the secret (a SecretHash),
// looked up by id and verified in constant time by Token.Verify. A cockpit
// Session is kept the same way, by the hash of its cookie's id. Neither a
// secret nor a hash ever prints: Token, Session, SecretHash and Secret
// redact themselves in fmt, slog and encoding/json.
//
// # Authorization
//
// A Grant allows a Permission on the resources of a ResourceKind whose keys
// match a Pattern ("*", "order-*", "order"; at most one '*', see Pattern).
// Roles bundle grants on "*". A Principal is a user with the roles and
// grants of the user and their groups, and possibly restrictions that
// narrow a token below its owner. Allowed is the one decision; Filter is the
// same decision for lists. Pattern.Contains, Grant.Contains and
// Restriction.Excess compare grants themselves, so a token minted by a
// restricted one can be held within it.
//
//	dev := auth.Principal{User: "ann", Roles: []auth.Role{auth.RoleDeveloper}}
//	auth.Allowed(dev, auth.PermDeploy, auth.KindProcess, "order") // true
//	auth.Allowed(dev, auth.PermDelete, auth.KindProcess, "order") // false
//
// # Login throttling and OIDC
//
// A Throttle locks a user name or client address out after repeated
// failures, for longer each time, and (Begin) caps the attempts in flight
// for each, counting them as failures to come. OIDC wraps github.com/coreos/go-oidc: it
// verifies the provider's JWT bearer tokens (VerifyBearer) and runs the
// cockpit's authorization-code login with PKCE (StartLogin, FinishLogin),
// mapping a claim's values to gobpm groups.
package auth

package templates

// LoginPage asks for a user name and password (--auth builtin), or offers
// the identity provider's login (--auth oidc).
type LoginPage struct {
	Layout
	// Next is the cockpit path to return to after the login.
	Next string
	// User keeps the typed user name when a login was refused (never the
	// password).
	User string
	// OIDC is true when people log in at an OpenID provider, named
	// OIDCName on the button.
	OIDC     bool
	OIDCName string
}

// SetupPage creates the first administrator of a new server with the
// one-time set-up token from the server's log.
type SetupPage struct {
	Layout
	// User keeps the typed user name when the set-up was refused.
	User string
}

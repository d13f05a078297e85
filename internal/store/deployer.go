package store

// Deployer is who deployed a deployment.
type Deployer struct {
	// User is the authenticated user; "" when nobody authenticated.
	User string
	// Groups are the groups the identity provider named at deployment
	// (OIDC), whose grants count too; nil for a built-in user, whose
	// groups are read from the store when a reach is checked.
	Groups []string
}

// IsZero reports a deployment nobody authenticated for.
func (d Deployer) IsZero() bool { return d.User == "" }

package auth_test

import (
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

// A worker's token limited to one job type: its owner has the worker role,
// the token may work only "invoice" jobs.
func ExampleAllowed() {
	owner := auth.Principal{User: "svc-billing", Roles: []auth.Role{auth.RoleWorker}}
	invoice, _ := auth.NewGrant(auth.PermWork, auth.KindJobType, "invoice")
	secret, tok, _ := auth.MintToken(nil, time.Now(), auth.TokenRequest{
		Owner: "svc-billing", Name: "invoice worker",
		Restriction: &auth.Restriction{Grants: []auth.Grant{invoice}},
	})

	// On each request: parse, look the Token up by id, verify, authorize.
	presented, _ := auth.ParseToken(secret)
	fmt.Println(presented.ID() == tok.ID, tok.Verify(presented, time.Now()))
	p := tok.Principal(owner)
	fmt.Println(auth.Allowed(p, auth.PermWork, auth.KindJobType, "invoice"))
	fmt.Println(auth.Allowed(p, auth.PermWork, auth.KindJobType, "shipping"))
	fmt.Println(auth.Allowed(owner, auth.PermWork, auth.KindJobType, "shipping"))
	// Output:
	// true <nil>
	// true
	// false
	// true
}

// Hashing a password at sign-up and checking it at login.
func ExampleVerifyPassword() {
	const pw = "correct horse battery staple"
	if err := auth.CheckPasswordPolicy(pw); err != nil {
		panic(err)
	}
	stored, _ := auth.HashPassword(nil, pw, auth.TestParams()) // DefaultParams in production
	fmt.Println(auth.VerifyPassword(stored, pw))
	fmt.Println(auth.VerifyPassword(stored, "wrong horse battery staple"))
	fmt.Println(auth.NeedsRehash(stored, auth.DefaultParams()))
	// Output:
	// <nil>
	// verify password: auth: credentials do not match
	// true
}

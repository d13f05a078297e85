package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/auth"
)

// OIDCConfig is the --oidc-* configuration of --auth oidc.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL.
	Issuer string
	// ClientID and ClientSecret identify gobpm at the provider (the secret
	// may be empty for a public client).
	ClientID, ClientSecret string
	// Audience is what API bearer tokens must name; the client id when
	// empty (then the cockpit's ID tokens work as API tokens too — give the
	// API its own audience where the provider allows it).
	Audience string
	// UserClaim names the claim that becomes the user id ("sub" when empty).
	UserClaim string
	// GroupsClaim names the claim with the user's groups or roles (a dotted
	// path such as realm_access.roles).
	GroupsClaim string
	// GroupMap maps claim values to gobpm groups: "value=group,value2=group2".
	GroupMap string
	// KeepUnmapped keeps claim values GroupMap does not mention as groups of
	// the same name.
	KeepUnmapped bool
	// AdminGroups are gobpm groups whose members are admins (the first
	// admins of an OIDC deployment), comma-separated.
	AdminGroups string
	// Scopes are requested at login besides openid, comma-separated.
	Scopes string
	// Name names the provider on the cockpit's login button.
	Name string
}

// register declares the --oidc-* flags.
func (o *OIDCConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&o.Issuer, "oidc-issuer", getenv("GOBPM_OIDC_ISSUER"), "--auth oidc: the provider's issuer URL (GOBPM_OIDC_ISSUER)")
	fs.StringVar(&o.ClientID, "oidc-client-id", getenv("GOBPM_OIDC_CLIENT_ID"), "--auth oidc: gobpm's client id at the provider (GOBPM_OIDC_CLIENT_ID)")
	// The secret comes from the environment only: a flag would show it in ps.
	o.ClientSecret = getenv("GOBPM_OIDC_CLIENT_SECRET")
	fs.StringVar(&o.Audience, "oidc-audience", getenv("GOBPM_OIDC_AUDIENCE"), "--auth oidc: the audience API bearer tokens must name; the client id when empty (GOBPM_OIDC_AUDIENCE)")
	fs.StringVar(&o.UserClaim, "oidc-user-claim", getenv("GOBPM_OIDC_USER_CLAIM"), "--auth oidc: the claim that names the user; sub when empty (GOBPM_OIDC_USER_CLAIM)")
	fs.StringVar(&o.GroupsClaim, "oidc-groups-claim", getenv("GOBPM_OIDC_GROUPS_CLAIM"), "--auth oidc: the claim with the user's groups or roles, e.g. groups or realm_access.roles (GOBPM_OIDC_GROUPS_CLAIM)")
	fs.StringVar(&o.GroupMap, "oidc-group-map", getenv("GOBPM_OIDC_GROUP_MAP"), "--auth oidc: claim values to gobpm groups, e.g. 'bpm-admins=admins,sales=clerks' (GOBPM_OIDC_GROUP_MAP)")
	fs.BoolVar(&o.KeepUnmapped, "oidc-keep-unmapped", getenv("GOBPM_OIDC_KEEP_UNMAPPED") == "true", "--auth oidc: claim values the map does not name become groups of the same name (GOBPM_OIDC_KEEP_UNMAPPED=true)")
	fs.StringVar(&o.AdminGroups, "oidc-admin-groups", getenv("GOBPM_OIDC_ADMIN_GROUPS"), "--auth oidc: gobpm groups whose members are admins, comma-separated (GOBPM_OIDC_ADMIN_GROUPS)")
	fs.StringVar(&o.Name, "oidc-name", getenv("GOBPM_OIDC_NAME"), "--auth oidc: the provider's name on the login button, e.g. Keycloak (GOBPM_OIDC_NAME)")
	fs.StringVar(&o.Scopes, "oidc-scopes", def0(getenv("GOBPM_OIDC_SCOPES"), "profile,email"), "--auth oidc: scopes requested at login besides openid (GOBPM_OIDC_SCOPES)")
}

func def0(v, fallback string) string {
	if v != "" {
		return v
	}
	return fallback
}

// config returns the relying-party configuration for public URL base.
func (o OIDCConfig) config(base string) (auth.OIDCConfig, error) {
	groups := map[string][]auth.GroupID{}
	for _, pair := range splitList(o.GroupMap) {
		value, group, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(value) == "" || strings.TrimSpace(group) == "" {
			return auth.OIDCConfig{}, fmt.Errorf("--oidc-group-map: %q is not value=group", pair)
		}
		groups[strings.TrimSpace(value)] = append(groups[strings.TrimSpace(value)], auth.GroupID(strings.TrimSpace(group)))
	}
	return auth.OIDCConfig{
		IssuerURL: o.Issuer, ClientID: o.ClientID, ClientSecret: auth.Secret(o.ClientSecret),
		RedirectURL: strings.TrimSuffix(base, "/") + "/login/oidc/callback", Audience: o.Audience,
		Scopes: splitList(o.Scopes), UserClaim: o.UserClaim, GroupsClaim: o.GroupsClaim,
		GroupMap: groups, KeepUnmapped: o.KeepUnmapped,
	}, nil
}

// adminGroups returns --oidc-admin-groups.
func (o OIDCConfig) adminGroups() []auth.GroupID {
	var out []auth.GroupID
	for _, g := range splitList(o.AdminGroups) {
		out = append(out, auth.GroupID(g))
	}
	return out
}

// splitList splits a comma-separated list, trimming blanks and dropping
// empty entries.
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

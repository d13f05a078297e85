package auth_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
)

func TestParsePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		ok      bool
		match   []string
		miss    []string
	}{
		{"*", true, []string{"order", "a", "*", "order-eu"}, []string{""}},
		{"order", true, []string{"order"}, []string{"orders", "order-1", "Order", "", "xorder"}},
		{"order-*", true, []string{"order-", "order-1", "order-eu-2"}, []string{"order", "orders", "Order-1", "x-order-1"}},
		{"*-eu", true, []string{"-eu", "order-eu"}, []string{"order-EU", "order-eu-2"}},
		{"order-*-eu", true, []string{"order--eu", "order-1-eu"}, []string{"order-eu", "order-1-us"}},
		{"ab*ba", true, []string{"abba", "abxba"}, []string{"aba"}}, // prefix and suffix may not overlap
		{"prüfung-*", true, []string{"prüfung-1"}, []string{"prufung-1"}},
		{"", false, nil, nil},
		{"**", false, nil, nil},
		{"order-*-*", false, nil, nil},
		{"order *", false, nil, nil},
		{" order", false, nil, nil},
		{"order\t", false, nil, nil},
		{"order\u00a0x", false, nil, nil},
		{"order\x00", false, nil, nil},
		{"bad\xffutf8", false, nil, nil},
		{strings.Repeat("a", auth.MaxPatternBytes), true, []string{strings.Repeat("a", auth.MaxPatternBytes)}, nil},
		{strings.Repeat("a", auth.MaxPatternBytes+1), false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20q", tt.pattern), func(t *testing.T) {
			t.Parallel()
			p, err := auth.ParsePattern(tt.pattern)
			if !tt.ok {
				if !errors.Is(err, auth.ErrInvalidPattern) {
					t.Fatalf("ParsePattern = %v, want ErrInvalidPattern", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePattern: %v", err)
			}
			if p.String() != tt.pattern {
				t.Errorf("String() = %q", p.String())
			}
			for _, k := range tt.match {
				if !p.Match(k) {
					t.Errorf("%q does not match %q", tt.pattern, k)
				}
			}
			for _, k := range tt.miss {
				if p.Match(k) {
					t.Errorf("%q matches %q", tt.pattern, k)
				}
			}
		})
	}
	var zero auth.Pattern
	if zero.Match("x") || zero.Match("") || !zero.IsZero() {
		t.Error("the zero Pattern matches something")
	}
	p := auth.MustParsePattern("order-*-eu")
	if p.Prefix() != "order-" || p.Suffix() != "-eu" || !p.Wildcard() || p.IsAny() {
		t.Errorf("parts of %v: %q %q %v %v", p, p.Prefix(), p.Suffix(), p.Wildcard(), p.IsAny())
	}
	if !auth.Any().IsAny() || auth.Any().String() != "*" {
		t.Error("Any is not *")
	}
}

func TestGrantValidateAndJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perm    auth.Permission
		kind    auth.ResourceKind
		pattern string
		want    error
	}{
		{auth.PermDeploy, auth.KindProcess, "order-*", nil},
		{auth.PermDeploy, auth.KindDecision, "*", nil},
		{auth.PermStart, auth.KindDecision, "risk", nil},
		{auth.PermOperate, auth.KindProcess, "*", nil},
		{auth.PermOperate, auth.KindDecision, "*", auth.ErrInvalidGrant},
		{auth.PermWork, auth.KindJobType, "invoice", nil},
		{auth.PermDeploy, auth.KindJobType, "payroll-*", nil},
		{auth.PermStart, auth.KindJobType, "*", auth.ErrInvalidGrant},
		{auth.PermOperate, auth.KindJobType, "*", auth.ErrInvalidGrant},
		{auth.PermWork, auth.KindProcess, "*", auth.ErrInvalidGrant},
		{auth.PermRead, auth.KindJobType, "*", auth.ErrInvalidGrant},
		{auth.PermAdmin, auth.KindSystem, "*", nil},
		{auth.PermAdmin, auth.KindSystem, "x", auth.ErrInvalidGrant},
		{auth.PermAdmin, auth.KindProcess, "*", auth.ErrInvalidGrant},
		{auth.PermActAs, auth.KindSystem, "*", nil},
		{auth.PermDeploy, auth.KindSystem, "*", auth.ErrInvalidGrant},
		{"approve", auth.KindProcess, "*", auth.ErrInvalidGrant},
		{auth.PermRead, "instance", "*", auth.ErrInvalidGrant},
		{auth.PermRead, auth.KindProcess, "a**", auth.ErrInvalidPattern},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.perm, tt.kind, tt.pattern), func(t *testing.T) {
			t.Parallel()
			g, err := auth.NewGrant(tt.perm, tt.kind, tt.pattern)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("NewGrant = %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewGrant: %v", err)
			}
			b, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			var back auth.Grant
			if err := json.Unmarshal(b, &back); err != nil || back != g || back.Validate() != nil {
				t.Errorf("JSON round trip of %s via %s: %v, %v", g, b, back, err)
			}
		})
	}
	var g auth.Grant
	err := json.Unmarshal([]byte(`{"permission":"read","kind":"process","pattern":"a b"}`), &g)
	if !errors.Is(err, auth.ErrInvalidPattern) {
		t.Errorf("decoding an invalid pattern = %v, want ErrInvalidPattern", err)
	}
	if err := (auth.Grant{Permission: auth.PermRead, Kind: auth.KindProcess}).Validate(); !errors.Is(err, auth.ErrInvalidGrant) {
		t.Errorf("a grant without pattern validates: %v", err)
	}
}

func TestParseNames(t *testing.T) {
	t.Parallel()
	for _, p := range auth.Permissions() {
		if got, err := auth.ParsePermission(string(p)); err != nil || got != p {
			t.Errorf("ParsePermission(%q) = %q, %v", p, got, err)
		}
		if len(p.Kinds()) == 0 {
			t.Errorf("%s applies to no kind", p)
		}
	}
	for _, k := range auth.ResourceKinds() {
		if got, err := auth.ParseResourceKind(string(k)); err != nil || got != k {
			t.Errorf("ParseResourceKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, r := range auth.Roles() {
		if got, err := auth.ParseRole(string(r)); err != nil || got != r {
			t.Errorf("ParseRole(%q) = %q, %v", r, got, err)
		}
		for _, g := range r.Grants() {
			if err := g.Validate(); err != nil || !g.Pattern.IsAny() {
				t.Errorf("role %s has grant %s: %v", r, g, err)
			}
		}
	}
	if _, err := auth.ParsePermission("Deploy"); !errors.Is(err, auth.ErrInvalidGrant) {
		t.Errorf("ParsePermission(Deploy) = %v", err)
	}
	if _, err := auth.ParseResourceKind("jobtype"); !errors.Is(err, auth.ErrInvalidGrant) {
		t.Errorf("ParseResourceKind(jobtype) = %v", err)
	}
	if _, err := auth.ParseRole("root"); !errors.Is(err, auth.ErrInvalidGrant) {
		t.Errorf("ParseRole(root) = %v", err)
	}
	if auth.Role("root").Grants() != nil {
		t.Error("an unknown role grants something")
	}
}

// roleMatrix is the intended meaning of the built-in roles, written out
// independently of Role.Grants: role → the "permission kind" pairs it
// allows (on any key).
var roleMatrix = map[auth.Role][]string{
	auth.RoleAdmin: {
		"deploy process", "read process", "start process", "operate process", "delete process",
		"deploy decision", "read decision", "start decision", "delete decision",
		"deploy job-type", "work job-type", "admin system",
	},
	auth.RoleDeveloper: {
		"deploy process", "read process", "start process", "operate process",
		"deploy decision", "read decision", "start decision",
		"deploy job-type",
	},
	auth.RoleOperator: {
		"read process", "start process", "operate process",
		"read decision", "start decision",
	},
	auth.RoleWorker: {"work job-type"},
	auth.RoleViewer: {"read process", "read decision"},
}

func TestRoleMatrix(t *testing.T) {
	t.Parallel()
	if len(roleMatrix) != len(auth.Roles()) {
		t.Fatalf("matrix covers %d roles, there are %d", len(roleMatrix), len(auth.Roles()))
	}
	for _, role := range auth.Roles() {
		p := auth.Principal{User: "u", Roles: []auth.Role{role}}
		for _, perm := range auth.Permissions() {
			for _, kind := range auth.ResourceKinds() {
				want := slices.Contains(roleMatrix[role], string(perm)+" "+string(kind))
				for _, key := range []string{"order", "order-eu-1", "invoice"} {
					if got := auth.Allowed(p, perm, kind, key); got != want {
						t.Errorf("%s: Allowed(%s, %s, %q) = %v, want %v", role, perm, kind, key, got, want)
					}
				}
			}
		}
	}
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	g := func(perm auth.Permission, kind auth.ResourceKind, pattern string) auth.Grant {
		return mustGrant(t, perm, kind, pattern)
	}
	orderStarter := auth.Principal{User: "clerk", Groups: []auth.GroupID{"sales"},
		Roles: []auth.Role{auth.RoleViewer}, Grants: []auth.Grant{g(auth.PermStart, auth.KindProcess, "order-*")}}
	worker := auth.Principal{User: "svc", Roles: []auth.Role{auth.RoleWorker}}
	invoiceOnly := auth.Token{Owner: "svc", Restriction: &auth.Restriction{Grants: []auth.Grant{g(auth.PermWork, auth.KindJobType, "invoice")}}}
	overreach := auth.Token{Owner: "viewer", Restriction: &auth.Restriction{Grants: []auth.Grant{g(auth.PermDeploy, auth.KindProcess, "*")}}}
	empty := auth.Token{Owner: "svc", Restriction: &auth.Restriction{}}
	admin := auth.Principal{User: "root", Roles: []auth.Role{auth.RoleAdmin}}
	inbox := auth.Principal{User: "inbox", Grants: []auth.Grant{g(auth.PermActAs, auth.KindSystem, "*")}}
	twice := invoiceOnly.Principal(worker)
	twice = auth.Token{Owner: "svc", Restriction: &auth.Restriction{Grants: []auth.Grant{g(auth.PermWork, auth.KindJobType, "ship")}}}.Principal(twice)
	tests := []struct {
		name string
		p    auth.Principal
		perm auth.Permission
		kind auth.ResourceKind
		key  string
		want bool
	}{
		{"grant pattern matches", orderStarter, auth.PermStart, auth.KindProcess, "order-eu", true},
		{"grant pattern misses", orderStarter, auth.PermStart, auth.KindProcess, "invoice", false},
		{"grant on processes only", orderStarter, auth.PermStart, auth.KindDecision, "order-eu", false},
		{"role adds read", orderStarter, auth.PermRead, auth.KindProcess, "invoice", true},
		{"neither gives operate", orderStarter, auth.PermOperate, auth.KindProcess, "order-eu", false},
		{"empty key", orderStarter, auth.PermRead, auth.KindProcess, "", false},
		{"no user, admin role", auth.Principal{Roles: []auth.Role{auth.RoleAdmin}}, auth.PermRead, auth.KindProcess, "x", false},
		{"zero principal", auth.Principal{}, auth.PermRead, auth.KindProcess, "x", false},
		{"unknown role", auth.Principal{User: "u", Roles: []auth.Role{"superuser"}}, auth.PermRead, auth.KindProcess, "x", false},
		{"invalid grant covers nothing", auth.Principal{User: "u", Grants: []auth.Grant{{Permission: auth.PermWork, Kind: auth.KindProcess, Pattern: auth.Any()}}}, auth.PermWork, auth.KindProcess, "x", false},
		{"admin is admin", admin, auth.PermAdmin, auth.KindSystem, "", true},
		{"admin cannot act as", admin, auth.PermActAs, auth.KindSystem, "", false},
		{"act-as grant", inbox, auth.PermActAs, auth.KindSystem, "", true},
		{"act-as is not admin", inbox, auth.PermAdmin, auth.KindSystem, "", false},
		{"restricted token, its job type", invoiceOnly.Principal(worker), auth.PermWork, auth.KindJobType, "invoice", true},
		{"restricted token, other job type", invoiceOnly.Principal(worker), auth.PermWork, auth.KindJobType, "ship", false},
		{"owner, other job type", worker, auth.PermWork, auth.KindJobType, "ship", true},
		{"token cannot exceed its owner", overreach.Principal(auth.Principal{User: "viewer", Roles: []auth.Role{auth.RoleViewer}}), auth.PermDeploy, auth.KindProcess, "order", false},
		{"restricted token keeps nothing else", overreach.Principal(auth.Principal{User: "viewer", Roles: []auth.Role{auth.RoleViewer}}), auth.PermRead, auth.KindProcess, "order", false},
		{"empty restriction allows nothing", empty.Principal(worker), auth.PermWork, auth.KindJobType, "invoice", false},
		{"two restrictions intersect", twice, auth.PermWork, auth.KindJobType, "invoice", false},
		{"two restrictions intersect (other)", twice, auth.PermWork, auth.KindJobType, "ship", false},
		{"unrestricted token is its owner", auth.Token{Owner: "svc"}.Principal(worker), auth.PermWork, auth.KindJobType, "ship", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := auth.Allowed(tt.p, tt.perm, tt.kind, tt.key); got != tt.want {
				t.Fatalf("Allowed(%s, %s, %q) = %v, want %v", tt.perm, tt.kind, tt.key, got, tt.want)
			}
			if tt.kind != auth.KindSystem {
				if got := tt.p.Filter(tt.perm, tt.kind).Match(tt.key); got != tt.want {
					t.Fatalf("Filter(%s, %s).Match(%q) = %v, want %v", tt.perm, tt.kind, tt.key, got, tt.want)
				}
			}
		})
	}
	if !orderStarter.InGroup("sales") || orderStarter.InGroup("ops") {
		t.Error("InGroup is wrong")
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	g := func(perm auth.Permission, pattern string) auth.Grant {
		return mustGrant(t, perm, auth.KindProcess, pattern)
	}
	restrict := func(p auth.Principal, patterns ...string) auth.Principal {
		r := &auth.Restriction{}
		for _, s := range patterns {
			r.Grants = append(r.Grants, g(auth.PermRead, s))
		}
		return auth.Token{Owner: p.User, Restriction: r}.Principal(p)
	}
	viewer := auth.Principal{User: "v", Roles: []auth.Role{auth.RoleViewer}}
	orders := auth.Principal{User: "o", Grants: []auth.Grant{g(auth.PermRead, "order-*"), g(auth.PermRead, "refund"), g(auth.PermStart, "*")}}
	tests := []struct {
		name    string
		p       auth.Principal
		all     bool
		none    bool
		clauses string
	}{
		{"viewer", viewer, true, false, "[]"},
		{"no user", auth.Principal{Roles: []auth.Role{auth.RoleViewer}}, false, true, "[]"},
		{"no read", auth.Principal{User: "w", Roles: []auth.Role{auth.RoleWorker}}, false, true, "[]"},
		{"patterns", orders, false, false, "[[order-* refund]]"},
		{"viewer restricted", restrict(viewer, "order-*"), false, false, "[[order-*]]"},
		{"patterns restricted", restrict(orders, "*-eu"), false, false, "[[order-* refund] [*-eu]]"},
		{"restricted to *", restrict(orders, "*"), false, false, "[[order-* refund]]"},
		{"empty restriction", restrict(viewer), false, true, "[]"},
	}
	keys := []string{"order-eu", "order-us", "refund", "refund-eu", "invoice-eu", "invoice", ""}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.p.Filter(auth.PermRead, auth.KindProcess)
			if f.All() != tt.all || f.None() != tt.none {
				t.Errorf("All, None = %v, %v; want %v, %v", f.All(), f.None(), tt.all, tt.none)
			}
			if got := fmt.Sprint(f.Clauses()); got != tt.clauses {
				t.Errorf("Clauses = %s, want %s", got, tt.clauses)
			}
			for _, k := range keys {
				if got, want := f.Match(k), auth.Allowed(tt.p, auth.PermRead, auth.KindProcess, k); got != want {
					t.Errorf("Match(%q) = %v, Allowed = %v", k, got, want)
				}
			}
		})
	}
	if !(auth.Filter{}).All() || !(auth.Filter{}).Match("x") {
		t.Error("the zero Filter does not pass every key")
	}
}

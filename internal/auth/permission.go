package auth

import (
	"fmt"
	"slices"
)

// Permission is something a principal may do to a resource.
type Permission string

// The permissions. Each applies to the resource kinds its Kinds method
// lists; a grant of a permission on another kind is invalid.
const (
	// PermDeploy deploys models: a deployment needs it on every process key
	// and decision key it holds, and on every job type its models create
	// jobs of (a model reaches only what its deployer may reach: docs/security.md
	// "Reach").
	PermDeploy Permission = "deploy"
	// PermRead reads definitions and, for processes, their instances,
	// history, variables, waits and incidents. Lists show only what it
	// covers.
	PermRead Permission = "read"
	// PermStart starts instances of a process, or evaluates a decision.
	PermStart Permission = "start"
	// PermOperate changes running instances of a process: cancel, modify,
	// retry incidents, set variables.
	PermOperate Permission = "operate"
	// PermDelete deletes ended instances of a process, or definitions.
	PermDelete Permission = "delete"
	// PermWork activates, completes, fails and extends jobs of a job type.
	PermWork Permission = "work"
	// PermAdmin manages users, groups, tokens and grants. It applies to
	// KindSystem only and implies no other permission.
	PermAdmin Permission = "admin"
	// PermActAs lets a caller (an inbox front-end's token) name the user it
	// acts for. It applies to KindSystem only and is in no built-in role:
	// impersonation is always a deliberate grant.
	PermActAs Permission = "act-as"
)

// Permissions returns every permission, in a fixed order.
func Permissions() []Permission {
	return []Permission{PermDeploy, PermRead, PermStart, PermOperate, PermDelete, PermWork, PermAdmin, PermActAs}
}

// ParsePermission returns the permission named s, or an error wrapping
// ErrInvalidGrant.
func ParsePermission(s string) (Permission, error) {
	if p := Permission(s); slices.Contains(Permissions(), p) {
		return p, nil
	}
	return "", fmt.Errorf("permission %q: unknown: %w", s, ErrInvalidGrant)
}

// Kinds returns the resource kinds p applies to (none for an unknown p).
func (p Permission) Kinds() []ResourceKind {
	switch p {
	case PermDeploy:
		return []ResourceKind{KindProcess, KindDecision, KindJobType}
	case PermRead, PermStart, PermDelete:
		return []ResourceKind{KindProcess, KindDecision}
	case PermOperate:
		return []ResourceKind{KindProcess}
	case PermWork:
		return []ResourceKind{KindJobType}
	case PermAdmin, PermActAs:
		return []ResourceKind{KindSystem}
	}
	return nil
}

// AppliesTo reports whether p can be granted on resources of kind k.
func (p Permission) AppliesTo(k ResourceKind) bool { return slices.Contains(p.Kinds(), k) }

// ResourceKind names the kind of resource a key belongs to.
type ResourceKind string

// The resource kinds.
const (
	// KindProcess resources are process definition keys; their instances
	// belong to them.
	KindProcess ResourceKind = "process"
	// KindDecision resources are decision keys.
	KindDecision ResourceKind = "decision"
	// KindJobType resources are job types (a service task's type).
	KindJobType ResourceKind = "job-type"
	// KindSystem is gobpm itself, for PermAdmin and PermActAs; it has no
	// keys, and its grants use the pattern "*".
	KindSystem ResourceKind = "system"
)

// ResourceKinds returns every resource kind, in a fixed order.
func ResourceKinds() []ResourceKind {
	return []ResourceKind{KindProcess, KindDecision, KindJobType, KindSystem}
}

// ParseResourceKind returns the kind named s, or an error wrapping
// ErrInvalidGrant.
func ParseResourceKind(s string) (ResourceKind, error) {
	if k := ResourceKind(s); slices.Contains(ResourceKinds(), k) {
		return k, nil
	}
	return "", fmt.Errorf("resource kind %q: unknown: %w", s, ErrInvalidGrant)
}

// Grant allows Permission on the resources of Kind whose keys match
// Pattern. Grants are given to users and groups (and bundled by roles);
// whoever builds a Principal collects the grants of its user and groups.
type Grant struct {
	// Permission is what the grant allows.
	Permission Permission `json:"permission"`
	// Kind is the kind of resource it allows it on.
	Kind ResourceKind `json:"kind"`
	// Pattern selects the keys of that kind; "*" for KindSystem.
	Pattern Pattern `json:"pattern"`
}

// NewGrant parses pattern and returns the grant, or an error wrapping
// ErrInvalidGrant or ErrInvalidPattern (see Grant.Validate).
func NewGrant(perm Permission, kind ResourceKind, pattern string) (Grant, error) {
	p, err := ParsePattern(pattern)
	if err != nil {
		return Grant{}, fmt.Errorf("grant %s on %s: %w", perm, kind, err)
	}
	g := Grant{Permission: perm, Kind: kind, Pattern: p}
	if err := g.Validate(); err != nil {
		return Grant{}, err
	}
	return g, nil
}

// Validate reports whether g can be granted: a known permission on a kind it
// applies to, a non-zero pattern, and "*" for KindSystem. It wraps
// ErrInvalidGrant.
func (g Grant) Validate() error {
	switch {
	case !slices.Contains(Permissions(), g.Permission):
		return fmt.Errorf("grant %s: unknown permission %q: %w", g, g.Permission, ErrInvalidGrant)
	case !g.Permission.AppliesTo(g.Kind):
		return fmt.Errorf("grant %s: %s does not apply to %q: %w", g, g.Permission, g.Kind, ErrInvalidGrant)
	case g.Pattern.IsZero():
		return fmt.Errorf("grant %s: no pattern: %w", g, ErrInvalidGrant)
	case g.Kind == KindSystem && !g.Pattern.IsAny():
		return fmt.Errorf("grant %s: system grants take the pattern \"*\": %w", g, ErrInvalidGrant)
	}
	return nil
}

// Covers reports whether g allows perm on the resource of kind whose key is
// key. For KindSystem the key is ignored. An invalid grant covers nothing.
func (g Grant) Covers(perm Permission, kind ResourceKind, key string) bool {
	if g.Permission != perm || g.Kind != kind || g.Validate() != nil {
		return false
	}
	if kind == KindSystem {
		return true
	}
	return g.Pattern.Match(key)
}

// Contains reports whether g allows everything h allows: the same
// permission on the same kind, on a pattern that contains h's (see
// Pattern.Contains). An invalid grant contains nothing and is contained by
// nothing.
func (g Grant) Contains(h Grant) bool {
	if g.Permission != h.Permission || g.Kind != h.Kind || g.Validate() != nil || h.Validate() != nil {
		return false
	}
	return g.Pattern.Contains(h.Pattern)
}

// String returns the grant as "permission kind pattern", e.g.
// "start process order-*".
func (g Grant) String() string {
	return fmt.Sprintf("%s %s %s", g.Permission, g.Kind, g.Pattern)
}

// Role names a built-in bundle of grants. Roles are given to users and
// groups like grants; an unknown role grants nothing.
type Role string

// The built-in roles. Every grant in them uses the pattern "*"; narrower
// rights are given as grants, or by restricting a token.
const (
	// RoleAdmin may do everything gobpm offers on every resource: deploy,
	// read, start and delete processes and decisions, operate processes,
	// deploy models creating jobs of and work every job type, and
	// administer users, groups, tokens and grants.
	// It does not include PermActAs.
	RoleAdmin Role = "admin"
	// RoleDeveloper builds and tries models: deploy, read and start on
	// processes and decisions, deploy on job types (their models may create
	// jobs of any type), and operate processes (cancel, modify, retry the
	// instances they try out). No delete, no work, no admin.
	RoleDeveloper Role = "developer"
	// RoleOperator runs production: read and start processes and decisions
	// and operate processes (cancel, modify, retry incidents, set
	// variables). It cannot deploy or delete.
	RoleOperator Role = "operator"
	// RoleWorker is for job workers: work on every job type and nothing
	// else (activation hands the worker the variables it needs). Give a
	// narrower worker a grant or a restricted token instead.
	RoleWorker Role = "worker"
	// RoleViewer reads: read on processes and decisions, nothing else.
	RoleViewer Role = "viewer"
)

// Roles returns the built-in roles, in a fixed order.
func Roles() []Role {
	return []Role{RoleAdmin, RoleDeveloper, RoleOperator, RoleWorker, RoleViewer}
}

// ParseRole returns the built-in role named s, or an error wrapping
// ErrInvalidGrant.
func ParseRole(s string) (Role, error) {
	if r := Role(s); slices.Contains(Roles(), r) {
		return r, nil
	}
	return "", fmt.Errorf("role %q: unknown: %w", s, ErrInvalidGrant)
}

// Grants returns the grants r bundles, each on "*"; nil for an unknown
// role. The slice is new on every call.
func (r Role) Grants() []Grant {
	type perKind struct {
		kind  ResourceKind
		perms []Permission
	}
	var bundle []perKind
	switch r {
	case RoleAdmin:
		bundle = []perKind{
			{KindProcess, []Permission{PermDeploy, PermRead, PermStart, PermOperate, PermDelete}},
			{KindDecision, []Permission{PermDeploy, PermRead, PermStart, PermDelete}},
			{KindJobType, []Permission{PermDeploy, PermWork}},
			{KindSystem, []Permission{PermAdmin}},
		}
	case RoleDeveloper:
		bundle = []perKind{
			{KindProcess, []Permission{PermDeploy, PermRead, PermStart, PermOperate}},
			{KindDecision, []Permission{PermDeploy, PermRead, PermStart}},
			{KindJobType, []Permission{PermDeploy}},
		}
	case RoleOperator:
		bundle = []perKind{
			{KindProcess, []Permission{PermRead, PermStart, PermOperate}},
			{KindDecision, []Permission{PermRead, PermStart}},
		}
	case RoleWorker:
		bundle = []perKind{{KindJobType, []Permission{PermWork}}}
	case RoleViewer:
		bundle = []perKind{
			{KindProcess, []Permission{PermRead}},
			{KindDecision, []Permission{PermRead}},
		}
	}
	var grants []Grant
	for _, b := range bundle {
		for _, p := range b.perms {
			grants = append(grants, Grant{Permission: p, Kind: b.kind, Pattern: Any()})
		}
	}
	return grants
}

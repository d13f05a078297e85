package access

import "github.com/gobpm/gobpm/internal/auth"

// KeyFrom says where a route finds the key of the resource its Rule
// checks. The JSON API's and the cockpit's route tables share it, so the
// same act reads the same way in both.
type KeyFrom int

const (
	// KeyNone: no resource key (system permissions, or any caller); a
	// permission is then checked on "*".
	KeyNone KeyFrom = iota
	// KeyParam: the {key} path parameter (a process or decision key).
	KeyParam
	// KeyInstance: the process key of instance {id}.
	KeyInstance
	// KeyIncident: the process key of incident {id}'s instance.
	KeyIncident
	// KeyJob: the type of job {key}; the job is resolved once, for the
	// check and for the act (the JSON API's job acts).
	KeyJob
	// KeyHandler: only the handler knows the keys (a deployment's models,
	// an activation's job type, a filtered list); the route checks that the
	// caller holds the permission on some resource of the kind
	// (AllowsSome), the handler checks each key exactly.
	KeyHandler
)

// Rule is what a route requires of its caller.
type Rule struct {
	// Public routes need no caller at all (logins, probes, the contract).
	Public bool
	// Perm is the permission needed; "" means any authenticated caller
	// (what they may do is then decided per item: tasks offered to them,
	// their own tokens).
	Perm auth.Permission
	// Kind is the kind of resource Perm is needed on.
	Kind auth.ResourceKind
	// Key says where the resource's key comes from.
	Key KeyFrom
}

// Public is the rule of a route anybody may call, logged in or not.
func Public() Rule { return Rule{Public: true} }

// Anyone is the rule of a route any authenticated caller may call.
func Anyone() Rule { return Rule{} }

// Admin is the rule of a route that needs the admin permission on the
// system.
func Admin() Rule { return Rule{Perm: auth.PermAdmin, Kind: auth.KindSystem} }

// On is the rule of a route that needs perm on the resource of kind whose
// key comes from from.
func On(perm auth.Permission, kind auth.ResourceKind, from KeyFrom) Rule {
	return Rule{Perm: perm, Kind: kind, Key: from}
}

// AllowsSome reports whether c holds the rule's permission on some
// resource of its kind, the route-level check of a KeyHandler rule. The
// deploy permission on some decision counts for deploying too: one
// deployment may carry only decisions.
func (ru Rule) AllowsSome(c Caller) bool {
	return c.AllowedAny(ru.Perm, ru.Kind) || (ru.Perm == auth.PermDeploy && c.AllowedAny(auth.PermDeploy, auth.KindDecision))
}

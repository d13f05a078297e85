package zeebe

import "github.com/gobpm/gobpm/internal/access"

// rpcs is the one table of the RPCs the gateway serves, by method name,
// with the access rule each needs (the rule of its /api/v1 counterpart).
// An RPC that is not here answers UNIMPLEMENTED before any handler runs.
var rpcs = map[string]access.Rule{
	// Topology: any authenticated caller, as /metrics and engine-rest's
	// GET /engine; the clients call it to check their connection.
	"Topology": access.Anyone(),
}

// Served lists the RPCs the gateway serves, for documentation and tests.
func Served() []string {
	out := make([]string, 0, len(rpcs))
	for name := range rpcs {
		out = append(out, name)
	}
	return out
}

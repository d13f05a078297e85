package zeebe

import (
	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// rpcs is the one table of the RPCs the gateway serves, by method name,
// with the access rule each needs (the rule of its /api/v1 counterpart).
// An RPC that is not here answers UNIMPLEMENTED before any handler runs.
// KeyHandler rules are checked here for the kind (some job type, some
// process) and in the handler for each key.
var rpcs = map[string]access.Rule{
	// Topology: any authenticated caller, as /metrics and engine-rest's
	// GET /engine; the clients call it to check their connection.
	"Topology": access.Anyone(),
	// As POST /api/v1/jobs/activate and /api/v1/jobs/{key}/...: work on
	// the job's type.
	"ActivateJobs":        access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	"StreamActivatedJobs": access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	"CompleteJob":         access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	"FailJob":             access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	"ThrowError":          access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	"UpdateJobTimeout":    access.On(auth.PermWork, auth.KindJobType, access.KeyHandler),
	// As POST /api/v1/processes/{key}/instances: start the process.
	"CreateProcessInstance":           access.On(auth.PermStart, auth.KindProcess, access.KeyHandler),
	"CreateProcessInstanceWithResult": access.On(auth.PermStart, auth.KindProcess, access.KeyHandler),
	// As POST /api/v1/instances/{id}/cancel, PUT .../variables and
	// POST /api/v1/incidents/{id}/retry: operate the instance's process.
	"CancelProcessInstance": access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
	"SetVariables":          access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
	"ResolveIncident":       access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
	// As engine-rest's PUT /external-task/{id}/retries: operate the job's
	// process, as retrying an incident.
	"UpdateJobRetries": access.On(auth.PermOperate, auth.KindProcess, access.KeyHandler),
	// As POST /api/v1/deployments: each model by the deploy guard.
	"DeployResource": access.On(auth.PermDeploy, auth.KindProcess, access.KeyHandler),
	"DeployProcess":  access.On(auth.PermDeploy, auth.KindProcess, access.KeyHandler),
	// As POST /api/v1/messages and /signals: operate on every process.
	"PublishMessage":  access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
	"BroadcastSignal": access.On(auth.PermOperate, auth.KindProcess, access.KeyNone),
}

// Served lists the RPCs the gateway serves, for documentation and tests.
func Served() []string {
	out := make([]string, 0, len(rpcs))
	for name := range rpcs {
		out = append(out, name)
	}
	return out
}

package access

import (
	"context"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// A model reaches only what its deployer may reach (docs/security.md "Reach").
// ReachNeeds is the one place that says which rights each kind of reach
// takes: the rights a caller would need to do the same thing through the
// API themselves.

// ReachNeed is one right a reach takes: permission on the resource of kind
// whose key is key.
type ReachNeed struct {
	Permission auth.Permission
	Kind       auth.ResourceKind
	Key        string
}

// String returns the need as "permission kind key".
func (n ReachNeed) String() string { return fmt.Sprintf("%s %s %s", n.Permission, n.Kind, n.Key) }

// ReachNeeds returns the rights r takes:
//   - calling a process: start on it, and read on it (its outputs come
//     back into the caller);
//   - evaluating a decision: start on it (POST …/evaluate's right);
//   - creating jobs of a type: deploy on the job type (whoever works that
//     type gets the jobs, with the variables they carry);
//   - throwing a signal: operate on every process, as POST /api/v1/signals
//     needs (a signal reaches, and starts, instances of any process).
//
// An unknown kind takes admin, which a model never gets by accident.
func ReachNeeds(r runtime.Reach) []ReachNeed {
	switch r.Kind {
	case runtime.ReachProcess:
		return []ReachNeed{{auth.PermStart, auth.KindProcess, r.Key}, {auth.PermRead, auth.KindProcess, r.Key}}
	case runtime.ReachDecision:
		return []ReachNeed{{auth.PermStart, auth.KindDecision, r.Key}}
	case runtime.ReachJobType:
		return []ReachNeed{{auth.PermDeploy, auth.KindJobType, r.Key}}
	case runtime.ReachSignal:
		return []ReachNeed{{auth.PermOperate, auth.KindProcess, "*"}}
	}
	return []ReachNeed{{auth.PermAdmin, auth.KindSystem, "*"}}
}

// CheckReach returns a refusal for every reach p may not make, in order;
// who names p in the refusals' details ("alice", "deployer alice").
func CheckReach(p auth.Principal, who string, reaches []runtime.Reach) []runtime.ReachRefusal {
	var out []runtime.ReachRefusal
	for _, r := range reaches {
		var missing []string
		for _, n := range ReachNeeds(r) {
			if !auth.Allowed(p, n.Permission, n.Kind, n.Key) {
				missing = append(missing, n.String())
			}
		}
		if len(missing) == 0 {
			continue
		}
		out = append(out, runtime.ReachRefusal{Reach: r, Missing: missing,
			Detail: fmt.Sprintf("%s may not %s: %s", who, strings.Join(missing, " nor "), r.Describe())})
	}
	return out
}

// ReachRefused returns the error refusing a deployment whose models reach
// what c may not (a *runtime.ReachError listing each refusal), or nil.
func (c Caller) ReachRefused(reaches []runtime.Reach) error {
	if c.Via == "none" || c.Unrestricted() {
		return nil
	}
	if refusals := CheckReach(c.Principal, string(c.User), reaches); len(refusals) > 0 {
		return &runtime.ReachError{Refusals: refusals}
	}
	return nil
}

// Deployer returns who c deploys as, for runtime.WithDeployer: nobody on
// a server without authentication (its deployments are not restricted);
// with OIDC also the groups the identity provider named, which the store
// does not know.
func (s *Service) Deployer(c Caller) runtime.Deployer {
	if s.cfg.Mode == ModeNone || c.Via == "none" || !c.Authenticated() {
		return runtime.Deployer{}
	}
	by := runtime.Deployer{User: string(c.User)}
	if s.cfg.Mode == ModeOIDC {
		for _, g := range c.Groups {
			by.Groups = append(by.Groups, string(g))
		}
	}
	return by
}

// MayReach implements runtime.ReachGuard: whether by, with the rights they
// hold now, may reach r (a dynamic reference of their model that just
// resolved). A deployer since disabled or deleted holds no rights. On a
// server without authentication everything may be reached.
func (s *Service) MayReach(ctx context.Context, by runtime.Deployer, r runtime.Reach) (*runtime.ReachRefusal, error) {
	if s.cfg.Mode == ModeNone || by.IsZero() {
		return nil, nil
	}
	extra := make([]auth.GroupID, 0, len(by.Groups))
	for _, g := range by.Groups {
		extra = append(extra, auth.GroupID(g))
	}
	p, disabled, known, err := s.resolve(ctx, auth.UserID(by.User), extra)
	if err != nil {
		return nil, fmt.Errorf("access: rights of deployer %s: %w", by.User, err)
	}
	who := "deployer " + by.User
	if disabled || (!known && s.cfg.Mode == ModeBuiltin) {
		p, who = auth.Principal{}, who+" (disabled or deleted)"
	}
	if refusals := CheckReach(p, who, []runtime.Reach{r}); len(refusals) > 0 {
		return &refusals[0], nil
	}
	return nil, nil
}

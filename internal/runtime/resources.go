package runtime

import (
	"context"
	"fmt"
)

// DeployGuard decides whether a deployment may be registered: the process
// and decision keys its models declare and what they reach by name (see
// reach.go); a non-nil error refuses the whole deployment before anything
// is stored. The API passes one that checks the caller's deploy
// permission on every key, and their right to everything the models reach
// (a *ReachError listing each refusal).
type DeployGuard func(plan DeploymentPlan) error

type deployGuardKey struct{}

// WithDeployGuard returns ctx carrying guard for Deploy: once the models
// parsed and validated, Deploy asks guard about the keys they declare and
// what they reach.
func WithDeployGuard(ctx context.Context, guard DeployGuard) context.Context {
	return context.WithValue(ctx, deployGuardKey{}, guard)
}

// InstanceProcessKey returns the process key of an instance, from its row
// alone (authorization needs it before anything else is read); ENOTFOUND
// for an unknown instance.
func (r *Runtime) InstanceProcessKey(ctx context.Context, id InstanceID) (string, error) {
	row, err := r.store.InstanceRow(ctx, id)
	if err != nil {
		return "", notFoundOr(err, "instance %s not found", id)
	}
	return row.ProcessKey, nil
}

// IncidentProcessKey returns the process key of an incident's instance;
// ENOTFOUND for an unknown incident.
func (r *Runtime) IncidentProcessKey(ctx context.Context, id string) (string, error) {
	inc, err := r.incident(ctx, id)
	if err != nil {
		return "", err
	}
	return r.InstanceProcessKey(ctx, inc.InstanceID)
}

// JobType returns the type of an open job by its public key (JobKey);
// ENOTFOUND for a key that does not verify or is no open job.
func (r *Runtime) JobType(ctx context.Context, key string) (string, error) {
	ref, err := r.ResolveJob(ctx, key)
	if err != nil {
		return "", err
	}
	return ref.Type, nil
}

// notFoundOr turns a store's ErrNotFound into an ENOTFOUND error with the
// message given, and wraps anything else.
func notFoundOr(err error, format string, args ...any) error {
	if ErrorCode(err) == ENOTFOUND {
		return &Error{Code: ENOTFOUND, Message: fmt.Sprintf(format, args...), Err: err}
	}
	return fmt.Errorf("runtime: %s: %w", fmt.Sprintf(format, args...), err)
}

type actingUserKey struct{}

// WithActingUser returns ctx naming the person on whose behalf the
// runtime acts (the authenticated caller): cancels, incident retries and
// variable changes record them in their facts.
func WithActingUser(ctx context.Context, user string) context.Context {
	if user == "" {
		return ctx
	}
	return context.WithValue(ctx, actingUserKey{}, user)
}

// ActingUser returns the user WithActingUser put in ctx, or "".
func ActingUser(ctx context.Context) string {
	u, _ := ctx.Value(actingUserKey{}).(string)
	return u
}

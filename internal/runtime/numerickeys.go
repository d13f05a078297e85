package runtime

import (
	"context"
	"fmt"
)

// Numeric keys: the 64-bit integers Camunda 8 clients name entities by
// (store.KeyStore has the whole story). The store gives every process
// instance, job, user task, incident, deployment and process version one
// in the commit that creates it; gobpm's own ids stay what every other
// surface speaks. These methods translate between the two, and nothing
// more: a key grants nothing. Whoever acts on the entity a key names
// passes the same checks as with its id, and a job still answers only to
// the worker that activated it (its lock token and user, as with
// /api/v1), so a key that is guessed or seen elsewhere is of no use.
//
// Every lookup is one index probe. A key resolves only as the kind it was
// given to: a made-up number, the key of an entity that is gone (a
// completed job, a deleted instance) and the key of another kind are all
// ENOTFOUND, alike.

// NumericKey returns the numeric key of the entity of kind whose gobpm id
// is id (for a process version: ProcessVersionID). ENOTFOUND when there
// is none.
func (r *Runtime) NumericKey(ctx context.Context, kind KeyKind, id string) (int64, error) {
	key, err := r.store.NumericKey(ctx, kind, id)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return 0, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("%s %s not found", kind, id), Err: err}
		}
		return 0, fmt.Errorf("runtime: numeric key of %s %s: %w", kind, id, err)
	}
	return key, nil
}

// NumericKeys returns the numeric keys of the entities of kind among ids
// in one lookup (a page of a list); the ids of entities that have none
// (gone meanwhile) are absent.
func (r *Runtime) NumericKeys(ctx context.Context, kind KeyKind, ids []string) (map[string]int64, error) {
	keys, err := r.store.NumericKeys(ctx, kind, ids)
	if err != nil {
		return nil, fmt.Errorf("runtime: numeric keys of %d %ss: %w", len(ids), kind, err)
	}
	return keys, nil
}

// ByNumericKey returns the gobpm id of the entity of kind whose numeric
// key is key. ENOTFOUND for a key of no entity, of an entity that is gone,
// or of an entity of another kind.
func (r *Runtime) ByNumericKey(ctx context.Context, kind KeyKind, key int64) (string, error) {
	id, err := r.store.ByNumericKey(ctx, kind, key)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return "", &Error{Code: ENOTFOUND, Message: fmt.Sprintf("%s with key %d not found", kind, key), Err: err}
		}
		return "", fmt.Errorf("runtime: %s of numeric key %d: %w", kind, key, err)
	}
	return id, nil
}

// JobByNumericKey returns the public job key (JobKey) of the job whose
// numeric key is key: what the job commands (complete, fail, error,
// extend) take, with the lock token of its activation. ENOTFOUND like
// ByNumericKey.
func (r *Runtime) JobByNumericKey(ctx context.Context, key int64) (string, error) {
	id, err := r.ByNumericKey(ctx, KeyJob, key)
	if err != nil {
		return "", err
	}
	return r.JobKey(ctx, id)
}

// NumericKeyOfJob returns the numeric key of the job whose public job key
// (JobKey, as activation hands it out) is jobKey. ENOTFOUND for a key that
// does not verify or a job that is gone.
func (r *Runtime) NumericKeyOfJob(ctx context.Context, jobKey string) (int64, error) {
	id, err := r.jobWaitID(ctx, jobKey)
	if err != nil {
		return 0, err
	}
	return r.NumericKey(ctx, KeyJob, id)
}

// ProcessVersionByNumericKey returns the deployed process version whose
// numeric key is key. ENOTFOUND like ByNumericKey.
func (r *Runtime) ProcessVersionByNumericKey(ctx context.Context, key int64) (DefinitionRecord, error) {
	id, err := r.ByNumericKey(ctx, KeyProcessVersion, key)
	if err != nil {
		return DefinitionRecord{}, err
	}
	pk, version, ok := ParseProcessVersionID(id)
	if !ok {
		return DefinitionRecord{}, fmt.Errorf("runtime: process version of numeric key %d: malformed id %q", key, id)
	}
	return r.Definition(ctx, pk, version)
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// maxBatchBodyFactor is how many times MaxJSONBytes the body of a batch
// of completions may be (8 MiB by default): a batch carries up to
// runtime.MaxJobCompletions completions, each with its variables.
const maxBatchBodyFactor = 8

// jobBatcher is a service that completes a batch of jobs in one group
// commit (runtime.Runtime.CompleteJobs). A service without it completes
// the items one by one.
type jobBatcher interface {
	CompleteJobs(ctx context.Context, items []runtime.JobCompletion) []error
}

// completeJobsItem is one completion of POST /api/v1/jobs/complete: {key,
// lockToken, variables?}; err is its refusal as decoded or authorized.
type completeJobsItem struct {
	key       string
	lockToken string
	variables map[string]any
	err       error
}

// CompleteJobsResult is the answer for one completion of a batch, in the
// order of the request: status 204 when the job was completed, else the
// status and problem the single completion route would have answered.
type CompleteJobsResult struct {
	Key     string   `json:"key"`
	Status  int      `json:"status"`
	Problem *Problem `json:"problem,omitempty"`
}

// CompleteJobsResponse is the answer of POST /api/v1/jobs/complete.
type CompleteJobsResponse struct {
	Results []CompleteJobsResult `json:"results"`
}

// decodeCompletions reads the completions member of a batch body. A
// malformed list fails the request (400), more than
// runtime.MaxJobCompletions too (413); a malformed item fails only itself.
func decodeCompletions(members map[string]json.RawMessage) ([]completeJobsItem, error) {
	raw := members["completions"]
	if isNull(raw) {
		return nil, errorf(kindInvalidRequest, "completions", "completions is required: a list of {key, lockToken, variables?} objects")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		var v any
		if derr := decodeNumbers(raw, &v); derr != nil {
			return nil, malformed(derr)
		}
		return nil, errorf(kindInvalidRequest, "completions", "completions must be a list of {key, lockToken, variables?} objects, not "+jsonKind(v))
	}
	if len(list) > runtime.MaxJobCompletions {
		return nil, errorf(kindPayloadTooLarge, "completions",
			fmt.Sprintf("a request completes at most %d jobs, not %d: send the rest in another request", runtime.MaxJobCompletions, len(list)))
	}
	items := make([]completeJobsItem, len(list))
	for i, elem := range list {
		field := fmt.Sprintf("completions[%d]", i)
		it := &items[i]
		var m map[string]json.RawMessage
		if err := json.Unmarshal(elem, &m); err != nil || m == nil {
			it.err = errorf(kindInvalidRequest, field, field+" must be an object {key, lockToken, variables?}")
			continue
		}
		var err error
		if it.key, err = requiredStringField(m, "key"); err != nil {
			it.err = inItem(field, err)
			continue
		}
		var q completeJobRequest
		q.setMembers(m)
		if err := q.Validate(); err != nil {
			it.err = inItem(field, err)
			continue
		}
		if q.Answered {
			it.err = errorf(kindInvalidRequest, field+".activate",
				field+": a router job's answer (activate) goes to POST /api/v1/jobs/{key}/complete, one job at a time")
			continue
		}
		it.lockToken, it.variables = q.LockToken, q.Variables
	}
	return items, nil
}

// inItem names item field in a decoding error of one of its members.
func inItem(field string, err error) error {
	if ae, ok := err.(*apiError); ok {
		name := field
		if ae.field != "" {
			name = field + "." + ae.field
		}
		return errorf(ae.kind, name, field+": "+ae.detail)
	}
	return err
}

// completeJobs handles POST /api/v1/jobs/complete: {completions: [{key,
// lockToken, variables?}, …]}, at most runtime.MaxJobCompletions of them
// in a body of at most maxBatchBodyFactor × MaxJSONBytes. Each item is
// authorized and acted on exactly as POST /api/v1/jobs/{key}/complete
// would (a job the caller may not work on is answered as unknown, 404, in
// its item); the items acted on share one group commit. The answer is 200
// with one result per item, in order.
func (s *server) completeJobs(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObjectUpTo(w, r, s.opts.MaxJSONBytes*maxBatchBodyFactor)
	if err != nil {
		return err
	}
	items, err := decodeCompletions(members)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c := callerFrom(ctx)
	jobs, resolved := s.svc.(jobResolver)
	checkType := c.Via != "none" && !c.Unrestricted()
	var batch []runtime.JobCompletion
	var acted []int // item of each batch entry
	for i := range items {
		it := &items[i]
		if it.err != nil {
			continue
		}
		ref := runtime.JobRef{Key: it.key}
		if checkType {
			if !resolved {
				return fmt.Errorf("api: the service cannot resolve job keys for authorization")
			}
			// authorizeJob's rule, per item.
			if ref, err = jobs.ResolveJob(ctx, it.key); err != nil {
				if runtime.ErrorCode(err) != runtime.ENOTFOUND {
					return err
				}
				it.err = unknownJob(it.key)
				continue
			}
			if !c.Allowed(auth.PermWork, auth.KindJobType, ref.Type) {
				it.err = unknownJob(it.key)
				continue
			}
		}
		batch = append(batch, runtime.JobCompletion{Ref: ref, Holder: jobHolder(r, it.lockToken), Variables: it.variables})
		acted = append(acted, i)
	}
	var errs []error
	if b, ok := s.svc.(jobBatcher); ok {
		errs = b.CompleteJobs(ctx, batch)
	} else {
		errs = make([]error, len(batch))
		for k, jc := range batch {
			if resolved {
				errs[k] = jobs.CompleteResolvedJob(ctx, jc.Ref, jc.Holder, jc.Variables)
			} else {
				errs[k] = s.svc.CompleteJob(ctx, jc.Ref.Key, jc.Holder, jc.Variables)
			}
		}
	}
	for k, i := range acted {
		items[i].err = errs[k]
	}
	out := CompleteJobsResponse{Results: make([]CompleteJobsResult, len(items))}
	for i, it := range items {
		res := &out.Results[i]
		res.Key, res.Status = it.key, http.StatusNoContent
		if it.err == nil {
			continue
		}
		p, internal := problemFor(it.err)
		if internal {
			s.log.Error("batch completion failed", keyRequestID, RequestID(ctx), "key", it.key, keyError, it.err)
		}
		p.Instance, p.RequestID = r.URL.Path, RequestID(ctx)
		res.Status, res.Problem = p.Status, &p
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// unknownJob is the 404 of a job key that is unknown or that the caller
// may not work on, worded as the single routes word it (unknownResource).
func unknownJob(key string) error {
	return errorf(kindNotFound, "", "job "+key+" not found: it was completed, withdrawn or never existed")
}

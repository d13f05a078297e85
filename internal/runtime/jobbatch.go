package runtime

import (
	"context"
	"fmt"
	"sync"
)

// MaxJobCompletions is the most completions one CompleteJobs call takes.
const MaxJobCompletions = 1000

// JobCompletion is one completion of a batch (CompleteJobs): the job, its
// holder and the variables that merge into its instance.
type JobCompletion struct {
	// Ref is the job: one ResolveJob returned, or JobRef{Key: key}.
	Ref       JobRef
	Holder    JobHolder
	Variables map[string]any
}

// CompleteJobs completes a batch of jobs, each exactly as
// CompleteResolvedJob would, and answers one error per completion, in
// order (nil: completed). The completions run concurrently and the steps
// of those that reach their commit share one group commit (commitGroup);
// completions of jobs of the same instance go in successive rounds, each
// its own group, since a step holds its instance until it is committed. A
// key given twice is refused (ECONFLICT) after its first occurrence,
// which alone acts. More than MaxJobCompletions is EINVALID for all.
func (r *Runtime) CompleteJobs(ctx context.Context, items []JobCompletion) []error {
	errs := make([]error, len(items))
	if len(items) > MaxJobCompletions {
		err := &Error{Code: EINVALID, Message: fmt.Sprintf("a batch takes at most %d completions, not %d", MaxJobCompletions, len(items))}
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	rounds := r.completionRounds(ctx, items, errs)
	for _, round := range rounds {
		g := newCommitGroup(r.commit, len(round))
		var wg sync.WaitGroup
		for _, i := range round {
			mctx, m := g.member(ctx)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer m.leave()
				it := items[i]
				errs[i] = r.CompleteResolvedJob(mctx, it.Ref, it.Holder, it.Variables)
			}()
		}
		wg.Wait()
	}
	return errs
}

// completionRounds orders the completions of items into rounds: the n-th
// completion of a job of an instance goes in round n, so no round holds
// two steps of one instance. A key that does not verify fails now (in
// errs), and so does a key after its first occurrence. The instance of a
// job is the one its Ref read, or the one an activation of this runtime
// remembered; a job whose instance is unknown goes in the first round
// (the group's wait bounds what a collision costs).
func (r *Runtime) completionRounds(ctx context.Context, items []JobCompletion, errs []error) [][]int {
	var rounds [][]int
	seen := make(map[string]int, len(items))            // wait id → item
	perInstance := make(map[InstanceID]int, len(items)) // completions so far
	for i, it := range items {
		var id string
		var home InstanceID
		if it.Ref.row != nil {
			id, home = it.Ref.row.ID, it.Ref.row.InstanceID
		} else {
			var err error
			if id, err = r.jobWaitID(ctx, it.Ref.Key); err != nil {
				errs[i] = err
				continue
			}
			home, _ = r.jobHomes.home(id)
		}
		if first, dup := seen[id]; dup {
			errs[i] = &Error{Code: ECONFLICT, Message: fmt.Sprintf("job %s is completed by item %d of this batch already", it.Ref.Key, first)}
			continue
		}
		seen[id] = i
		n := 0
		if home != "" {
			n = perInstance[home]
			perInstance[home] = n + 1
		}
		for len(rounds) <= n {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], i)
	}
	return rounds
}

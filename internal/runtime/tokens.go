package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// The token index: every step tells the store which tokens it created,
// moved or ended (StepRecord.Tokens, RemovedTokens), derived from the track
// parts it wrote, so the store can count the tokens at each element of a
// process version over all its instances (ElementCounts) without reading a
// single state, and a step pays only for the tracks it changed.

// tokenBatch is how many instances the start-up indexing reads at a time.
const tokenBatch = 256

// tokenOf returns the token track t stands for in st, and false for a
// track that is not one: a track hosting a loop or multi-instance body is
// left out, since the body's iterations are the tokens there (a body with
// 2 active iterations counts 2, not 3).
func tokenOf(st *engine.State, t *engine.Track) (TokenRow, bool) {
	if t.State == engine.TrackInScope {
		if sc := st.Scopes.Get(t.Child); sc != nil && sc.Kind == scope.KindBody {
			return TokenRow{}, false
		}
	}
	return TokenRow{TrackID: t.ID, NodeID: t.Node}, true
}

// tokenChanges derives the token index's changes from the parts a step
// writes (put) and removes: a written track part puts its token (or
// removes it when the track no longer counts), a removed one removes it.
func tokenChanges(st *engine.State, put []Part, removed []PartRef) (tokens []TokenRow, gone []string) {
	for _, p := range put {
		if p.Kind != engine.PartTrack {
			continue
		}
		t := st.Track(p.Key)
		if t == nil {
			continue
		}
		if tok, ok := tokenOf(st, t); ok {
			tokens = append(tokens, tok)
		} else {
			gone = append(gone, t.ID)
		}
	}
	for _, r := range removed {
		if r.Kind == engine.PartTrack {
			gone = append(gone, r.Key)
		}
	}
	return tokens, gone
}

// allTokens lists every token of st.
func allTokens(st *engine.State) []TokenRow {
	out := make([]TokenRow, 0, len(st.Tracks))
	for _, t := range st.Tracks {
		if tok, ok := tokenOf(st, t); ok {
			out = append(out, tok)
		}
	}
	return out
}

// indexPendingTokens indexes the tokens of the instances stored before the
// token index existed (TokensPending), at start-up: each state is read
// once and its tokens written with a revision check, so a step committed
// meanwhile (by another node sharing the database) makes it read again.
func (r *Runtime) indexPendingTokens(ctx context.Context) error {
	done := 0
	for {
		ids, err := r.store.TokensPending(ctx, tokenBatch)
		if err != nil {
			return fmt.Errorf("index tokens: %w", err)
		}
		if len(ids) == 0 {
			break
		}
		for _, id := range ids {
			if err := r.indexTokensOf(ctx, id); err != nil {
				return err
			}
			done++
		}
	}
	if done > 0 {
		r.log.Info("instance tokens indexed", "count", done)
	}
	return nil
}

// indexTokensOf indexes the tokens of instance id from its stored state,
// reading it again while a step overtakes the write.
func (r *Runtime) indexTokensOf(ctx context.Context, id InstanceID) error {
	unlock := r.locks.lock(id)
	defer unlock()
	for attempt := 0; ; attempt++ {
		row, st, err := r.loadState(ctx, id)
		if err != nil {
			return fmt.Errorf("index tokens of instance %s: %w", id, err)
		}
		err = r.store.IndexTokens(ctx, id, row.Revision, allTokens(st))
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrConflict) || attempt+1 >= maxStepAttempts {
			return fmt.Errorf("index tokens of instance %s: %w", id, err)
		}
	}
}

// ElementCounts counts the tokens and open incidents at each element over
// every running or failed instance of a process version, exactly, with one
// store read (the token index; see StepRecord.Tokens).
func (r *Runtime) ElementCounts(ctx context.Context, key string, version int) ([]ElementCount, error) {
	out, err := r.store.ElementCounts(ctx, key, version)
	if err != nil {
		return nil, fmt.Errorf("runtime: element counts of %s v%d: %w", key, version, err)
	}
	return out, nil
}

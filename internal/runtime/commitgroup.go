package runtime

import (
	"context"
	"sync"
	"time"
)

// commitGroupWait is how long a commit group waits, after its first
// member's records arrived, for the rest before it commits what it has
// (commitGroup): a member held up elsewhere (behind another instance's
// lock, say) delays its neighbours by at most this, never forever.
const commitGroupWait = 10 * time.Millisecond

// commitGroup makes the steps of a batch of acts, run concurrently, share
// one group commit: each member (one act, with its own context) hands its
// records to the group instead of the committer, and the group passes
// them on together once every member has either handed its records over
// or finished without committing (leave), or commitGroupWait after the
// first arrived. The committer then writes them as neighbours in one
// transaction, and if that fails retries each member's records alone, so
// one refused step cannot fail the others. A member's later commits (a
// retried step, the steps after its commit) go to the committer directly.
type commitGroup struct {
	c *committer

	mu      sync.Mutex
	pending int // members that have neither handed records over nor left
	waiting []commitRequest
	flushed bool
	timer   *time.Timer
}

// groupMember is one member of a commitGroup, carried by its context.
type groupMember struct {
	g    *commitGroup
	once bool // handed records over or left
}

type groupMemberKey struct{}

// newCommitGroup is a group of n members.
func newCommitGroup(c *committer, n int) *commitGroup { return &commitGroup{c: c, pending: n} }

// member returns ctx carrying a new member of g; the act it runs must call
// leave when it ends, whether it committed or not.
func (g *commitGroup) member(ctx context.Context) (context.Context, *groupMember) {
	m := &groupMember{g: g}
	return context.WithValue(ctx, groupMemberKey{}, m), m
}

// commitIn commits recs as commitAll does, through the commit group of
// ctx's member if it has one that has not committed yet.
func (c *committer) commitIn(ctx context.Context, recs []StepRecord) error {
	m, _ := ctx.Value(groupMemberKey{}).(*groupMember)
	if m == nil || m.g.c != c {
		return c.commitAll(recs)
	}
	reply, ok := m.hand(recs)
	if !ok {
		return c.commitAll(recs)
	}
	return <-reply
}

// hand gives recs to the group, unless this member has been counted
// already or the group committed; ok false means commit directly.
func (m *groupMember) hand(recs []StepRecord) (reply chan error, ok bool) {
	g := m.g
	g.mu.Lock()
	if m.once || g.flushed {
		m.once = true
		g.mu.Unlock()
		return nil, false
	}
	m.once = true
	g.pending--
	reply = make(chan error, 1)
	g.waiting = append(g.waiting, commitRequest{recs: recs, reply: reply})
	if g.timer == nil && g.pending > 0 {
		g.timer = time.AfterFunc(commitGroupWait, g.flush)
	}
	last := g.pending == 0
	g.mu.Unlock()
	if last {
		g.flush()
	}
	return reply, true
}

// leave counts the member as done: the group no longer waits for it.
func (m *groupMember) leave() {
	g := m.g
	g.mu.Lock()
	if m.once {
		g.mu.Unlock()
		return
	}
	m.once = true
	g.pending--
	last := g.pending == 0
	g.mu.Unlock()
	if last {
		g.flush()
	}
}

// flush passes the records handed over to the committer as one request
// group (once).
func (g *commitGroup) flush() {
	g.mu.Lock()
	if g.flushed {
		g.mu.Unlock()
		return
	}
	g.flushed = true
	if g.timer != nil {
		g.timer.Stop()
	}
	reqs := g.waiting
	g.waiting = nil
	g.mu.Unlock()
	if len(reqs) > 0 {
		g.c.commitRequests(reqs)
	}
}

// commitRequests queues reqs to be written in one batch (write), each
// still answered on its own reply channel; it does not wait.
func (c *committer) commitRequests(reqs []commitRequest) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		for _, r := range reqs {
			r.reply <- errClosed
		}
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	c.in <- commitRequest{group: reqs}
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// commitFamily is the server's histogram of its store transactions.
const commitFamily = "gobpm_commit_duration_seconds"

// stallBound is the commit duration from which a commit counts as a disk
// stall in the report: several times an ordinary fsync.
const stallBound = 0.025

// commitHist is a reading of the server's commit histogram: cumulative
// counts by upper bound, as exposed.
type commitHist struct {
	les    []float64
	counts []float64 // cumulative, +Inf last
	count  float64
	sum    float64
}

// CommitUse is what the server's commits did during a scenario, from its
// /metrics: how many store transactions, their mean, and how many took
// stallBound or more (a disk that stalls, on a shared machine above all).
type CommitUse struct {
	Commits      int64   `json:"commits"`
	MeanMs       float64 `json:"meanMs"`
	Stalled      int64   `json:"stalledCommits"` // over stallBound
	StalledOver  float64 `json:"stalledOverSeconds"`
	SlowestUpToS float64 `json:"slowestUpToSeconds"` // the bucket bound of the slowest commit (+Inf: above the last)
}

// readCommits scrapes the server's commit histogram; ok is false when the
// server does not expose it (an older binary).
func (c *Client) readCommits(ctx context.Context) (commitHist, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/metrics", nil)
	if err != nil {
		return commitHist{}, false
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return commitHist{}, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return commitHist{}, false
	}
	return parseCommits(resp.Body)
}

// parseCommits reads the commit histogram from a text exposition.
func parseCommits(r io.Reader) (commitHist, bool) {
	var h commitHist
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, commitFamily) {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, commitFamily+`_bucket{le="`):
			le := strings.TrimSuffix(strings.TrimPrefix(name, commitFamily+`_bucket{le="`), `"}`)
			bound, err := strconv.ParseFloat(le, 64) // "+Inf" parses as +Inf
			if err != nil {
				continue
			}
			h.les, h.counts = append(h.les, bound), append(h.counts, v)
			found = true
		case name == commitFamily+"_count":
			h.count = v
		case name == commitFamily+"_sum":
			h.sum = v
		}
	}
	return h, found && sc.Err() == nil
}

// since returns the commits between h and later; nil if the two readings
// do not fit (another server, no histogram).
func (h commitHist) since(later commitHist) *CommitUse {
	if len(h.les) == 0 || len(h.les) != len(later.les) || later.count < h.count {
		return nil
	}
	u := &CommitUse{Commits: int64(later.count - h.count)}
	if u.Commits == 0 {
		return u
	}
	u.MeanMs = (later.sum - h.sum) / float64(u.Commits) * 1000
	prev := 0.0
	for i, le := range later.les {
		n := (later.counts[i] - h.counts[i]) - prev
		prev = later.counts[i] - h.counts[i]
		if n > 0 {
			u.SlowestUpToS = le
		}
		if i > 0 && later.les[i-1] >= stallBound && n > 0 {
			u.Stalled += int64(n)
			u.StalledOver += n * later.les[i-1]
		}
	}
	return u
}

// String renders the use for the report.
func (u *CommitUse) String() string {
	if u == nil {
		return ""
	}
	slowest := "over the last bucket"
	if u.SlowestUpToS > 0 && u.SlowestUpToS < 1e300 {
		slowest = fmt.Sprintf("≤ %g ms", u.SlowestUpToS*1000)
	}
	return fmt.Sprintf("server commits: %d store transactions, mean %.2f ms, slowest %s; %d took over %g ms (at least %.2f s in all: disk stalls)",
		u.Commits, u.MeanMs, slowest, u.Stalled, stallBound*1000, u.StalledOver)
}

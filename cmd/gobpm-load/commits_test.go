package main

import (
	"strconv"
	"strings"
	"testing"
)

func exposition(counts []int, sum float64) string {
	les := []string{"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"}
	var b strings.Builder
	b.WriteString("# HELP gobpm_commit_duration_seconds x\n# TYPE gobpm_commit_duration_seconds histogram\n")
	cum := 0
	for i, le := range les {
		cum += counts[i]
		b.WriteString(`gobpm_commit_duration_seconds_bucket{le="` + le + `"} ` + strconv.Itoa(cum) + "\n")
	}
	b.WriteString("gobpm_commit_duration_seconds_sum " + strconv.FormatFloat(sum, 'g', -1, 64) + "\n")
	b.WriteString("gobpm_commit_duration_seconds_count " + strconv.Itoa(cum) + "\n")
	b.WriteString("gobpm_open_waits{kind=\"job\"} 3\n")
	return b.String()
}

func TestCommitUse(t *testing.T) {
	t.Parallel()
	before, ok := parseCommits(strings.NewReader(exposition([]int{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0.002)))
	if !ok {
		t.Fatal("histogram not found")
	}
	// 100 fast commits, 3 between 25 and 50 ms, 1 between 250 and 500 ms.
	after, ok := parseCommits(strings.NewReader(exposition([]int{50, 55, 0, 0, 0, 0, 3, 0, 0, 1, 0, 0, 0}, 0.002+0.5)))
	if !ok {
		t.Fatal("histogram not found")
	}
	u := before.since(after)
	if u == nil {
		t.Fatal("no use")
	}
	if u.Commits != 104 || u.Stalled != 4 || u.SlowestUpToS != 0.5 {
		t.Errorf("use = %+v, want 104 commits, 4 stalled, slowest ≤ 0.5 s", *u)
	}
	if want := 3*0.025 + 0.25; u.StalledOver < want-1e-9 || u.StalledOver > want+1e-9 {
		t.Errorf("stalled over %v s, want %v", u.StalledOver, want)
	}
	if s := u.String(); !strings.Contains(s, "104 store transactions") || !strings.Contains(s, "4 took over 25 ms") {
		t.Errorf("report line %q", s)
	}
	if _, ok := parseCommits(strings.NewReader("gobpm_open_waits 1\n")); ok {
		t.Error("a server without the histogram reads as having one")
	}
	if before.since(commitHist{}) != nil {
		t.Error("readings of different shape compared")
	}
}

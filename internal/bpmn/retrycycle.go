package bpmn

import (
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/timer"
)

// RetryCycle is a job's retry schedule from Camunda 7's
// camunda:failedJobRetryTimeCycle, read as Camunda 7 reads it:
//
//   - "R5/PT5M": five attempts in all, five minutes apart;
//   - "PT10M": two attempts, ten minutes apart (one retry);
//   - "PT1M,PT5M,PT10M": four attempts; the first failure waits one
//     minute, the second five, the third ten.
//
// The budget becomes the job's retries; the waits apply when a worker
// reports a failure without a backoff of its own.
type RetryCycle struct {
	// Text is the cycle as written.
	Text string
	// Attempts is the job's retry budget: how many times it is handed to
	// a worker before its last failure raises an incident.
	Attempts int
	// Waits are the backoffs after the first, second, … failure, each a
	// parsed ISO 8601 duration; the last repeats.
	Waits []timer.Spec
}

// WaitAfter returns when job may be activated again after its failures-th
// failure (1 for the first) at now.
func (c *RetryCycle) WaitAfter(failures int, now time.Time) time.Time {
	i := min(max(failures-1, 0), len(c.Waits)-1)
	due, _ := c.Waits[i].First(now)
	return due
}

// retryCycleTag is the local name of the extension element.
const retryCycleTag = "failedJobRetryTimeCycle"

// retryCycle reads camunda:failedJobRetryTimeCycle on the job owner e, or
// returns nil when there is none or it is malformed (a problem is then
// recorded, naming e).
func (p *parser) retryCycle(e *etree.Element) *RetryCycle {
	x := extension(e, NamespaceCamunda, retryCycleTag)
	if x == nil {
		return nil
	}
	label := p.label(e)
	text := strings.TrimSpace(x.Text())
	bad := func(format string, args ...any) *RetryCycle {
		p.problems.add(label, RuleInvalidAttribute, "camunda:failedJobRetryTimeCycle %q: "+format, append([]any{clip(text)}, args...)...)
		return nil
	}
	switch {
	case text == "":
		return bad("is empty")
	case isExpression(text) || strings.Contains(text, "${") || strings.Contains(text, "#{"):
		p.problems.add(label, RuleUnsupported,
			"camunda:failedJobRetryTimeCycle as an expression is not supported: write the cycle itself (R5/PT5M, or a list of waits PT1M,PT5M)")
		return nil
	}
	parts := strings.Split(text, ",")
	c := &RetryCycle{Text: text, Attempts: len(parts) + 1}
	if len(parts) == 1 && strings.HasPrefix(strings.ToUpper(parts[0]), "R") {
		count, period, ok := strings.Cut(strings.TrimSpace(parts[0])[1:], "/")
		n, err := strconv.Atoi(count)
		switch {
		case !ok || strings.Contains(period, "/"):
			return bad("want R<count>/<duration> (a start or end date is not supported)")
		case err != nil || n < 0:
			return bad("want a repetition count (R5/PT5M): a retry cycle must end")
		}
		// Camunda 7 sets the retries to the count at the first failure and
		// takes one off for it: the job is attempted count times (at least
		// once).
		c.Attempts = max(n, 1)
		parts[0] = period
	}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		spec, err := timer.Parse(timer.KindDuration, part)
		if err != nil {
			return bad("%q is not an ISO 8601 duration (a list holds durations only)", clip(part))
		}
		c.Waits = append(c.Waits, spec)
	}
	return c
}

// checkRetryCycles refuses camunda:failedJobRetryTimeCycle on an element
// that creates no job: there it would retry Camunda 7's asynchronous
// continuations, which gobpm does not have (a failing step is an incident
// at once).
func (p *parser) checkRetryCycles() {
	for _, owner := range p.retryCycleOwners {
		if !p.jobOwners[owner] {
			p.problems.add(p.label(owner), RuleUnsupported,
				"camunda:failedJobRetryTimeCycle on %s is not supported: gobpm retries jobs (service and send tasks, message throws with a job type), and a %s creates no job; its asyncBefore/asyncAfter have no effect, and a failing step is an incident at once", owner.Tag, owner.Tag)
		}
	}
}

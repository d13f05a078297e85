package engine

import "time"

// FactConnectorCall is the history entry of one outbound call a built-in
// connector (the REST connector) made for an attempt of a job. Detail:
// jobKey, attempt (the job's failures before it, plus one), method, url
// (as written, secrets masked), status (the answer's, absent without one)
// or error, durationMs and startedAt.
const FactConnectorCall = "connector-call"

// ConnectorCall is one outbound call a connector made for the job an act
// (JobCompleted, JobFailed, JobErrorThrown) settles. The connector measures
// it; the engine records it as data of the event, so the step stays a pure
// function of its inputs and the entry commits with the act or not at all.
type ConnectorCall struct {
	// Method is the HTTP method, URL the URL as the model wrote it (secret
	// placeholders, never their values).
	Method string
	URL    string
	// Status is the answer's status code (0: no answer); Error says why
	// there was none, masked like URL.
	Status int
	Error  string
	// StartedAt is when the call was sent, Duration how long it took.
	StartedAt time.Time
	Duration  time.Duration
}

// recordCalls writes one FactConnectorCall per call made for job w's
// current attempt, before the act's own facts.
func (x *executor) recordCalls(t *Track, w *Wait, calls []ConnectorCall) {
	for _, c := range calls {
		d := map[string]any{"jobKey": w.ID, "attempt": w.Failures + 1, "method": c.Method, "url": c.URL,
			"durationMs": c.Duration.Milliseconds()}
		if c.Status != 0 {
			d["status"] = c.Status
		}
		if c.Error != "" {
			d["error"] = c.Error
		}
		if !c.StartedAt.IsZero() {
			d["startedAt"] = c.StartedAt.UTC().Format(time.RFC3339Nano)
		}
		x.fact(FactConnectorCall, w.NodeID, w.ScopeID, t.ID, d)
	}
}

package httpjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/feel"
)

// Camunda's connector runtime marks what errorExpression returns with
// errorType: a BPMN error to throw, or a job error to fail the job with.
const (
	errorTypeBPMN = "bpmnError"
	errorTypeJob  = "jobError"
)

// functions are the FEEL functions Camunda's connector runtime adds to
// result and error expressions.
var functionNames = []string{"bpmnError", "jobError"}

// fn is a Go function FEEL may call; its parameters after the first min
// may be left out (feel.OptionalParams), as Camunda's overloads allow.
type fn struct {
	params []string
	min    int
	call   func(args []any) (any, error)
}

func (f fn) Params() []string             { return f.params }
func (f fn) MinArgs() int                 { return f.min }
func (f fn) Call(args []any) (any, error) { return f.call(args) }

// arg returns args[i], nil when absent.
func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// bpmnErrorFn is bpmnError(errorCode, errorMessage) and
// bpmnError(errorCode, errorMessage, variables).
var bpmnErrorFn = fn{params: []string{"errorCode", "errorMessage", "variables"}, min: 2, call: func(args []any) (any, error) {
	out := map[string]any{"errorType": errorTypeBPMN, "errorCode": str(arg(args, 0))}
	if m := arg(args, 1); m != nil {
		out["errorMessage"] = str(m)
	}
	if v, ok := arg(args, 2).(map[string]any); ok {
		out["variables"] = v
	}
	return out, nil
}}

// jobErrorFn is jobError(errorMessage, variables, retries, retryBackoff),
// every parameter after the message optional.
var jobErrorFn = fn{params: []string{"errorMessage", "variables", "retries", "retryBackoff"}, min: 1, call: func(args []any) (any, error) {
	out := map[string]any{"errorType": errorTypeJob, "errorMessage": str(arg(args, 0)), "retries": json.Number("0")}
	if v, ok := arg(args, 1).(map[string]any); ok {
		out["variables"] = v
	}
	if r := arg(args, 2); r != nil {
		out["retries"] = r
	}
	if b := arg(args, 3); b != nil {
		out["retryBackoff"] = b
	}
	return out, nil
}}

// scope is the variables of one evaluation plus the connector functions.
type scope map[string]any

func (s scope) Lookup(name string) (any, bool) {
	switch name {
	case "bpmnError":
		return bpmnErrorFn, true
	case "jobError":
		return jobErrorFn, true
	}
	v, ok := s[name]
	return v, ok
}

// programs caches the compiled expressions of the models' headers; the
// texts come from deployed models, so the set is bounded by them.
type programs struct {
	mu sync.Mutex
	m  map[string]*feel.Program
}

// eval compiles (once) and evaluates a header expression ("=…" or bare).
func (p *programs) eval(src string, s scope) (any, error) {
	src = strings.TrimPrefix(strings.TrimSpace(src), "=")
	p.mu.Lock()
	prog, ok := p.m[src]
	p.mu.Unlock()
	if !ok {
		var err error
		if prog, err = feel.CompileWith(src, feel.Options{Names: functionNames}); err != nil {
			return nil, err
		}
		p.mu.Lock()
		if p.m == nil {
			p.m = map[string]*feel.Program{}
		}
		p.m[src] = prog
		p.mu.Unlock()
	}
	return prog.Eval(s)
}

// parseBackoff reads an ISO 8601 duration (PT30S) as FEEL's duration() does.
func parseBackoff(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	prog, err := feel.Compile("duration(x)")
	if err != nil {
		return 0, err
	}
	v, err := prog.EvalValue(scope{"x": s})
	if err != nil {
		return 0, err
	}
	d, ok := v.(feel.Duration)
	if !ok {
		return 0, fmt.Errorf("retryBackoff %q: want an ISO 8601 duration such as PT30S", s)
	}
	return time.Duration(d.Seconds())*time.Second + time.Duration(d.Nanoseconds()), nil
}

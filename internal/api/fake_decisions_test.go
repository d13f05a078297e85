package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// fakeDecisions is the DMN part of fakeService. A deployed file registers a
// decision for every <decision id="…" name="…"> it contains, versioned like
// the fake's processes (identical content mints no new version). Evaluation
// follows these conventions:
//   - an unknown key is ENOTFOUND, key "explode" fails with an internal error;
//   - variables holding "clash" fail as a UNIQUE table with two matches
//     (EINVALID naming both rules);
//   - otherwise the result is {"rate": 0.15, "seen": <the variables>} and
//     rule "r1" matched; with "none" in the variables nothing matches and
//     the result is null.
type fakeDecisions struct {
	versions map[string][]runtime.DefinitionRecord

	// What the API passed, for assertions.
	lastVars map[string]any
}

var decisionRE = regexp.MustCompile(`<decision\s+id="([^"]+)"(?:\s+name="([^"]*)")?`)

// deployDecisions registers the decisions of file; f.mu is held.
func (f *fakeService) deployDecisions(file runtime.File, depID, hash string) []runtime.DefinitionRef {
	var refs []runtime.DefinitionRef
	for _, m := range decisionRE.FindAllSubmatch(file.Content, -1) {
		key := string(m[1])
		vs := f.decisions.versions[key]
		if n := len(vs); n > 0 && vs[n-1].ResourceHash == hash {
			refs = append(refs, runtime.DefinitionRef{Key: key, Version: vs[n-1].Version})
			continue
		}
		rec := runtime.DefinitionRecord{
			Key: key, Version: len(vs) + 1, Name: string(m[2]), DeploymentID: depID,
			ResourceName: file.Name, ResourceHash: hash, XML: file.Content, DeployedAt: f.now,
		}
		f.decisions.versions[key] = append(vs, rec)
		refs = append(refs, runtime.DefinitionRef{Key: key, Version: rec.Version})
	}
	return refs
}

func (f *fakeService) Decisions(context.Context) ([]runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []runtime.DefinitionRecord
	for _, vs := range f.decisions.versions {
		out = append(out, vs[len(vs)-1])
	}
	slices.SortFunc(out, func(a, b runtime.DefinitionRecord) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (f *fakeService) DecisionVersions(_ context.Context, key string) ([]runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs, ok := f.decisions.versions[key]
	if !ok {
		return nil, fmt.Errorf("decision %q: %w", key, runtime.ErrNotFound)
	}
	return slices.Clone(vs), nil
}

func (f *fakeService) DecisionDefinition(_ context.Context, key string, version int) (runtime.DefinitionRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vs := f.decisions.versions[key]
	if version < 1 || version > len(vs) {
		return runtime.DefinitionRecord{}, runtime.Errorf(runtime.ENOTFOUND, "decision %q has no version %d", key, version)
	}
	return vs[version-1], nil
}

func (f *fakeService) EvaluateDecision(_ context.Context, key string, _ int, vars map[string]any) (runtime.DecisionResult, error) {
	if key == "explode" {
		return runtime.DecisionResult{}, errors.New("decision cache corrupt: /var/lib/secret")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions.lastVars = vars
	vs := f.decisions.versions[key]
	if len(vs) == 0 {
		return runtime.DecisionResult{}, runtime.Errorf(runtime.ENOTFOUND, "decision %q is not deployed", key)
	}
	res := runtime.DecisionResult{Key: key, Version: len(vs)}
	switch {
	case vars["clash"] != nil:
		return runtime.DecisionResult{}, &runtime.Error{Code: runtime.EINVALID, Field: "variables",
			Message: "dmn: evaluation failed: " + key + ": hit policy UNIQUE violated: rules r1 and r2 both match"}
	case vars["none"] != nil:
		// Nothing matched: a null result and no rules (the runtime may hand nil).
	default:
		res.Result = map[string]any{"rate": json.Number("0.15"), "seen": vars}
		res.MatchedRules = []string{"r1"}
	}
	return res, nil
}

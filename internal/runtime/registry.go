package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/dmn"
)

// cache holds parsed, immutable definitions (processes or decision
// documents) by key and version. Definitions never change once registered,
// so entries never go stale.
type cache[T any] struct {
	mu    sync.RWMutex
	items map[DefinitionRef]T
	// latest is the highest version put per key.
	latest map[string]int
}

func newCache[T any]() *cache[T] {
	return &cache[T]{items: map[DefinitionRef]T{}, latest: map[string]int{}}
}

func (c *cache[T]) get(ref DefinitionRef) (T, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.items[ref]
	return v, ok
}

func (c *cache[T]) put(ref DefinitionRef, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[ref] = v
	if ref.Version > c.latest[ref.Key] {
		c.latest[ref.Key] = ref.Version
	}
}

// latestVersion returns the highest version of key this cache has seen.
// Versions only grow and every deployment registers through this runtime
// (Deploy puts its new versions), so it is the latest version of the store
// without asking it: a start costs no store read. (Several nodes sharing a
// store must also put what other nodes deploy.)
func (c *cache[T]) latestVersion(key string) (int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.latest[key]
	return v, ok
}

// Deploy validates every file and, only if all are valid, registers every
// process they declare (docs/README.md#vocabulary deployment). An invalid model fails with a
// *DeploymentError listing every problem; nothing is registered then.
func (r *Runtime) Deploy(ctx context.Context, files []File) (DeploymentResult, error) {
	if len(files) == 0 {
		return DeploymentResult{}, &Error{Code: EINVALID, Message: "a deployment needs at least one file", Field: "file"}
	}
	var (
		problems  []Problem
		warnings  []Problem
		resources []Resource
		parsed    = map[string]*bpmn.Process{}
		decisions = map[string]*dmn.Definitions{}
		owner     = map[string]string{}
		decOwner  = map[string]string{}
	)
	// The DMN documents are read together: one may import another.
	var dmnDocs []dmn.Document
	for _, f := range files {
		if strings.EqualFold(path.Ext(f.Name), ".dmn") {
			dmnDocs = append(dmnDocs, dmn.Document{Name: f.Name, Data: f.Content})
		}
	}
	dmnDefs, dmnErrs := dmn.ParseAll(dmnDocs...)
	nextDMN := 0
	problems = append(problems, checkForms(files)...)
	for _, f := range files {
		name := f.Name
		sum := sha256.Sum256(f.Content)
		res := Resource{Name: name, Content: f.Content, Hash: hex.EncodeToString(sum[:])}
		if isForm(name) {
			// A Camunda Form registers nothing: its process's user tasks
			// find it in their deployment (Form).
			resources = append(resources, res)
			continue
		}
		if strings.EqualFold(path.Ext(name), ".dmn") {
			defs, err := dmnDefs[nextDMN], dmnErrs[nextDMN]
			nextDMN++
			if err != nil {
				var verr *dmn.ValidationError
				if !errors.As(err, &verr) {
					return DeploymentResult{}, fmt.Errorf("runtime: parse %s: %w", name, err)
				}
				for _, p := range verr.Problems {
					problems = append(problems, Problem{Resource: name, Element: p.Element, Rule: p.Rule, Detail: p.Detail})
				}
				continue
			}
			for _, w := range defs.Warnings {
				warnings = append(warnings, Problem{Resource: name, Element: w.Element, Rule: w.Rule, Detail: w.Detail})
			}
			for _, d := range defs.Decisions {
				if d.ID == "" {
					problems = append(problems, Problem{Resource: name, Element: d.Name, Rule: "missing-id",
						Detail: fmt.Sprintf("decision %q has no id: gobpm registers, evaluates and calls a decision by its id", d.Name)})
					continue
				}
				if prev, dup := decOwner[d.ID]; dup {
					problems = append(problems, Problem{Resource: name, Element: d.ID, Rule: "duplicate-decision-key",
						Detail: fmt.Sprintf("decision %q is declared in both %s and %s", d.ID, prev, name)})
					continue
				}
				decOwner[d.ID] = name
				decisions[d.ID] = defs
				res.Decisions = append(res.Decisions, ProcessDecl{Key: d.ID, Name: d.Name})
			}
			resources = append(resources, res)
			continue
		}
		defs, err := bpmn.ParseWith(f.Content, r.engine.ModelLimits())
		if err != nil {
			var verr *bpmn.ValidationError
			if !errors.As(err, &verr) {
				return DeploymentResult{}, fmt.Errorf("runtime: parse %s: %w", name, err)
			}
			for _, p := range verr.Problems {
				problems = append(problems, Problem{Resource: name, Element: p.Element, Rule: p.Rule, Detail: p.Detail})
			}
			continue
		}
		for _, w := range defs.Warnings {
			warnings = append(warnings, Problem{Resource: name, Element: w.Element, Rule: string(w.Rule), Detail: w.Detail})
		}
		for _, p := range defs.Processes {
			if prev, dup := owner[p.ID]; dup {
				problems = append(problems, Problem{Resource: name, Element: p.ID, Rule: "duplicate-process-key",
					Detail: fmt.Sprintf("process %q is declared in both %s and %s", p.ID, prev, name)})
				continue
			}
			owner[p.ID] = name
			parsed[p.ID] = p
			res.Processes = append(res.Processes, ProcessDecl{Key: p.ID, Name: p.Name})
		}
		resources = append(resources, res)
	}
	if len(problems) == 0 {
		ps, err := r.checkWebhookPaths(ctx, parsed, owner)
		if err != nil {
			return DeploymentResult{}, err
		}
		problems = ps
	}
	if len(problems) > 0 {
		return DeploymentResult{}, &DeploymentError{Problems: problems}
	}
	if guard, ok := ctx.Value(deployGuardKey{}).(DeployGuard); ok {
		plan := DeploymentPlan{Reaches: staticReaches(resources, parsed)}
		for _, res := range resources {
			for _, p := range res.Processes {
				plan.Processes = append(plan.Processes, p.Key)
			}
			for _, d := range res.Decisions {
				plan.Decisions = append(plan.Decisions, d.Key)
			}
		}
		if err := guard(plan); err != nil {
			return DeploymentResult{}, err
		}
	}
	rec := DeploymentRecord{ID: r.newID(), DeployedAt: r.now(), Resources: resources, DeployedBy: deployerFrom(ctx)}
	refs, decRefs, err := r.store.Deploy(ctx, rec)
	if err != nil {
		return DeploymentResult{}, fmt.Errorf("runtime: deploy %s: %w", rec.ID, err)
	}
	for _, ref := range refs {
		r.defs.put(ref, parsed[ref.Key])
		def, err := r.store.Definition(ctx, ref.Key, ref.Version)
		if err != nil {
			return DeploymentResult{}, fmt.Errorf("runtime: deploy %s: %w", rec.ID, err)
		}
		if def.DeploymentID == rec.ID { // a new version: its timer starts replace the old schedule
			if err := r.armStartTimers(ctx, ref, parsed[ref.Key]); err != nil {
				return DeploymentResult{}, err
			}
		}
	}
	for _, ref := range decRefs {
		r.decs.put(ref, decisions[ref.Key])
	}
	r.webhooks.invalidate()
	r.log.Info("deployed", "deployment_id", rec.ID, "processes", len(refs), "decisions", len(decRefs))
	if decRefs == nil {
		decRefs = []DefinitionRef{}
	}
	return DeploymentResult{ID: rec.ID, Processes: refs, Decisions: decRefs, Warnings: warnings}, nil
}

// Processes returns the latest version of every registered process.
func (r *Runtime) Processes(ctx context.Context) ([]DefinitionRecord, error) {
	return r.store.LatestDefinitions(ctx)
}

// ProcessVersions returns every version of a process key (ENOTFOUND if unknown).
func (r *Runtime) ProcessVersions(ctx context.Context, key string) ([]DefinitionRecord, error) {
	return r.store.DefinitionVersions(ctx, key)
}

// Definition returns one registered version (0 = latest) with its deployed XML.
func (r *Runtime) Definition(ctx context.Context, key string, version int) (DefinitionRecord, error) {
	return r.store.Definition(ctx, key, version)
}

// process returns the parsed process of a registered version (0 = latest).
func (r *Runtime) process(ctx context.Context, key string, version int) (*bpmn.Process, DefinitionRef, error) {
	if version == 0 {
		if v, ok := r.defs.latestVersion(key); ok {
			version = v
		}
	}
	if version > 0 {
		if p, ok := r.defs.get(DefinitionRef{Key: key, Version: version}); ok {
			return p, DefinitionRef{Key: key, Version: version}, nil
		}
	}
	rec, err := r.store.Definition(ctx, key, version)
	if err != nil {
		return nil, DefinitionRef{}, err
	}
	ref := DefinitionRef{Key: rec.Key, Version: rec.Version}
	if p, ok := r.defs.get(ref); ok {
		return p, ref, nil
	}
	// Deployed: the limits and rules of its deployment's day hold, so a
	// definition that deployed always reads back.
	defs, err := bpmn.ParseWith(rec.XML, bpmn.Limits{Deployed: true})
	if err != nil {
		return nil, ref, fmt.Errorf("runtime: re-read %s version %d: %w", key, rec.Version, err)
	}
	for _, p := range defs.Processes {
		if p.ID == key {
			r.defs.put(ref, p)
			return p, ref, nil
		}
	}
	return nil, ref, fmt.Errorf("runtime: process %s is missing from its deployed document (version %d)", key, rec.Version)
}

// Decisions returns the latest version of every registered decision.
func (r *Runtime) Decisions(ctx context.Context) ([]DefinitionRecord, error) {
	return r.store.LatestDecisions(ctx)
}

// DecisionVersions returns every version of a decision key (ENOTFOUND if unknown).
func (r *Runtime) DecisionVersions(ctx context.Context, key string) ([]DefinitionRecord, error) {
	return r.store.DecisionVersions(ctx, key)
}

// DecisionDefinition returns one registered decision version (0 = latest)
// with its deployed DMN document.
func (r *Runtime) DecisionDefinition(ctx context.Context, key string, version int) (DefinitionRecord, error) {
	return r.store.Decision(ctx, key, version)
}

// decision returns the parsed DMN document of a registered decision version (0 = latest).
func (r *Runtime) decision(ctx context.Context, key string, version int) (*dmn.Definitions, DefinitionRef, error) {
	if version == 0 {
		if v, ok := r.decs.latestVersion(key); ok {
			version = v
		}
	}
	if version > 0 {
		if d, ok := r.decs.get(DefinitionRef{Key: key, Version: version}); ok {
			return d, DefinitionRef{Key: key, Version: version}, nil
		}
	}
	rec, err := r.store.Decision(ctx, key, version)
	if err != nil {
		return nil, DefinitionRef{}, err
	}
	ref := DefinitionRef{Key: rec.Key, Version: rec.Version}
	if d, ok := r.decs.get(ref); ok {
		return d, ref, nil
	}
	d, err := r.rereadDecision(ctx, rec)
	if err != nil {
		return nil, ref, fmt.Errorf("runtime: re-read decision %s version %d: %w", key, rec.Version, err)
	}
	r.decs.put(ref, d)
	return d, ref, nil
}

// rereadDecision parses the DMN document of a stored decision together
// with the other DMN documents of its deployment, which it may import.
func (r *Runtime) rereadDecision(ctx context.Context, rec DefinitionRecord) (*dmn.Definitions, error) {
	siblings, err := r.store.DeploymentResources(ctx, rec.DeploymentID, ".dmn")
	if err != nil {
		return nil, err
	}
	docs := []dmn.Document{{Name: rec.ResourceName, Data: rec.XML}}
	for _, s := range siblings {
		if s.Name != rec.ResourceName {
			docs = append(docs, dmn.Document{Name: s.Name, Data: s.Content})
		}
	}
	defs, errs := dmn.ParseAll(docs...)
	return defs[0], errs[0]
}

// DecisionResult is the answer of EvaluateDecision.
type DecisionResult struct {
	Key     string
	Version int
	// Result is the decision's value (JSON-shaped).
	Result any
	// MatchedRules are the ids of the rules that matched (decision#index when a rule has no id).
	MatchedRules []string
}

// EvaluateDecision evaluates a version of a decision (0: the latest) with
// the given variables as its inputs, at the runtime's clock (Options.Now:
// FEEL's now() and today()). ENOTFOUND for an unknown key or version; a
// failed evaluation (e.g. UNIQUE with two matches) is EINVALID with the
// reasons.
func (r *Runtime) EvaluateDecision(ctx context.Context, key string, version int, vars map[string]any) (DecisionResult, error) {
	defs, ref, err := r.decision(ctx, key, version)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			if version > 0 {
				return DecisionResult{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("decision %q has no version %d", key, version), Err: err}
			}
			return DecisionResult{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("decision %q is not deployed", key), Err: err}
		}
		return DecisionResult{}, err
	}
	res, err := defs.EvaluateAt(key, vars, r.now())
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return DecisionResult{}, &Error{Code: EINVALID, Message: err.Error(), Field: "variables"}
	}
	return DecisionResult{Key: ref.Key, Version: ref.Version, Result: res.Value, MatchedRules: ruleIDs(res.Matched)}, nil
}

// ruleIDs names matched rules by id, or decision#index when a rule has none.
func ruleIDs(matched []dmn.MatchedRule) []string {
	out := make([]string, 0, len(matched))
	for _, m := range matched {
		id := m.RuleID
		if id == "" {
			id = fmt.Sprintf("%s#%d", m.DecisionID, m.RuleIndex)
		}
		out = append(out, id)
	}
	return out
}

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
)

// definitions caches parsed, immutable process definitions by key and
// version. Definitions never change once registered, so entries never go stale.
type definitions struct {
	mu    sync.RWMutex
	procs map[DefinitionRef]*bpmn.Process
}

func newDefinitions() *definitions {
	return &definitions{procs: map[DefinitionRef]*bpmn.Process{}}
}

func (d *definitions) get(ref DefinitionRef) *bpmn.Process {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.procs[ref]
}

func (d *definitions) put(ref DefinitionRef, p *bpmn.Process) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procs[ref] = p
}

// Deploy validates every file and, only if all are valid, registers every
// process they declare (DESIGN §1 deployment). An invalid model fails with a
// *DeploymentError listing every problem; nothing is registered then.
func (r *Runtime) Deploy(ctx context.Context, files []File) (DeploymentResult, error) {
	if len(files) == 0 {
		return DeploymentResult{}, &Error{Code: EINVALID, Message: "a deployment needs at least one file", Field: "file"}
	}
	var (
		problems  []Problem
		resources []Resource
		parsed    = map[string]*bpmn.Process{}
		owner     = map[string]string{}
	)
	for _, f := range files {
		name := f.Name
		switch strings.ToLower(path.Ext(name)) {
		case ".dmn":
			problems = append(problems, Problem{Resource: name, Element: name, Rule: "unsupported-resource", Detail: "DMN decisions are not supported yet"})
			continue
		}
		defs, err := bpmn.Parse(f.Content)
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
		sum := sha256.Sum256(f.Content)
		res := Resource{Name: name, Content: f.Content, Hash: hex.EncodeToString(sum[:])}
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
	if len(problems) > 0 {
		return DeploymentResult{}, &DeploymentError{Problems: problems}
	}
	rec := DeploymentRecord{ID: r.newID(), DeployedAt: r.now(), Resources: resources}
	refs, err := r.store.Deploy(ctx, rec)
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
	r.log.Info("deployed", "deployment_id", rec.ID, "processes", len(refs))
	return DeploymentResult{ID: rec.ID, Processes: refs}, nil
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
	if version > 0 {
		if p := r.defs.get(DefinitionRef{Key: key, Version: version}); p != nil {
			return p, DefinitionRef{Key: key, Version: version}, nil
		}
	}
	rec, err := r.store.Definition(ctx, key, version)
	if err != nil {
		return nil, DefinitionRef{}, err
	}
	ref := DefinitionRef{Key: rec.Key, Version: rec.Version}
	if p := r.defs.get(ref); p != nil {
		return p, ref, nil
	}
	defs, err := bpmn.Parse(rec.XML)
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

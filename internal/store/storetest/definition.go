package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// Resource builds a resource with the given content declaring keys (each
// process named after its key).
func Resource(name, content string, keys ...string) store.Resource {
	sum := sha256.Sum256([]byte(content))
	r := store.Resource{Name: name, Content: []byte(content), Hash: hex.EncodeToString(sum[:])}
	for _, k := range keys {
		r.Processes = append(r.Processes, store.ProcessDecl{Key: k, Name: "Process " + k})
	}
	return r
}

// decisions returns r declaring the decisions keys too (each named after its
// key), as a .dmn resource does.
func decisions(r store.Resource, keys ...string) store.Resource {
	for _, k := range keys {
		r.Decisions = append(r.Decisions, store.ProcessDecl{Key: k, Name: "Decision " + k})
	}
	return r
}

// Deployment builds a deployment at a time derived from its position in tests.
func Deployment(id string, resources ...store.Resource) store.DeploymentRecord {
	return store.DeploymentRecord{ID: id, DeployedAt: t0, Resources: resources}
}

// dref builds a DefinitionRef.
func dref(key string, version int) store.DefinitionRef {
	return store.DefinitionRef{Key: key, Version: version}
}

func testDeployVersioning(t *testing.T, open Opener) {
	t.Parallel()
	// refs are the process and decision refs of one deployment.
	type refs struct{ procs, decs []store.DefinitionRef }
	// Each case deploys its steps in order on a fresh store.
	tests := []struct {
		name  string
		steps []store.DeploymentRecord
		want  []refs
	}{
		{
			name:  "new key gets version 1",
			steps: []store.DeploymentRecord{Deployment("d1", Resource("a.bpmn", "A1", "a"))},
			want:  []refs{{procs: []store.DefinitionRef{dref("a", 1)}}},
		},
		{
			name: "same hash keeps the version",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("a.bpmn", "A1", "a")),
				Deployment("d2", Resource("a.bpmn", "A1", "a")),
			},
			want: []refs{{procs: []store.DefinitionRef{dref("a", 1)}}, {procs: []store.DefinitionRef{dref("a", 1)}}},
		},
		{
			name: "changed content gets version 2",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("a.bpmn", "A1", "a")),
				Deployment("d2", Resource("a.bpmn", "A2", "a")),
			},
			want: []refs{{procs: []store.DefinitionRef{dref("a", 1)}}, {procs: []store.DefinitionRef{dref("a", 2)}}},
		},
		{
			name: "back to old content is a new version",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("a.bpmn", "A1", "a")),
				Deployment("d2", Resource("a.bpmn", "A2", "a")),
				Deployment("d3", Resource("a.bpmn", "A1", "a")),
			},
			want: []refs{
				{procs: []store.DefinitionRef{dref("a", 1)}},
				{procs: []store.DefinitionRef{dref("a", 2)}},
				{procs: []store.DefinitionRef{dref("a", 3)}},
			},
		},
		{
			name: "two processes in one resource",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("ab.bpmn", "AB1", "a", "b")),
				Deployment("d2", Resource("ab.bpmn", "AB2", "a", "b")),
			},
			want: []refs{
				{procs: []store.DefinitionRef{dref("a", 1), dref("b", 1)}},
				{procs: []store.DefinitionRef{dref("a", 2), dref("b", 2)}},
			},
		},
		{
			name: "a second resource versions independently",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("a.bpmn", "A1", "a"), Resource("c.bpmn", "C1", "c")),
				Deployment("d2", Resource("a.bpmn", "A1", "a"), Resource("c.bpmn", "C2", "c")),
			},
			want: []refs{
				{procs: []store.DefinitionRef{dref("a", 1), dref("c", 1)}},
				{procs: []store.DefinitionRef{dref("a", 1), dref("c", 2)}},
			},
		},
		{
			name:  "new decision gets version 1",
			steps: []store.DeploymentRecord{Deployment("d1", decisions(Resource("x.dmn", "X1"), "x"))},
			want:  []refs{{decs: []store.DefinitionRef{dref("x", 1)}}},
		},
		{
			name: "identical decision content keeps the version",
			steps: []store.DeploymentRecord{
				Deployment("d1", decisions(Resource("x.dmn", "X1"), "x", "y")),
				Deployment("d2", decisions(Resource("x.dmn", "X1"), "x", "y")),
			},
			want: []refs{
				{decs: []store.DefinitionRef{dref("x", 1), dref("y", 1)}},
				{decs: []store.DefinitionRef{dref("x", 1), dref("y", 1)}},
			},
		},
		{
			name: "changed decision content gets the next version",
			steps: []store.DeploymentRecord{
				Deployment("d1", decisions(Resource("x.dmn", "X1"), "x", "y")),
				Deployment("d2", decisions(Resource("x.dmn", "X2"), "x", "y")),
				Deployment("d3", decisions(Resource("x.dmn", "X1"), "x")),
			},
			want: []refs{
				{decs: []store.DefinitionRef{dref("x", 1), dref("y", 1)}},
				{decs: []store.DefinitionRef{dref("x", 2), dref("y", 2)}},
				{decs: []store.DefinitionRef{dref("x", 3)}},
			},
		},
		{
			name: "decision moved to another resource keeps its content rule",
			steps: []store.DeploymentRecord{
				Deployment("d1", decisions(Resource("x.dmn", "X1"), "x")),
				Deployment("d2", decisions(Resource("renamed.dmn", "X1"), "x")),
			},
			// Same hash, so the version is kept, as for processes.
			want: []refs{{decs: []store.DefinitionRef{dref("x", 1)}}, {decs: []store.DefinitionRef{dref("x", 1)}}},
		},
		{
			name: "a resource with both processes and decisions",
			steps: []store.DeploymentRecord{
				Deployment("d1", decisions(Resource("both", "B1", "p", "q"), "x", "y")),
				Deployment("d2", decisions(Resource("both", "B1", "p", "q"), "x", "y")),
				Deployment("d3", decisions(Resource("both", "B2", "p", "q"), "x", "y")),
			},
			want: []refs{
				{procs: []store.DefinitionRef{dref("p", 1), dref("q", 1)}, decs: []store.DefinitionRef{dref("x", 1), dref("y", 1)}},
				{procs: []store.DefinitionRef{dref("p", 1), dref("q", 1)}, decs: []store.DefinitionRef{dref("x", 1), dref("y", 1)}},
				{procs: []store.DefinitionRef{dref("p", 2), dref("q", 2)}, decs: []store.DefinitionRef{dref("x", 2), dref("y", 2)}},
			},
		},
		{
			name: "refs in resource and document order, processes and decisions apart",
			steps: []store.DeploymentRecord{
				Deployment("d1",
					decisions(Resource("z.dmn", "Z1"), "z2", "z1"),
					Resource("b.bpmn", "B1", "b"),
					decisions(Resource("a.dmn", "A1"), "a"),
					Resource("a.bpmn", "AP1", "a")),
			},
			// A process key and a decision key never collide: they are
			// versioned apart.
			want: []refs{{
				procs: []store.DefinitionRef{dref("b", 1), dref("a", 1)},
				decs:  []store.DefinitionRef{dref("z2", 1), dref("z1", 1), dref("a", 1)},
			}},
		},
		{
			name: "decisions do not disturb process versions",
			steps: []store.DeploymentRecord{
				Deployment("d1", Resource("a.bpmn", "A1", "a")),
				Deployment("d2", Resource("a.bpmn", "A1", "a"), decisions(Resource("x.dmn", "X1"), "x")),
				Deployment("d3", Resource("a.bpmn", "A2", "a"), decisions(Resource("x.dmn", "X1"), "x")),
			},
			want: []refs{
				{procs: []store.DefinitionRef{dref("a", 1)}},
				{procs: []store.DefinitionRef{dref("a", 1)}, decs: []store.DefinitionRef{dref("x", 1)}},
				{procs: []store.DefinitionRef{dref("a", 2)}, decs: []store.DefinitionRef{dref("x", 1)}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t)
			for i, d := range tt.steps {
				procs, decs, err := db.Deploy(ctx, d)
				if err != nil {
					t.Fatalf("deploy %s: %v", d.ID, err)
				}
				if !reflect.DeepEqual(procs, tt.want[i].procs) {
					t.Errorf("deploy %s processes = %v, want %v", d.ID, procs, tt.want[i].procs)
				}
				if !reflect.DeepEqual(decs, tt.want[i].decs) {
					t.Errorf("deploy %s decisions = %v, want %v", d.ID, decs, tt.want[i].decs)
				}
			}
		})
	}
}

func testDeployDuplicateIDConflicts(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	if _, _, err := db.Deploy(ctx, Deployment("d1", decisions(Resource("a.bpmn", "A1", "a"), "x"))); err != nil {
		t.Fatal(err)
	}
	_, _, err := db.Deploy(ctx, Deployment("d1", decisions(Resource("a.bpmn", "A2", "a"), "x")))
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("redeploy of id d1 = %v, want ErrConflict", err)
	}
	if _, err := db.Definition(ctx, "a", 2); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed deploy registered process version 2: %v", err)
	}
	if _, err := db.Decision(ctx, "x", 2); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed deploy registered decision version 2: %v", err)
	}
}

func testDefinitionLookups(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	later := t0.Add(time.Hour)
	for _, d := range []store.DeploymentRecord{
		Deployment("d1", Resource("a.bpmn", "A1", "a"), Resource("z.bpmn", "Z1", "z")),
		{ID: "d2", DeployedAt: later, Resources: []store.Resource{Resource("a2.bpmn", "A2", "a")}},
	} {
		if _, _, err := db.Deploy(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		key     string
		version int
		want    store.DefinitionRecord
		wantErr error
	}{
		{
			name: "latest", key: "a",
			want: store.DefinitionRecord{Key: "a", Version: 2, Name: "Process a", DeploymentID: "d2",
				ResourceName: "a2.bpmn", ResourceHash: Resource("", "A2").Hash, XML: []byte("A2"), DeployedAt: later},
		},
		{
			name: "specific", key: "a", version: 1,
			want: store.DefinitionRecord{Key: "a", Version: 1, Name: "Process a", DeploymentID: "d1",
				ResourceName: "a.bpmn", ResourceHash: Resource("", "A1").Hash, XML: []byte("A1"), DeployedAt: t0},
		},
		{name: "unknown version", key: "a", version: 3, wantErr: store.ErrNotFound},
		{name: "unknown key", key: "nope", wantErr: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.Definition(ctx, tt.key, tt.version)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	t.Run("latest of every key", func(t *testing.T) {
		t.Parallel()
		got, err := db.LatestDefinitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var refs []store.DefinitionRef
		for _, d := range got {
			refs = append(refs, store.DefinitionRef{Key: d.Key, Version: d.Version})
		}
		want := []store.DefinitionRef{{Key: "a", Version: 2}, {Key: "z", Version: 1}}
		if !reflect.DeepEqual(refs, want) {
			t.Errorf("LatestDefinitions = %v, want %v", refs, want)
		}
	})
	t.Run("versions", func(t *testing.T) {
		t.Parallel()
		got, err := db.DefinitionVersions(ctx, "a")
		if err != nil || len(got) != 2 || got[0].Version != 1 || got[1].Version != 2 {
			t.Fatalf("DefinitionVersions(a) = %+v, %v", got, err)
		}
		if _, err := db.DefinitionVersions(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DefinitionVersions(nope) = %v, want ErrNotFound", err)
		}
	})
}

func testDeployRollsBackDecisions(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	// The second resource repeats x.dmn's name: its insert fails after the
	// decisions of the first resource were registered.
	_, _, err := db.Deploy(ctx, Deployment("d1",
		decisions(Resource("x.dmn", "X1"), "x"),
		Resource("x.dmn", "X2", "a")))
	if err == nil {
		t.Fatal("deploy with a duplicate resource name succeeded")
	}
	if _, err := db.Decision(ctx, "x", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed deploy left decision x behind: %v", err)
	}
	if recs, err := db.LatestDecisions(ctx); err != nil || len(recs) != 0 {
		t.Errorf("LatestDecisions after failed deploy = %+v, %v", recs, err)
	}
}

func testDecisionLookups(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	later := t0.Add(time.Hour)
	for _, d := range []store.DeploymentRecord{
		Deployment("d1", decisions(Resource("x.dmn", "X1"), "x", "w"), Resource("p.bpmn", "P1", "p")),
		{ID: "d2", DeployedAt: later, Resources: []store.Resource{decisions(Resource("x2.dmn", "X2"), "x")}},
	} {
		if _, _, err := db.Deploy(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	x1 := store.DefinitionRecord{Key: "x", Version: 1, Name: "Decision x", DeploymentID: "d1",
		ResourceName: "x.dmn", ResourceHash: Resource("", "X1").Hash, XML: []byte("X1"), DeployedAt: t0}
	x2 := store.DefinitionRecord{Key: "x", Version: 2, Name: "Decision x", DeploymentID: "d2",
		ResourceName: "x2.dmn", ResourceHash: Resource("", "X2").Hash, XML: []byte("X2"), DeployedAt: later}
	w1 := store.DefinitionRecord{Key: "w", Version: 1, Name: "Decision w", DeploymentID: "d1",
		ResourceName: "x.dmn", ResourceHash: Resource("", "X1").Hash, XML: []byte("X1"), DeployedAt: t0}
	tests := []struct {
		name    string
		key     string
		version int
		want    store.DefinitionRecord
		wantErr error
	}{
		{name: "latest", key: "x", want: x2},
		{name: "specific", key: "x", version: 1, want: x1},
		{name: "second decision of a document", key: "w", want: w1},
		{name: "unknown version", key: "x", version: 3, wantErr: store.ErrNotFound},
		{name: "unknown key", key: "nope", wantErr: store.ErrNotFound},
		{name: "a process key is not a decision", key: "p", wantErr: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.Decision(ctx, tt.key, tt.version)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	t.Run("latest of every key", func(t *testing.T) {
		t.Parallel()
		got, err := db.LatestDecisions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []store.DefinitionRecord{w1, x2}; !reflect.DeepEqual(got, want) {
			t.Errorf("LatestDecisions = %+v\nwant %+v", got, want)
		}
	})
	t.Run("versions", func(t *testing.T) {
		t.Parallel()
		got, err := db.DecisionVersions(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if want := []store.DefinitionRecord{x1, x2}; !reflect.DeepEqual(got, want) {
			t.Errorf("DecisionVersions(x) = %+v\nwant %+v", got, want)
		}
		for _, key := range []string{"nope", "p"} {
			if _, err := db.DecisionVersions(ctx, key); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("DecisionVersions(%s) = %v, want ErrNotFound", key, err)
			}
		}
	})
	t.Run("processes ignore decisions", func(t *testing.T) {
		t.Parallel()
		if _, err := db.Definition(ctx, "x", 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Definition(x) = %v, want ErrNotFound", err)
		}
		got, err := db.LatestDefinitions(ctx)
		if err != nil || len(got) != 1 || got[0].Key != "p" {
			t.Errorf("LatestDefinitions = %+v, %v, want only p", got, err)
		}
	})
}

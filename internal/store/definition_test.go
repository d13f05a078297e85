package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// resource builds a resource with the given content declaring keys (each
// process named after its key).
func resource(name, content string, keys ...string) runtime.Resource {
	sum := sha256.Sum256([]byte(content))
	r := runtime.Resource{Name: name, Content: []byte(content), Hash: hex.EncodeToString(sum[:])}
	for _, k := range keys {
		r.Processes = append(r.Processes, runtime.ProcessDecl{Key: k, Name: "Process " + k})
	}
	return r
}

// deployment builds a deployment at a time derived from its position in tests.
func deployment(id string, resources ...runtime.Resource) runtime.DeploymentRecord {
	return runtime.DeploymentRecord{ID: id, DeployedAt: t0, Resources: resources}
}

// dref builds a DefinitionRef.
func dref(key string, version int) runtime.DefinitionRef {
	return runtime.DefinitionRef{Key: key, Version: version}
}

func TestDeployVersioning(t *testing.T) {
	t.Parallel()
	// Each case deploys its steps in order on a fresh store.
	tests := []struct {
		name  string
		steps []runtime.DeploymentRecord
		want  [][]runtime.DefinitionRef
	}{
		{
			name:  "new key gets version 1",
			steps: []runtime.DeploymentRecord{deployment("d1", resource("a.bpmn", "A1", "a"))},
			want:  [][]runtime.DefinitionRef{{dref("a", 1)}},
		},
		{
			name: "same hash keeps the version",
			steps: []runtime.DeploymentRecord{
				deployment("d1", resource("a.bpmn", "A1", "a")),
				deployment("d2", resource("a.bpmn", "A1", "a")),
			},
			want: [][]runtime.DefinitionRef{{dref("a", 1)}, {dref("a", 1)}},
		},
		{
			name: "changed content gets version 2",
			steps: []runtime.DeploymentRecord{
				deployment("d1", resource("a.bpmn", "A1", "a")),
				deployment("d2", resource("a.bpmn", "A2", "a")),
			},
			want: [][]runtime.DefinitionRef{{dref("a", 1)}, {dref("a", 2)}},
		},
		{
			name: "back to old content is a new version",
			steps: []runtime.DeploymentRecord{
				deployment("d1", resource("a.bpmn", "A1", "a")),
				deployment("d2", resource("a.bpmn", "A2", "a")),
				deployment("d3", resource("a.bpmn", "A1", "a")),
			},
			want: [][]runtime.DefinitionRef{{dref("a", 1)}, {dref("a", 2)}, {dref("a", 3)}},
		},
		{
			name: "two processes in one resource",
			steps: []runtime.DeploymentRecord{
				deployment("d1", resource("ab.bpmn", "AB1", "a", "b")),
				deployment("d2", resource("ab.bpmn", "AB2", "a", "b")),
			},
			want: [][]runtime.DefinitionRef{{dref("a", 1), dref("b", 1)}, {dref("a", 2), dref("b", 2)}},
		},
		{
			name: "a second resource versions independently",
			steps: []runtime.DeploymentRecord{
				deployment("d1", resource("a.bpmn", "A1", "a"), resource("c.bpmn", "C1", "c")),
				deployment("d2", resource("a.bpmn", "A1", "a"), resource("c.bpmn", "C2", "c")),
			},
			want: [][]runtime.DefinitionRef{{dref("a", 1), dref("c", 1)}, {dref("a", 1), dref("c", 2)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := MustOpen(t)
			for i, d := range tt.steps {
				got, err := db.Deploy(ctx, d)
				if err != nil {
					t.Fatalf("deploy %s: %v", d.ID, err)
				}
				if !reflect.DeepEqual(got, tt.want[i]) {
					t.Errorf("deploy %s = %v, want %v", d.ID, got, tt.want[i])
				}
			}
		})
	}
}

func TestDeployDuplicateIDConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	if _, err := db.Deploy(ctx, deployment("d1", resource("a.bpmn", "A1", "a"))); err != nil {
		t.Fatal(err)
	}
	_, err := db.Deploy(ctx, deployment("d1", resource("a.bpmn", "A2", "a")))
	if !errors.Is(err, runtime.ErrConflict) {
		t.Fatalf("redeploy of id d1 = %v, want ErrConflict", err)
	}
	if _, err := db.Definition(ctx, "a", 2); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("failed deploy registered version 2: %v", err)
	}
}

func TestDefinitionLookups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	later := t0.Add(time.Hour)
	for _, d := range []runtime.DeploymentRecord{
		deployment("d1", resource("a.bpmn", "A1", "a"), resource("z.bpmn", "Z1", "z")),
		{ID: "d2", DeployedAt: later, Resources: []runtime.Resource{resource("a2.bpmn", "A2", "a")}},
	} {
		if _, err := db.Deploy(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		key     string
		version int
		want    runtime.DefinitionRecord
		wantErr error
	}{
		{
			name: "latest", key: "a",
			want: runtime.DefinitionRecord{Key: "a", Version: 2, Name: "Process a", DeploymentID: "d2",
				ResourceName: "a2.bpmn", ResourceHash: resource("", "A2").Hash, XML: []byte("A2"), DeployedAt: later},
		},
		{
			name: "specific", key: "a", version: 1,
			want: runtime.DefinitionRecord{Key: "a", Version: 1, Name: "Process a", DeploymentID: "d1",
				ResourceName: "a.bpmn", ResourceHash: resource("", "A1").Hash, XML: []byte("A1"), DeployedAt: t0},
		},
		{name: "unknown version", key: "a", version: 3, wantErr: runtime.ErrNotFound},
		{name: "unknown key", key: "nope", wantErr: runtime.ErrNotFound},
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
		var refs []runtime.DefinitionRef
		for _, d := range got {
			refs = append(refs, runtime.DefinitionRef{Key: d.Key, Version: d.Version})
		}
		want := []runtime.DefinitionRef{{Key: "a", Version: 2}, {Key: "z", Version: 1}}
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
		if _, err := db.DefinitionVersions(ctx, "nope"); !errors.Is(err, runtime.ErrNotFound) {
			t.Errorf("DefinitionVersions(nope) = %v, want ErrNotFound", err)
		}
	})
}

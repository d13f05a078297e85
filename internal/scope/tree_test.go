package scope

import (
	"errors"
	"reflect"
	"testing"
)

func TestWalkUpAndWriteRule(t *testing.T) {
	t.Parallel()
	tr := NewTree(map[string]any{"a": "root-a", "shadow": "outer"})
	sub, err := tr.Open(RootID, "orders", []string{"local"})
	if err != nil {
		t.Fatal(err)
	}
	inner, err := tr.Open(sub.ID, "retry", []string{"shadow"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Path != "/orders" || inner.Path != "/orders/retry" {
		t.Fatalf("paths %q %q", sub.Path, inner.Path)
	}
	tests := []struct {
		name      string
		at        ID
		key       string
		value     any
		wantScope ID
	}{
		{"existing root name from inner scope", inner.ID, "a", "new-a", RootID},
		{"declared name in the middle scope", inner.ID, "local", 1, sub.ID},
		{"shadowing declaration wins", inner.ID, "shadow", "inner", inner.ID},
		{"new name goes to the root", inner.ID, "fresh", true, RootID},
	}
	for _, tc := range tests {
		got, err := tr.Set(tc.at, tc.key, tc.value)
		if err != nil || got != tc.wantScope {
			t.Errorf("%s: Set wrote to %s (err %v), want %s", tc.name, got, err, tc.wantScope)
		}
		if v, ok := tr.Lookup(tc.at, tc.key); !ok || !reflect.DeepEqual(v, tc.value) {
			t.Errorf("%s: Lookup = %v, %v", tc.name, v, ok)
		}
	}
	if v, _ := tr.Lookup(sub.ID, "shadow"); v != "outer" {
		t.Errorf("outer scope sees the inner shadow: %v", v)
	}
	vis := tr.Visible(inner.ID)
	if vis["shadow"] != "inner" || vis["a"] != "new-a" || vis["local"] != 1 {
		t.Errorf("Visible = %v", vis)
	}
	if _, ok := tr.Lookup(RootID, "local"); ok {
		t.Error("the root sees a sub-process local")
	}
	removed := tr.Close(sub.ID)
	if !reflect.DeepEqual(removed, []ID{inner.ID, sub.ID}) {
		t.Errorf("Close removed %v", removed)
	}
	if len(tr.All()) != 1 {
		t.Errorf("scopes left: %v", tr.All())
	}
	if _, err := tr.Set(sub.ID, "x", 1); !errors.Is(err, ErrUnknownScope) {
		t.Errorf("Set in a closed scope: %v", err)
	}
	if _, err := tr.Open("nope", "n", nil); !errors.Is(err, ErrUnknownScope) {
		t.Errorf("Open under unknown scope: %v", err)
	}
}

func TestReentryGetsDistinctIDs(t *testing.T) {
	t.Parallel()
	tr := NewTree(nil)
	a, _ := tr.Open(RootID, "handle", nil)
	b, _ := tr.Open(RootID, "handle", nil)
	if a.ID == b.ID || a.Path != b.Path {
		t.Fatalf("a=%+v b=%+v", a, b)
	}
	if got := tr.Children(RootID); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("Children = %v", got)
	}
	if !tr.IsWithin(a.ID, RootID) || tr.IsWithin(a.ID, b.ID) {
		t.Fatal("IsWithin wrong")
	}
}

func TestCloneIsDeep(t *testing.T) {
	t.Parallel()
	tr := NewTree(map[string]any{"list": []any{map[string]any{"k": "v"}}})
	c := tr.Clone()
	c.Scopes[RootID].Vars["list"].([]any)[0].(map[string]any)["k"] = "changed"
	if tr.Scopes[RootID].Vars["list"].([]any)[0].(map[string]any)["k"] != "v" {
		t.Fatal("Clone shares nested values")
	}
}

package store

import "testing"

func TestProcessVersionID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key     string
		version int
	}{{"order", 1}, {"order-approval", 42}, {"a.b_c", 7}} {
		id := ProcessVersionID(tt.key, tt.version)
		key, version, ok := ParseProcessVersionID(id)
		if !ok || key != tt.key || version != tt.version {
			t.Errorf("ParseProcessVersionID(%q) = %q, %d, %v", id, key, version, ok)
		}
	}
	for _, bad := range []string{"", "order", ":1", "order:", "order:0", "order:-1", "order:01", "order:x", "order:+1"} {
		if key, version, ok := ParseProcessVersionID(bad); ok {
			t.Errorf("ParseProcessVersionID(%q) = %q, %d, ok", bad, key, version)
		}
	}
}

func TestFirstKey(t *testing.T) {
	t.Parallel()
	if FirstKey != 2251799813685249 {
		t.Errorf("FirstKey = %d, want Zeebe's first key of partition 1, 2251799813685249", FirstKey)
	}
	if FirstKey>>KeyPartitionBits != 1 {
		t.Errorf("FirstKey's partition = %d, want 1", FirstKey>>KeyPartitionBits)
	}
}

func TestKeyKindOfWait(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]KeyKind{WaitJob: KeyJob, WaitTask: KeyUserTask} {
		if got, ok := KeyKindOfWait(kind); !ok || got != want {
			t.Errorf("KeyKindOfWait(%s) = %v, %v", kind, got, ok)
		}
	}
	for _, kind := range []string{WaitTimer, WaitMessage, WaitSignal, WaitStartTimer, ""} {
		if got, ok := KeyKindOfWait(kind); ok {
			t.Errorf("KeyKindOfWait(%s) = %v: it has no key", kind, got)
		}
	}
	if KeyKind(0).Valid() || KeyKind(7).Valid() || !KeyProcessVersion.Valid() {
		t.Error("Valid is wrong about the kinds")
	}
}

package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestInstanceWaitsPage pages the waits of instances whose ids are UUIDs
// (the engine's "<instance>-w000001" waits, a range of the primary key)
// and plain text, with foreign ids mixed in, and checks every page size:
// the pages together list each wait once, by id, and stop.
func TestInstanceWaitsPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	foreign := uuidB + "-w000002" // names B, belongs to A
	createWithWaits(t, db, uuidA, job(uuidA+"-w000001", "pay", 1), job(foreign, "pay", 2),
		task(uuidA+"-w000004", 4, "", nil, nil), sub(uuidA+"-w000005", runtime.WaitSignal, "go", "", 5),
		timer(uuidA+"-w000010", 6))
	createWithWaits(t, db, uuidB, job(uuidB+"-w000001", "pay", 6))
	createWithWaits(t, db, "I", job("I-w000001", "pay", 9), sub("I-w000002", runtime.WaitSignal, "go", "", 10), job("I-w000003", "pay", 11))
	createWithWaits(t, db, "empty")

	for id, want := range map[runtime.InstanceID][]string{
		uuidA:   {uuidA + "-w000001", uuidA + "-w000004", uuidA + "-w000005", uuidA + "-w000010", foreign},
		uuidB:   {uuidB + "-w000001"},
		"I":     {"I-w000001", "I-w000002", "I-w000003"},
		"empty": nil,
	} {
		for size := 1; size <= 6; size++ {
			var got []string
			after := ""
			for pages := 0; ; pages++ {
				page, err := db.InstanceWaitsPage(ctx, id, after, size)
				if err != nil {
					t.Fatalf("%s, size %d, after %q: %v", id, size, after, err)
				}
				if len(page) > size || pages > len(want)+1 {
					t.Fatalf("%s, size %d: page of %d, %d pages", id, size, len(page), pages)
				}
				got = append(got, waitIDs(page)...)
				if len(page) < size {
					break
				}
				after = page[len(page)-1].ID
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s in pages of %d = %v, want %v", id, size, got, want)
			}
		}
	}
	if _, err := db.InstanceWaitsPage(ctx, "nope", "", 10); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("unknown instance: %v, want ErrNotFound", err)
	}
}

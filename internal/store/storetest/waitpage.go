package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testInstanceWaitsPage pages the waits of instances whose ids are UUIDs
// (the engine's "<instance>-w000001" waits, a range of the primary key)
// and plain text, with foreign ids mixed in, and checks every page size:
// the pages together list each wait once, by id, and stop.
// Two UUIDs that differ in their last digit: ids the engine mints.
const (
	uuidA = "01a232eb-82de-7b57-b901-872a49ee64c7"
	uuidB = "01a232eb-82de-7b57-b901-872a49ee64c8"
)

func testInstanceWaitsPage(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	foreign := uuidB + "-w000002" // names B, belongs to A
	CreateWithWaits(t, db, uuidA, Job(uuidA+"-w000001", "pay", 1), Job(foreign, "pay", 2),
		Task(uuidA+"-w000004", 4, "", nil, nil), Sub(uuidA+"-w000005", store.WaitSignal, "go", "", 5),
		timer(uuidA+"-w000010", 6))
	CreateWithWaits(t, db, uuidB, Job(uuidB+"-w000001", "pay", 6))
	CreateWithWaits(t, db, "I", Job("I-w000001", "pay", 9), Sub("I-w000002", store.WaitSignal, "go", "", 10), Job("I-w000003", "pay", 11))
	CreateWithWaits(t, db, "empty")

	for id, want := range map[store.InstanceID][]string{
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
				got = append(got, WaitIDs(page)...)
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
	if _, err := db.InstanceWaitsPage(ctx, "nope", "", 10); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown instance: %v, want ErrNotFound", err)
	}
}

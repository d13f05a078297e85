package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testWaitsPage pages the open waits of a kind across instances, with
// ties in the creation time, and checks the name, process key and
// activatable filters: the pages together list each match once, oldest
// first, and stop.
func testWaitsPage(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, uuidA, Job(uuidA+"-w000001", "pay", 1), Job(uuidA+"-w000002", "ship", 2),
		Sub(uuidA+"-w000003", store.WaitMessage, "paid", "", 3), Job(uuidA+"-w000004", "pay", 5))
	CreateWithWaits(t, db, "I", Job("I-w000001", "pay", 1), Sub("I-w000002", store.WaitMessage, "paid", "k", 3),
		Sub("I-w000003", store.WaitMessage, "other", "", 4))
	invoice := Job("J-w000001", "pay", 4)
	invoice.ProcessKey = "invoice"
	other := WithWaits(NewStep("J", "invoice", 1), invoice)
	MustCommit(t, db, other)

	page := func(f store.WaitPageFilter, size int) []string {
		t.Helper()
		var got []string
		f.Limit = size
		for pages := 0; ; pages++ {
			rows, err := db.WaitsPage(ctx, f)
			if err != nil {
				t.Fatalf("WaitsPage(%+v): %v", f, err)
			}
			if len(rows) > size || pages > 10 {
				t.Fatalf("WaitsPage(%+v): page of %d, %d pages", f, len(rows), pages)
			}
			got = append(got, WaitIDs(rows)...)
			if len(rows) < size {
				return got
			}
			f.After = store.CursorOf(rows[len(rows)-1])
		}
	}
	// Ties in the creation time go by the store's id order: take the
	// order from one page and check it is oldest first.
	one, err := db.WaitsPage(ctx, store.WaitPageFilter{Kind: store.WaitJob, Name: "pay"})
	if err != nil {
		t.Fatal(err)
	}
	allPay := WaitIDs(one)
	if len(one) != 4 || !one[0].CreatedAt.Equal(Sec(1)) || !one[2].CreatedAt.Equal(Sec(4)) || !one[3].CreatedAt.Equal(Sec(5)) {
		t.Fatalf("pay jobs = %v, want four, oldest first", allPay)
	}
	for size := 1; size <= 5; size++ {
		if got := page(store.WaitPageFilter{Kind: store.WaitJob, Name: "pay"}, size); !reflect.DeepEqual(got, allPay) {
			t.Errorf("pay jobs in pages of %d = %v, want %v", size, got, allPay)
		}
	}
	if got, want := len(page(store.WaitPageFilter{Kind: store.WaitJob}, 2)), 5; got != want {
		t.Errorf("all jobs: %d, want %d", got, want)
	}
	if got, want := page(store.WaitPageFilter{Kind: store.WaitJob, ProcessKey: "invoice"}, 2), []string{"J-w000001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("invoice jobs = %v, want %v", got, want)
	}
	msgs := page(store.WaitPageFilter{Kind: store.WaitMessage, Name: "paid"}, 1)
	if len(msgs) != 2 {
		t.Errorf("paid messages (any correlation key) = %v, want two", msgs)
	}
	// A locked job is not activatable until its lock expires; one out of
	// retries never is.
	locked, err := db.ActivateJobs(ctx, "pay", Sec(10), LockFor("w1", 1, Sec(30)))
	if err != nil || len(locked) != 1 {
		t.Fatalf("ActivateJobs = %v, %v", locked, err)
	}
	for _, tt := range []struct {
		at   int
		want int
	}{{10, 3}, {29, 3}, {30, 4}} {
		got := page(store.WaitPageFilter{Kind: store.WaitJob, Name: "pay", ActivatableAt: Sec(tt.at)}, 2)
		if len(got) != tt.want {
			t.Errorf("activatable pay jobs at %ds = %v, want %d", tt.at, got, tt.want)
		}
		for _, id := range got {
			if tt.at < 30 && id == locked[0].ID {
				t.Errorf("activatable at %ds lists the locked job %s", tt.at, id)
			}
		}
	}
}

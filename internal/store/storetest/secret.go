package storetest

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

func testServerSecret(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	first, second := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)

	db := open(t)
	if got, err := db.ServerSecret(ctx, "job-keys", first); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first call = %x, %v; want the fresh secret", got, err)
	}
	if got, err := db.ServerSecret(ctx, "job-keys", second); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("second call = %x, %v; want the stored secret", got, err)
	}
	if got, err := db.ServerSecret(ctx, "other", second); err != nil || !bytes.Equal(got, second) {
		t.Fatalf("another name = %x, %v; want its own secret", got, err)
	}
	if _, err := db.ServerSecret(ctx, "empty", nil); err == nil {
		t.Fatal("an empty fresh secret was stored")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened, the database keeps its secrets.
	db = db.Reopen(t)
	if got, err := db.ServerSecret(ctx, "job-keys", second); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("after reopening = %x, %v; want the first secret", got, err)
	}
	// Another database has its own.
	other := open(t)
	if got, err := other.ServerSecret(ctx, "job-keys", second); err != nil || !bytes.Equal(got, second) {
		t.Fatalf("another database = %x, %v; want its own secret", got, err)
	}
}

// testServerSecretRace has many callers ask for a new secret at once: all
// get the one that was stored first.
func testServerSecretRace(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	got := make([][]byte, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			s, err := db.ServerSecret(ctx, "job-keys", bytes.Repeat([]byte{byte(i + 1)}, 32))
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i := range got {
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("caller %d got %x, caller 0 %x", i, got[i], got[0])
		}
	}
}

package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// History retention (store.HousekeepingStore): which ended instances a
// store deletes, with everything they own, and which it never touches.

// retentionFixture commits one instance of key version 1 per case: created
// at t0, ended (or not) a minute per case later, with an incident and an
// outbox row where asked.
type retentionCase struct {
	id       store.InstanceID
	status   string
	parent   store.InstanceID
	version  int
	endedMin int  // minutes after t0; ended only for completed, terminated and failed
	outbox   bool // an after-commit row left
	incident bool
}

func commitCase(tb testing.TB, db Store, c retentionCase) {
	tb.Helper()
	s := NewStep(c.id, "order", max(c.version, 1))
	s.Instance.ParentID = c.parent
	if c.parent != "" {
		s.Instance.ParentNodeID = "call"
	}
	MustCommit(tb, db, s)
	if c.status == store.StatusRunning {
		return
	}
	next := NextStep(s, c.status)
	next.Instance.UpdatedAt = t0.Add(time.Duration(c.endedMin) * time.Minute)
	next.Instance.EndedAt = next.Instance.UpdatedAt
	if c.incident {
		next.Incidents = []store.IncidentRow{{ID: string(c.id) + "-i1", NodeID: "task", Kind: "job_failed", CreatedAt: t0}}
	}
	if c.outbox {
		next.Outbox = []store.OutboxRow{{Kind: store.OutboxChildEnded, Payload: json.RawMessage(`{}`)}}
	}
	MustCommit(tb, db, next)
}

// Instance ids of the fixture: canonical UUIDs (stored as BLOBs) and one
// plain text id.
const (
	idDone       = store.InstanceID("01900000-0000-7000-8000-000000000001")
	idTerminated = store.InstanceID("01900000-0000-7000-8000-000000000002")
	idRunning    = store.InstanceID("01900000-0000-7000-8000-000000000003")
	idFailed     = store.InstanceID("01900000-0000-7000-8000-000000000004")
	idParent     = store.InstanceID("01900000-0000-7000-8000-000000000005")
	idChild      = store.InstanceID("01900000-0000-7000-8000-000000000006")
	idOutbox     = store.InstanceID("01900000-0000-7000-8000-000000000007")
	idLate       = store.InstanceID("01900000-0000-7000-8000-000000000008")
	idOtherVer   = store.InstanceID("01900000-0000-7000-8000-000000000009")
	idText       = store.InstanceID("legacy-text-id")
	idEndedPar   = store.InstanceID("01900000-0000-7000-8000-00000000000a")
	idChildOfEnd = store.InstanceID("01900000-0000-7000-8000-00000000000b")
)

func retentionFixture(tb testing.TB, open Opener) *Harness {
	tb.Helper()
	db := open(tb)
	for _, c := range []retentionCase{
		{id: idDone, status: store.StatusCompleted, endedMin: 2, incident: true},
		{id: idTerminated, status: store.StatusTerminated, endedMin: 1},
		{id: idRunning, status: store.StatusRunning},
		{id: idFailed, status: store.StatusFailed, endedMin: 1, incident: true},
		{id: idParent, status: store.StatusRunning},
		{id: idChild, status: store.StatusCompleted, parent: idParent, endedMin: 1},
		{id: idOutbox, status: store.StatusCompleted, endedMin: 1, outbox: true},
		{id: idLate, status: store.StatusCompleted, endedMin: 90},
		{id: idOtherVer, status: store.StatusCompleted, version: 2, endedMin: 1},
		{id: idText, status: store.StatusCompleted, endedMin: 3},
		{id: idEndedPar, status: store.StatusCompleted, endedMin: 4},
		{id: idChildOfEnd, status: store.StatusCompleted, parent: idEndedPar, endedMin: 3},
	} {
		commitCase(tb, db, c)
	}
	return db
}

// rowCounts counts the rows an instance has in each table (-1 for the
// instance row when absent); rows of a deleted instance count as orphans:
// rows whose instance row is gone.
func rowCounts(tb testing.TB, db *Harness, id store.InstanceID) (instance, facts, parts, incidents int) {
	tb.Helper()
	ctx := context.Background()
	if _, err := db.InstanceRow(ctx, id); errors.Is(err, store.ErrNotFound) {
		return -1, orphans(tb, db, "facts"), orphans(tb, db, "instance_parts"), orphans(tb, db, "incidents")
	} else if err != nil {
		tb.Fatal(err)
	}
	h, err := db.History(ctx, id, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	counts, err := db.PartCounts(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	for _, n := range counts {
		parts += n
	}
	incs, err := db.Incidents(ctx, id, false)
	if err != nil {
		tb.Fatal(err)
	}
	return 1, len(h), parts, len(incs)
}

// orphans counts the rows of table whose instance is gone.
func orphans(tb testing.TB, db *Harness, table string) int {
	tb.Helper()
	q := `SELECT COUNT(*) FROM ` + table + ` WHERE instance_seq NOT IN (SELECT seq FROM instances)`
	if table == "incidents" {
		q = `SELECT COUNT(*) FROM incidents WHERE instance_id NOT IN (SELECT id FROM instances)`
	}
	rows, err := db.Query(q)
	if err != nil {
		tb.Fatal(err)
	}
	return int(rows[0][0].(int64))
}

func testDeleteEndedInstances(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := retentionFixture(t, open)
	if _, f, p, i := rowCounts(t, db, idDone); f == 0 || p == 0 || i != 1 {
		t.Fatalf("fixture: %s has %d fact rows, %d parts, %d incidents", idDone, f, p, i)
	}
	filter := store.RetentionFilter{ProcessKey: "order", ProcessVersion: 1, EndedBefore: t0.Add(time.Hour), Limit: 2}

	// Earliest end first, two per batch.
	first, err := db.DeleteEndedInstances(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	if want := []store.InstanceID{idTerminated, idDone}; !slices.Equal(first, want) {
		t.Errorf("first batch = %v, want %v", first, want)
	}
	second, err := db.DeleteEndedInstances(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	if want := []store.InstanceID{idText, idChildOfEnd}; !slices.Equal(second, want) {
		t.Errorf("second batch = %v, want %v", second, want)
	}
	third, err := db.DeleteEndedInstances(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	if want := []store.InstanceID{idEndedPar}; !slices.Equal(third, want) {
		t.Errorf("third batch = %v, want %v", third, want)
	}
	if rest, err := db.DeleteEndedInstances(ctx, filter); err != nil || len(rest) != 0 {
		t.Errorf("fourth batch = %v, %v; want nothing left", rest, err)
	}

	for _, id := range slices.Concat(first, second, third) {
		if in, f, p, i := rowCounts(t, db, id); in != -1 || f != 0 || p != 0 || i != 0 {
			t.Errorf("%s left: instance %d, %d fact rows, %d parts, %d incidents", id, in, f, p, i)
		}
		if _, err := db.InstanceRow(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("InstanceRow(%s) after delete: %v", id, err)
		}
	}
	// Kept: running, failed, a child of a running parent, one with outbox
	// work left, one that ended after the cut-off, another version.
	for _, id := range []store.InstanceID{idRunning, idFailed, idParent, idChild, idOutbox, idLate, idOtherVer} {
		if in, f, p, _ := rowCounts(t, db, id); in != 1 || f == 0 || p == 0 {
			t.Errorf("%s was touched: instance %d, %d fact rows, %d parts", id, in, f, p)
		}
	}
	if _, f, p, i := rowCounts(t, db, idFailed); f == 0 || p == 0 || i != 1 {
		t.Errorf("failed instance lost its history: %d fact rows, %d parts, %d incidents", f, p, i)
	}

	if _, err := db.DeleteEndedInstances(ctx, store.RetentionFilter{ProcessKey: "order", ProcessVersion: 1, EndedBefore: t0.Add(time.Hour)}); err == nil {
		t.Error("a zero limit was accepted")
	}
}

func testDeleteInstance(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := retentionFixture(t, open)
	for _, tt := range []struct {
		id   store.InstanceID
		code string
		says string
	}{
		{id: "01900000-0000-7000-8000-0000000000ff", code: store.ENOTFOUND},
		{id: idRunning, code: store.ECONFLICT, says: "is running"},
		{id: idFailed, code: store.ECONFLICT, says: "is failed"},
		{id: idChild, code: store.ECONFLICT, says: "still runs"},
		{id: idOutbox, code: store.ECONFLICT, says: "pending"},
	} {
		err := db.DeleteInstance(ctx, tt.id)
		if store.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("DeleteInstance(%s) = %v, want %s saying %q", tt.id, err, tt.code, tt.says)
		}
		if tt.code == store.ECONFLICT {
			if in, f, _, _ := rowCounts(t, db, tt.id); in != 1 || f == 0 {
				t.Errorf("refused delete of %s changed it", tt.id)
			}
		}
	}
	// A parent ended: deleting it leaves its ended child to its own time.
	for _, id := range []store.InstanceID{idEndedPar, idDone, idText} {
		if err := db.DeleteInstance(ctx, id); err != nil {
			t.Fatalf("DeleteInstance(%s): %v", id, err)
		}
		if in, f, p, i := rowCounts(t, db, id); in != -1 || f != 0 || p != 0 || i != 0 {
			t.Errorf("%s left: instance %d, %d fact rows, %d parts, %d incidents", id, in, f, p, i)
		}
	}
	if in, _, _, _ := rowCounts(t, db, idChildOfEnd); in != 1 {
		t.Error("deleting a parent deleted its child")
	}
	if err := db.DeleteInstance(ctx, idDone); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("second delete = %v, want not found", err)
	}
	// Once the caller has ended, the child may go.
	if err := db.DeleteInstance(ctx, idChildOfEnd); err != nil {
		t.Errorf("child of a deleted parent: %v", err)
	}
}

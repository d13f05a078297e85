package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

const (
	uuidA = "01a232eb-82de-7b57-b901-872a49ee64c7"
	uuidB = "01a232eb-82de-7b57-b901-872a49ee64c8"
)

// SQLite-only (not in storetest): it checks SQLite's BLOB id encoding.
func TestIDEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id     string
		stored string // "text" or the BLOB's length
	}{
		{id: uuidA, stored: "16"},
		{id: uuidA + "-w000001", stored: "17"},
		{id: uuidA + "-w000240", stored: "17"},
		{id: uuidA + "-w000241", stored: "18"},
		{id: uuidA + "-w999999", stored: "20"},
		{id: uuidA + "-w1000000", stored: "20"},
		{id: uuidA + "-w123456789012345678", stored: "25"},
		{id: uuidA + "-w000000", stored: "17"},
		{id: uuidA + "-w01", stored: "text"},         // not %06d
		{id: uuidA + "-w0000001", stored: "text"},    // not %06d
		{id: uuidA + "-w00000x", stored: "text"},     // not a number
		{id: uuidA + "-x000001", stored: "text"},     // not a wait
		{id: strings.ToUpper(uuidA), stored: "text"}, // not canonical
		{id: strings.ToUpper(uuidA) + "-w000001", stored: "text"},
		{id: "I-w000001", stored: "text"},
		{id: "i1", stored: "text"},
		{id: "", stored: "text"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			v, err := dbID(tt.id).Value()
			if err != nil {
				t.Fatal(err)
			}
			switch v := v.(type) {
			case string:
				if tt.stored != "text" {
					t.Errorf("stored as text, want %s bytes", tt.stored)
				}
			case []byte:
				if got := strconv.Itoa(len(v)); got != tt.stored {
					t.Errorf("stored as %s bytes, want %s", got, tt.stored)
				}
			}
			var back dbID
			if err := back.Scan(v); err != nil || string(back) != tt.id {
				t.Errorf("round trip = %q, %v", back, err)
			}
		})
	}
}

// TestIDOrder checks that BLOB ids sort as their text does (within a
// shape, counters up to 999 999).
// SQLite-only (not in storetest): it checks SQLite's BLOB id encoding.
func TestIDOrder(t *testing.T) {
	t.Parallel()
	ids := []string{uuidA, uuidB, uuidA + "-w000001", uuidA + "-w000002", uuidA + "-w000240", uuidA + "-w000241",
		uuidA + "-w000256", uuidA + "-w065536", uuidA + "-w999999", uuidB + "-w000001", uuidB + "-w000300"}
	for _, a := range ids {
		for _, b := range ids {
			ab, _ := idBytes(a)
			bb, _ := idBytes(b)
			if got, want := bytes.Compare(ab, bb), strings.Compare(a, b); got != want {
				t.Errorf("compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// SQLite-only (not in storetest): it checks SQLite's part key encoding.
func TestPartKeyEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		instance store.InstanceID
		key      string
		integer  bool
	}{
		{instance: uuidA, key: uuidA + "-w000001", integer: true},
		{instance: uuidA, key: uuidA + "-w1234567", integer: true},
		{instance: uuidA, key: uuidB + "-w000001"}, // another instance's: a UUID blob
		{instance: uuidA, key: uuidA},
		{instance: uuidA, key: "root"},
		{instance: "I", key: "I-w000001", integer: true},
		{instance: "I", key: "I-w01"},
		{instance: "I", key: "J-w000001"},
		{instance: "i1", key: "i1"},
		{instance: "i1", key: "7"},
		{instance: "i1", key: ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.instance)+"/"+tt.key, func(t *testing.T) {
			t.Parallel()
			v := partKey(tt.instance, tt.key)
			if dv, ok := v.(dbID); ok {
				var err error
				if v, err = dv.Value(); err != nil {
					t.Fatal(err)
				}
			}
			if _, isInt := v.(int64); isInt != tt.integer {
				t.Errorf("stored as %T", v)
			}
			var back string
			if err := (partKeyDest{tt.instance, &back}).Scan(v); err != nil || back != tt.key {
				t.Errorf("round trip = %q, %v", back, err)
			}
		})
	}
}

// SQLite-only (not in storetest): it checks SQLite's JSON abbreviation of the instance id.
func TestAbbreviate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
		data string
	}{
		{"json with the id", uuidA, `{"instanceId":"` + uuidA + `","wait":"` + uuidA + `-w000001"}`},
		{"id only", uuidA, uuidA},
		{"json without it", uuidA, `{"k":"v"}`},
		{"empty", uuidA, ""},
		{"marker first", uuidA, "\xff\x01\x02" + uuidA + "\x02"},
		{"marker first, no id", uuidA, "\xff"},
		{"control bytes and the id", uuidA, "\x01\x02" + uuidA + "\x01"},
		{"short id", "i1", `{"id":"i1"}`},
		{"text id", "order-1234", `{"id":"order-1234","w":"order-1234-w000001"}`},
		{"prefix of the id", uuidA, uuidA[:35] + "x" + uuidA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stored := abbreviate(tt.id, []byte(tt.data))
			if got := string(expand(tt.id, stored)); got != tt.data {
				t.Errorf("round trip = %q, want %q (stored %q)", got, tt.data, stored)
			}
			if len(tt.id) >= minAbbrevID && strings.Count(tt.data, tt.id) > 0 && len(stored) >= len(tt.data) {
				t.Errorf("stored %d bytes for %d", len(stored), len(tt.data))
			}
			if strings.HasPrefix(tt.data, "{") && !strings.Contains(tt.data, tt.id) && string(stored) != tt.data {
				t.Errorf("JSON without the id stored as %q", stored)
			}
		})
	}
}

// historyFixture commits an instance whose steps append 3, 1 and 4 facts
// (seqs 1-3, 4, 5-8) and returns the facts in order.
func historyFixture(t *testing.T, db *DB, id store.InstanceID) []store.FactRow {
	t.Helper()
	s1 := storetest.NewStep(id, "order", 1)
	s1.Facts[1].Detail = json.RawMessage(`{"jobKey":"` + string(id) + `-w000001"}`)
	s2 := storetest.NextStep(s1, store.StatusRunning)
	s2.Facts[0].At = t0.Add(-time.Second) // before the instance's creation
	s3 := storetest.NextStep(s2, store.StatusRunning)
	at := s3.Instance.UpdatedAt
	s3.Facts = []store.FactRow{
		{Seq: 5, At: at, Kind: "a", NodeID: "ünïcode", ScopePath: "/s/1", Detail: json.RawMessage(`{}`)},
		{Seq: 6, At: at.Add(time.Nanosecond), Kind: "b", NodeID: "ünïcode"}, // the same node, no scope
		{Seq: 7, At: at.Add(-time.Hour), Kind: "instance_started", Detail: json.RawMessage(`[1,2,3]`)},
		{Seq: 8, At: at.Add(1000 * time.Hour), Kind: "a", NodeID: "n", Detail: json.RawMessage(`"` + strings.Repeat("x", 300) + `"`)},
	}
	storetest.MustCommit(t, db, s1)
	storetest.MustCommit(t, db, s2)
	storetest.MustCommit(t, db, s3)
	return slices.Concat(s1.Facts, s2.Facts, s3.Facts)
}

// SQLite-only (not in storetest): it checks SQLite's packed fact rows.
func TestPackedHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	for _, id := range []store.InstanceID{uuidA, "i1"} {
		all := historyFixture(t, db, id)
		tests := []struct {
			name     string
			afterSeq int64
			limit    int
			want     []int64
		}{
			{name: "all", want: []int64{1, 2, 3, 4, 5, 6, 7, 8}},
			{name: "after a step", afterSeq: 3, want: []int64{4, 5, 6, 7, 8}},
			{name: "after in a step", afterSeq: 1, want: []int64{2, 3, 4, 5, 6, 7, 8}},
			{name: "after in the last step", afterSeq: 6, want: []int64{7, 8}},
			{name: "after the last", afterSeq: 8},
			{name: "after beyond", afterSeq: 100},
			{name: "negative after", afterSeq: -5, limit: 2, want: []int64{1, 2}},
			{name: "limit cuts a step", limit: 2, want: []int64{1, 2}},
			{name: "limit at a step", limit: 3, want: []int64{1, 2, 3}},
			{name: "after and limit in one step", afterSeq: 5, limit: 2, want: []int64{6, 7}},
			{name: "after and limit across steps", afterSeq: 2, limit: 4, want: []int64{3, 4, 5, 6}},
			{name: "limit beyond", afterSeq: 7, limit: 10, want: []int64{8}},
		}
		for _, tt := range tests {
			t.Run(string(id)+"/"+tt.name, func(t *testing.T) {
				got, err := db.History(ctx, id, tt.afterSeq, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				var want []store.FactRow
				for _, f := range all {
					if slices.Contains(tt.want, f.Seq) {
						want = append(want, f)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("History(%d, %d) =\n%+v\nwant\n%+v", tt.afterSeq, tt.limit, got, want)
				}
			})
		}
	}
	t.Run("unknown instance", func(t *testing.T) {
		if _, err := db.History(ctx, "nope", 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("History of an unknown instance: %v, want ErrNotFound", err)
		}
	})
	t.Run("no facts yet", func(t *testing.T) {
		s := storetest.NewStep("bare", "order", 1)
		s.Facts = nil
		storetest.MustCommit(t, db, s)
		if f, err := db.History(ctx, "bare", 0, 0); err != nil || len(f) != 0 {
			t.Errorf("History = %v, %v", f, err)
		}
	})
	t.Run("seqs must increase within a step", func(t *testing.T) {
		s := storetest.NewStep("bad", "order", 1)
		s.Facts[2].Seq = 2
		if err := db.CommitSteps(ctx, []store.StepRecord{s}); err == nil {
			t.Error("a step with a repeated fact seq committed")
		}
	})
}

// TestOwnWaits checks waits whose id names their instance
// ("<instance>-w000001", stored without an instance column) beside waits
// whose id does not: each is listed, found, deleted and guarded as the
// wait of the instance that wrote it.
// SQLite-only (not in storetest): it checks which SQLite rows leave instance_id NULL.
func TestOwnWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	own := uuidA + "-w000001"
	foreign := uuidB + "-w000002" // names B, belongs to A
	plain := "01a232eb-82de-7b57-b901-872a49ee64c9"
	storetest.CreateWithWaits(t, db, uuidA, storetest.Job(own, "pay", 1), storetest.Job(foreign, "pay", 2), storetest.Job(plain, "pay", 3),
		storetest.Task(uuidA+"-w000004", 4, "", nil, nil), storetest.Sub(uuidA+"-w000005", store.WaitSignal, "go", "", 5))
	b := storetest.CreateWithWaits(t, db, uuidB, storetest.Job(uuidB+"-w000001", "pay", 6), storetest.Task(uuidB+"-w000003", 7, "", nil, nil),
		storetest.Sub(uuidB+"-w000009", store.WaitSignal, "go", "", 8))
	storetest.CreateWithWaits(t, db, "I", storetest.Job("I-w000001", "pay", 9), storetest.Sub("I-w000002", store.WaitSignal, "go", "", 10))

	var nulls int
	if err := db.read.QueryRow(`SELECT count(*) FROM waits WHERE instance_id IS NULL`).Scan(&nulls); err != nil || nulls != 6 {
		t.Errorf("waits without instance column = %d, %v; want 6", nulls, err)
	}
	instanceWaits := map[store.InstanceID][]string{
		uuidA: {own, foreign, plain, uuidA + "-w000004", uuidA + "-w000005"},
		uuidB: {uuidB + "-w000001", uuidB + "-w000003", uuidB + "-w000009"},
		"I":   {"I-w000001", "I-w000002"},
	}
	for id, want := range instanceWaits {
		got, err := db.InstanceWaits(ctx, id)
		if err != nil || !reflect.DeepEqual(storetest.WaitIDs(got), want) {
			t.Errorf("InstanceWaits(%s) = %v, %v; want %v", id, storetest.WaitIDs(got), err, want)
		}
		for _, w := range got {
			if w.InstanceID != id {
				t.Errorf("wait %s of instance %s", w.ID, w.InstanceID)
			}
			if one := storetest.MustWait(t, db, w.ID); one.InstanceID != id {
				t.Errorf("Wait(%s) of instance %s", w.ID, one.InstanceID)
			}
		}
	}
	if tasks, _, err := db.Tasks(ctx, store.TaskFilter{InstanceID: uuidB}); err != nil ||
		!reflect.DeepEqual(storetest.WaitIDs(tasks), []string{uuidB + "-w000003"}) {
		t.Errorf("tasks of B = %v, %v", storetest.WaitIDs(tasks), err)
	}
	if subs, err := db.SignalSubscriptions(ctx, "go"); err != nil ||
		!reflect.DeepEqual(subs, []store.InstanceID{uuidA, uuidB, "I"}) {
		t.Errorf("SignalSubscriptions = %v, %v", subs, err)
	}
	jobs, err := db.ActivateJobs(ctx, "pay", storetest.Sec(100), storetest.LockFor("w", 10, storetest.Sec(200)))
	if err != nil || len(jobs) != 5 || jobs[0].ID != own || jobs[0].InstanceID != uuidA {
		t.Errorf("ActivateJobs = %+v, %v", jobs, err)
	}
	if err := db.ExtendJobLock(ctx, own, jobs[0].LockTokenHash, storetest.Sec(100), storetest.Sec(300)); err != nil {
		t.Errorf("ExtendJobLock(%s): %v", own, err)
	}

	// B may not take the id A holds, even though it names B.
	steal := storetest.WithWaits(storetest.NextStep(b, store.StatusRunning), storetest.Job(foreign, "pay", 11))
	if err := db.CommitSteps(ctx, []store.StepRecord{steal}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("B writing A's wait %s: %v, want ErrConflict", foreign, err)
	}
	// A replaces its own wait (and the job loses its lock).
	a := createdStep(uuidA)
	re := storetest.WithWaits(storetest.NextStep(a, store.StatusRunning), storetest.Job(own, "pay", 1))
	storetest.MustCommit(t, db, re)
	if w := storetest.MustWait(t, db, own); w.LockOwner != "" || w.InstanceID != uuidA {
		t.Errorf("replaced wait = %+v", w)
	}
	// B ends: its waits go, A's (including the one naming B) stay.
	storetest.MustCommit(t, db, storetest.NextStep(b, store.StatusCompleted))
	if got, err := db.InstanceWaits(ctx, uuidB); err != nil || len(got) != 0 {
		t.Errorf("waits of ended B = %v, %v", storetest.WaitIDs(got), err)
	}
	if got, _ := db.InstanceWaits(ctx, uuidA); len(got) != 5 {
		t.Errorf("waits of A after B ended = %v", storetest.WaitIDs(got))
	}
	// A ends: all of its waits go.
	storetest.MustCommit(t, db, storetest.NextStep(re, store.StatusTerminated))
	var left int
	if err := db.read.QueryRow(`SELECT count(*) FROM waits`).Scan(&left); err != nil || left != 2 {
		t.Errorf("waits left = %d, %v; want I's 2", left, err)
	}
}

// createdStep is the creating step newStep builds for id (for building
// the next step of an instance created by createWithWaits).
func createdStep(id store.InstanceID) store.StepRecord { return storetest.NewStep(id, "order", 1) }

// TestPartKeysOfInstance checks that wait part keys naming their instance
// round-trip through every part read.
// SQLite-only (not in storetest): it checks SQLite's part key encoding.
func TestPartKeysOfInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	for _, id := range []store.InstanceID{uuidA, "I"} {
		s := storetest.NewStep(id, "order", 1)
		s.Parts = append(s.Parts,
			storetest.Part("wait", string(id)+"-w000001", 1, `{"id":"`+string(id)+`-w000001"}`),
			storetest.Part("wait", string(id)+"-w1000000", 1000000, "x"),
			storetest.Part("wait", uuidB+"-w000002", 2, "other"),
			storetest.Part("wait", "7", 3, "numeric text"))
		storetest.MustCommit(t, db, s)
		si, err := db.Instance(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(s.Parts)
		slices.SortFunc(want, func(a, b store.Part) int {
			return cmp.Or(strings.Compare(a.Kind, b.Kind), cmp.Compare(a.Ord, b.Ord), strings.Compare(a.Key, b.Key))
		})
		if !reflect.DeepEqual(si.Parts, want) || !bytes.Equal(si.Header, s.Header) {
			t.Errorf("Instance(%s) parts =\n%+v\nwant\n%+v", id, si.Parts, want)
		}
		waits, err := db.Parts(ctx, id, "wait", 0, 0)
		if err != nil || len(waits) != 4 || waits[0].Key != string(id)+"-w000001" || waits[3].Key != string(id)+"-w1000000" {
			t.Errorf("Parts(%s) = %+v, %v", id, waits, err)
		}
		next := storetest.NextStep(s, store.StatusRunning)
		next.RemovedParts = []store.PartRef{{Kind: "wait", Key: string(id) + "-w000001"}}
		next.Parts = append(next.Parts, storetest.Part("wait", string(id)+"-w1000000", 1000000, "y"))
		storetest.MustCommit(t, db, next)
		waits, err = db.Parts(ctx, id, "wait", 0, 0)
		if err != nil || len(waits) != 3 || string(waits[2].Data) != "y" {
			t.Errorf("Parts(%s) after a step = %+v, %v", id, waits, err)
		}
	}
}

func TestPackedForm(t *testing.T) {
	t.Parallel()
	if len(packedPhrases) != 0x20-firstPhrase {
		t.Fatalf("%d phrases, want exactly the %d codes 0x03-0x1f", len(packedPhrases), 0x20-firstPhrase)
	}
	seen := map[string]bool{}
	for _, p := range packedPhrases {
		if seen[p] || p == "" {
			t.Errorf("phrase %q empty or twice", p)
		}
		seen[p] = true
	}
	header := `{"format":2,"instanceId":"` + uuidA + `","processKey":"load-job","processVersion":1,"businessKey":"b-1","status":"running","nextTrack":1,"nextFact":5,"nextWait":1}`
	wait := `{"id":"` + uuidA + `-w000001","kind":"job","track":"t1","node":"work","scope":"root","name":"load-work","retries":3,"createdAt":"2026-12-01T22:51:17.13136323Z"}`
	tests := []struct {
		name    string
		data    string
		maxSize int // the most bytes the stored form may take
	}{
		{"header", header, 45},
		{"wait", wait, 64},
		{"track", `{"id":"t1","scope":"root","node":"work","state":"waiting","via":"toWork"}`, 22},
		{"every phrase back to back", strings.Join(packedPhrases[:], ""), len(packedPhrases) + 1},
		{"control bytes", "{\x01\x02\x03\x1f\x20}", 12},
		{"longest phrase wins", `,"scope":"root","scope":"x"}`, 6},
		{"first mark", "\xff\x01" + uuidA, 40},
		{"packed mark", "\xfe\x03", 5},
		{"phrase cut short", `{"format":2,"instanceI`, 23},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stored := abbreviate(uuidA, []byte(tt.data))
			if got := string(expand(uuidA, stored)); got != tt.data {
				t.Fatalf("round trip = %q, want %q (stored %q)", got, tt.data, stored)
			}
			if len(stored) > tt.maxSize {
				t.Errorf("stored %d bytes (%q), want at most %d", len(stored), stored, tt.maxSize)
			}
		})
	}
}

// TestFirstFormStillReads keeps rows written before the packed form
// readable: the first form is abbrevMark, the id as 0x01 and 0x02 escapes.
func TestFirstFormStillReads(t *testing.T) {
	t.Parallel()
	stored := "\xff" + `{"id":"` + "\x01" + `-w000001","c":"` + "\x02\x01\x02\x02\x03" + `"}`
	want := `{"id":"` + uuidA + `-w000001","c":"` + "\x01\x02\x03" + `"}`
	if got := string(expand(uuidA, []byte(stored))); got != want {
		t.Errorf("expand = %q, want %q", got, want)
	}
}

func FuzzPack(f *testing.F) {
	f.Add(uuidA, []byte(`{"format":2,"instanceId":"`+uuidA+`"}`))
	f.Add("i1", []byte("\xfe\x01\x02\x1f"))
	f.Add("", []byte(strings.Join(packedPhrases[:], "|")))
	f.Fuzz(func(t *testing.T, id string, data []byte) {
		stored := abbreviate(id, data)
		if got := expand(id, stored); !bytes.Equal(got, data) && !(len(got) == 0 && len(data) == 0) {
			t.Fatalf("round trip of %q (id %q) = %q (stored %q)", data, id, got, stored)
		}
	})
}

package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Operator tools: the clock of tests and demos, deleting an
// ended instance, and backups. *runtime.Runtime implements Operations.

// Operations is the part of Service behind the operator routes.
type Operations interface {
	// Clock returns the runtime's time and whether it is manual.
	Clock() runtime.ClockView
	// SetClock moves a manual clock to t and fires the timers due then;
	// AdvanceClock moves it by d. ECONFLICT when the clock is not manual,
	// EINVALID for a move backwards.
	SetClock(ctx context.Context, t time.Time) (runtime.ClockView, error)
	AdvanceClock(ctx context.Context, d time.Duration) (runtime.ClockView, error)
	// DeleteInstance deletes an ended instance and its history;
	// ENOTFOUND if absent, ECONFLICT if it runs, failed, its caller runs
	// or its after-commit work is pending.
	DeleteInstance(ctx context.Context, id runtime.InstanceID) error
	// Backup writes a consistent copy of the database into name inside
	// the server's backup directory ("" picks a name); EINVALID for a
	// name that is not a plain file name, ECONFLICT for an existing file
	// or a server without a backup directory.
	Backup(ctx context.Context, name string) (runtime.BackupResult, error)
}

// Clock is the answer of GET and POST /api/v1/clock.
type Clock struct {
	// Time is the server's current time (RFC 3339, UTC).
	Time time.Time `json:"time"`
	// Manual is true when the server runs with --clock=manual.
	Manual bool `json:"manual"`
	// TimersFired counts the timers the move made due and fired (POST only).
	TimersFired *int `json:"timersFired,omitempty"`
}

// Backup is the answer of POST /api/v1/admin/backup.
type Backup struct {
	// Path is the backup file on the server.
	Path string `json:"path"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// StartedAt is when the copy began; TookMs how long it took.
	StartedAt time.Time `json:"startedAt"`
	TookMs    int64     `json:"tookMs"`
}

// maxAdvanceMs bounds advanceMs: about 290 years, what a time.Duration holds.
const maxAdvanceMs = math.MaxInt64 / int64(time.Millisecond)

// getClock handles GET /api/v1/clock.
func (s *server) getClock(w http.ResponseWriter, r *http.Request) error {
	v := s.svc.Clock()
	s.writeJSON(w, r, http.StatusOK, Clock{Time: v.Now.UTC(), Manual: v.Manual})
	return nil
}

// setClockRequest is the body of POST /api/v1/clock: {"time": RFC 3339}
// or {"advanceMs": n}, exactly one.
type setClockRequest struct {
	bodyMembers
	// Set is true when the body names the new Time; else it moves the
	// clock by Advance.
	Set     bool
	Time    time.Time
	Advance time.Duration
}

// Validate decodes and checks time and advanceMs, in that order, and
// that the body gives exactly one of them.
func (q *setClockRequest) Validate() error {
	at, err := stringField(q.members, "time")
	if err != nil {
		return err
	}
	ms, hasMs, err := intField(q.members, "advanceMs", 0, maxAdvanceMs)
	if err != nil {
		return err
	}
	switch {
	case at != "" && hasMs:
		return errorf(kindInvalidRequest, "time", "give either time or advanceMs, not both")
	case at != "":
		t, perr := time.Parse(time.RFC3339Nano, at)
		if perr != nil {
			return errorf(kindInvalidRequest, "time", fmt.Sprintf("time %q is not an RFC 3339 time such as 2025-03-01T12:00:00Z", at))
		}
		q.Set, q.Time = true, t
	case hasMs:
		q.Advance = millis(ms)
	default:
		return errorf(kindInvalidRequest, "time", `give the new time ({"time": "2025-03-01T12:00:00Z"}) or how far to move ({"advanceMs": 60000})`)
	}
	return nil
}

// setClock handles POST /api/v1/clock (setClockRequest). It answers once
// the timers due at the new time fired.
func (s *server) setClock(w http.ResponseWriter, r *http.Request) error {
	var q setClockRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	var v runtime.ClockView
	var err error
	if q.Set {
		v, err = s.svc.SetClock(r.Context(), q.Time)
	} else {
		v, err = s.svc.AdvanceClock(r.Context(), q.Advance)
	}
	if err != nil {
		return err
	}
	fired := v.TimersFired
	s.writeJSON(w, r, http.StatusOK, Clock{Time: v.Now.UTC(), Manual: v.Manual, TimersFired: &fired})
	return nil
}

// deleteInstance handles DELETE /api/v1/instances/{id}: 204 once the ended
// instance and its history are gone.
func (s *server) deleteInstance(w http.ResponseWriter, r *http.Request) error {
	id := runtime.InstanceID(chi.URLParam(r, "id"))
	if err := s.svc.DeleteInstance(r.Context(), id); err != nil {
		return err
	}
	noteResource(r, "instance "+string(id))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// backupRequest is the body of POST /api/v1/admin/backup: {"to"?: file
// name}.
type backupRequest struct {
	bodyMembers
	// To names the file in --backup-dir; "" lets the server name it.
	To string
}

// Validate decodes and checks to.
func (q *backupRequest) Validate() error {
	var err error
	q.To, err = stringField(q.members, "to")
	return err
}

// backup handles POST /api/v1/admin/backup (backupRequest): the copy is
// written on the server, into its --backup-dir, and the answer says where
// once it is complete. (Why not stream it: see the README's Backup
// section — a copy on the server's disk survives a dropped connection,
// needs no client disk or proxy timeouts, and is where the backup tools
// that ship it off the machine look.)
func (s *server) backup(w http.ResponseWriter, r *http.Request) error {
	var q backupRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	res, err := s.svc.Backup(r.Context(), q.To)
	if err != nil {
		return err
	}
	noteResource(r, "backup "+res.Path)
	s.writeJSON(w, r, http.StatusOK, Backup{Path: res.Path, Bytes: res.Bytes, StartedAt: res.Started.UTC(), TookMs: res.Took.Milliseconds()})
	return nil
}

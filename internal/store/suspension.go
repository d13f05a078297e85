package store

import (
	"context"
	"time"
)

// SuspensionStore is what the suspension acts persist (runtime/suspend.go):
// the suspended flag of an instance, with the hold of its waits, and the
// suspended process versions, with the hold of their start timers. A held
// wait is skipped by the due timers (DueTimers, NextTimer and a cluster's
// timer claims), job activation (ActivateJobs, NextJobAvailable,
// WaitsPage with ActivatableAt or Unheld), message correlation
// (MessageSubscriptions) and signal broadcasts (SignalSubscriptions)
// until the resume clears the hold; it stays listed everywhere else.
type SuspensionStore interface {
	// SetInstanceSuspended sets the suspended flag of instance id and holds
	// (or releases) every wait it has, in one transaction, provided the
	// instance's revision is still revision and it has not ended; the
	// revision moves on by one (so a step computed from the previous one,
	// on any node, fails with ErrConflict and reads the flag again) and
	// updated_at becomes at. It returns the row as it is now. ErrNotFound
	// for an unknown instance, ErrConflict for a stale revision or an
	// ended instance.
	SetInstanceSuspended(ctx context.Context, id InstanceID, revision int64, suspended bool, at time.Time) (InstanceRow, error)
	// SetVersionSuspended records (suspended) or removes the suspension
	// of a process version and holds (or releases) its start timers, in
	// one transaction; setting the state it already has changes nothing.
	// ErrNotFound for an unknown version.
	SetVersionSuspended(ctx context.Context, key string, version int, suspended bool, at time.Time) error
	// SuspendedVersions returns the suspended versions of a process key,
	// ascending (none for an unknown key).
	SuspendedVersions(ctx context.Context, key string) ([]int, error)
}

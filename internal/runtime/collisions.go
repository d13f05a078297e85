package runtime

// Collisions of nodes on one instance (cluster.go).
//
// Two nodes collide when both step the same instance at once: the one that
// commits second finds the instance's revision moved on (ErrStale), throws
// its run away and re-runs it on the state the first one committed. Each
// run thrown away is a stale step (gobpm_stale_steps_total); each command
// that met at least one is a collision (gobpm_step_collisions_total).
// Divided by gobpm_steps_committed_total they give stale steps and
// collisions per 1,000 committed steps: work a cluster did twice.

// metStale records that run attempt (1 for the command's first run) of a
// step was thrown away as stale and is run again: a stale step, and the
// command's collision on its first run. (A command still stale after
// maxStepAttempts runs fails with ErrStale; its last run is not counted.)
func (m *metrics) metStale(attempt int) {
	m.staleSteps.Add(1)
	if attempt == 1 {
		m.collisions.Add(1)
	}
}

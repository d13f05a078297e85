package runtime

// AfterMigrationItem makes r call fn after each instance of a migration
// batch is recorded; set it before any batch starts.
func AfterMigrationItem(r *Runtime, fn func(migration string, instance InstanceID)) {
	r.batches.afterItem = fn
}

// BeforeBatchRecord makes r call fn after each act of a batch operation,
// before its outcome is recorded; set it before any batch starts.
func BeforeBatchRecord(r *Runtime, fn func(batch string, instance InstanceID)) {
	r.batches.beforeRecord = fn
}

// Stopping returns the channel Close closes first, before it waits for
// the background work.
func Stopping(r *Runtime) <-chan struct{} { return r.schedStop }

// Package runtime is gobpm's service layer (DESIGN §3): it deploys models
// into the versioned registry, starts and drives instances, and answers the
// reads of the API and the cockpit.
//
// # Processing model
//
// Every change to an instance is a step: the runtime takes the instance's
// lock (one writer per instance), loads its checkpoint, applies the pure
// engine.Step, and commits the new checkpoint with its history facts and
// incidents in one store transaction before it answers. Steps of different
// instances that are ready together share one transaction and one fsync
// (group commit, see committer.go), each still all or nothing.
//
// The runtime declares the Store interface it needs; package store
// implements it. It imports no HTTP.
package runtime

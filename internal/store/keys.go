package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Numeric keys: the 64-bit integers Camunda 8 names its entities by
// (strings of digits in REST v2, int64 in the Zeebe gateway).
//
// gobpm names its entities by its own ids (UUIDs, "<instance>-w000001",
// deployment ids, a process key and version); those stay as they are. Next
// to them the store gives every process instance, job, user task,
// incident, deployment and process version a numeric key, in the same
// transaction that creates the entity, and keeps it for the entity's life:
// it reads back the same after any step and any restart, and an entity
// that is gone (a completed job, an instance deleted by retention) takes
// its key with it, so that key then resolves to nothing. Keys come from
// one counter for every kind, so no two entities share one, and a key
// resolves only for the kind it was given to: asked as another kind it is
// unknown (ErrNotFound), like a made-up number.
//
// A key looks like one of Zeebe's: Zeebe puts the partition id in the top
// bits (key = partition<<51 + counter); gobpm is partition 1, so the
// first key is FirstKey. On a store several nodes share the counter is a
// database sequence, so two nodes never hand out one key.

// FirstKey is the first numeric key a store hands out: (1 << 51) + 1, the
// first key of Zeebe's partition 1.
const FirstKey int64 = 1<<KeyPartitionBits + 1

// KeyPartitionBits is where Zeebe puts the partition id in a key: the
// bits above the lowest KeyPartitionBits.
const KeyPartitionBits = 51

// KeyKind is the kind of entity a numeric key names. The values are
// stored: never renumber them.
type KeyKind int

// The kinds of entity that have numeric keys, and what their ids are.
const (
	// KeyInstance: a process instance; the id is its InstanceID.
	KeyInstance KeyKind = 1
	// KeyJob: a job for workers (a WaitJob wait); the id is its wait id.
	KeyJob KeyKind = 2
	// KeyUserTask: a user task (a WaitTask wait); the id is its wait id.
	KeyUserTask KeyKind = 3
	// KeyIncident: an incident; the id is its IncidentRow.ID.
	KeyIncident KeyKind = 4
	// KeyDeployment: a deployment; the id is its DeploymentRecord.ID.
	KeyDeployment KeyKind = 5
	// KeyProcessVersion: a deployed process definition version; the id is
	// ProcessVersionID(key, version).
	KeyProcessVersion KeyKind = 6
)

// String names the kind ("instance", "job", …) for messages.
func (k KeyKind) String() string {
	switch k {
	case KeyInstance:
		return "instance"
	case KeyJob:
		return "job"
	case KeyUserTask:
		return "user task"
	case KeyIncident:
		return "incident"
	case KeyDeployment:
		return "deployment"
	case KeyProcessVersion:
		return "process version"
	default:
		return "kind " + strconv.Itoa(int(k))
	}
}

// Valid reports whether k is one of the Key* kinds.
func (k KeyKind) Valid() bool { return k >= KeyInstance && k <= KeyProcessVersion }

// KeyKindOfWait is the key kind of a wait of kind waitKind (a Wait*
// constant): KeyJob for a job, KeyUserTask for a user task; ok is false
// for the waits that have no key (timers, subscriptions, schedules).
func KeyKindOfWait(waitKind string) (kind KeyKind, ok bool) {
	switch waitKind {
	case WaitJob:
		return KeyJob, true
	case WaitTask:
		return KeyUserTask, true
	default:
		return 0, false
	}
}

// ProcessVersionID is the id a process version has among the numeric keys'
// entities (KeyProcessVersion): its process key, ':' and its version. A
// BPMN process id is an NCName, which has no ':', so the id is unambiguous.
func ProcessVersionID(key string, version int) string {
	return key + ":" + strconv.Itoa(version)
}

// ParseProcessVersionID splits a ProcessVersionID into its process key and
// version; ok is false for anything else.
func ParseProcessVersionID(id string) (key string, version int, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return "", 0, false
	}
	v, err := strconv.Atoi(id[i+1:])
	if err != nil || v <= 0 || strconv.Itoa(v) != id[i+1:] {
		return "", 0, false
	}
	return id[:i], v, true
}

// KeyStore finds numeric keys and the entities they name. Both lookups
// probe an index: they cost the same whatever the store holds.
type KeyStore interface {
	// NumericKey returns the key of the entity of kind whose id is id.
	// ErrNotFound when there is none: an unknown id, an entity that is
	// gone, or an id of another kind of entity.
	NumericKey(ctx context.Context, kind KeyKind, id string) (int64, error)
	// NumericKeys returns the keys of the entities of kind among ids, in
	// one query (a page of a list); the ids without one are absent.
	NumericKeys(ctx context.Context, kind KeyKind, ids []string) (map[string]int64, error)
	// ByNumericKey returns the id of the entity of kind whose key is key.
	// ErrNotFound when there is none: a made-up number, the key of an
	// entity that is gone, or the key of an entity of another kind.
	ByNumericKey(ctx context.Context, kind KeyKind, key int64) (string, error)
}

// UnknownKeyKind is the error of a lookup of an invalid KeyKind: a
// wrapped ErrNotFound, since no entity has a key of such a kind.
func UnknownKeyKind(kind KeyKind) error {
	return fmt.Errorf("numeric key of %s: no such kind: %w", kind, ErrNotFound)
}

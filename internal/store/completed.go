package store

import "time"

// CompletedTaskRow is a user task someone completed, as the store keeps it
// after its wait is gone. ProcessKey, BusinessKey and InstanceNumber are
// the instance's, read with the row (a step's record leaves them empty).
type CompletedTaskRow struct {
	TaskID         string
	InstanceID     InstanceID
	NodeID         string
	Name           string
	CompletedBy    string
	CreatedAt      time.Time
	CompletedAt    time.Time
	ProcessKey     string
	BusinessKey    string
	InstanceNumber int64
}

// CompletedTaskFilter selects completed tasks, newest completion first.
// Empty fields match all.
type CompletedTaskFilter struct {
	// CompletedBy keeps the tasks this user completed.
	CompletedBy string
	// ProcessKey keeps the tasks of instances of this process key.
	ProcessKey string
	Limit      int
	Offset     int
}

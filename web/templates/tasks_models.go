package templates

import "time"

// CompletedTaskItem is a user task someone completed, as the inbox's
// "Completed" view lists it.
type CompletedTaskItem struct {
	ID         string
	Name       string
	NodeID     string
	InstanceID string
	// InstanceNumber is the instance's number among its process key's.
	InstanceNumber int64
	ProcessKey     string
	ProcessName    string
	BusinessKey    string
	CompletedBy    string
	CompletedAt    time.Time
	CreatedAt      time.Time
}

// StartPage is the inbox's "Start a process" page: the processes the
// person may start, and the one they chose with its start form.
type StartPage struct {
	Layout
	Processes []StartableProcess
	// Chosen is the process whose start form is open (nil: none).
	Chosen *StartChoice
	// Started is the instance just started (nil: none).
	Started *StartedInstance
}

// StartableProcess is a process the person may start, at its latest version.
type StartableProcess struct {
	Key     string
	Name    string
	Version int
	// HasForm: its start event links a Camunda Form.
	HasForm bool
	URL     string
}

// StartChoice is the chosen process's start form: the Camunda Form its
// start event links (FormSchema), or none (a business key and JSON
// variables).
type StartChoice struct {
	StartableProcess
	FormID       string
	FormResource string
	FormSchema   string
	// FormMissing names a linked form that was not deployed with the process.
	FormMissing string
	// BusinessKey and Variables are what was typed, shown again after a refusal.
	BusinessKey string
	Variables   string
}

// StartedInstance is the instance a start from the inbox created, and the
// user task it offers the starter first, if any.
type StartedInstance struct {
	ID      string
	Number  int64
	Process string
	Status  string
	// TaskURL opens the first task offered to the starter ("": none).
	TaskURL  string
	TaskName string
}

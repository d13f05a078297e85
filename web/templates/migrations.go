package templates

import (
	"net/url"
	"strconv"
	"time"
)

// Routes of instance migration (the page to plan and run one, and a
// batch's progress).
const (
	RouteProcessMigrate = "/processes/{key}/migrate"
	RouteMigration      = "/migrations/{id}"
)

// MigrateURL is the migration page of key from version from to version to
// (0: the page picks).
func MigrateURL(key string, from, to int) string {
	u := "/processes/" + url.PathEscape(key) + "/migrate"
	q := url.Values{}
	if from > 0 {
		q.Set("from", strconv.Itoa(from))
	}
	if to > 0 {
		q.Set("to", strconv.Itoa(to))
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// MigrationURL links a migration batch's progress page.
func MigrationURL(id string) string { return "/migrations/" + url.PathEscape(id) }

// MappingField is the form field that maps source element id.
func MappingField(id string) string { return "map:" + id }

// MigratePage plans a migration of a process's instances from one
// version to another: the mapping of the source elements and the
// validation of every instance the plan selects.
type MigratePage struct {
	Layout
	Key string
	// From and To are the source and target versions; Versions every
	// version of the key.
	From, To int
	Versions []int
	// Mapping lists every element of the source version with its target.
	Mapping []MappingRow
	// Targets are the elements of the target version, the choices of each
	// row.
	Targets []ElementOption
	// Plan are the problems of the mapping itself; Instances the
	// validation of each selected instance.
	Plan      []string
	Instances []InstanceCheck
	// Valid is true when the plan and every instance passed (and there is
	// at least one instance): the Run button shows.
	Valid bool
	// Selected are the instances chosen in the instance list (all of
	// version From): the plan migrates only them, and From stays fixed.
	// Empty: every running or failed instance of From.
	Selected []string
}

// SelectedField is the form field naming one selected instance of a
// migration (repeated).
const SelectedField = "instance"

// MigrateSelectedURL is the migration page of the instances ids of
// process key's version from, chosen in the instance list.
func MigrateSelectedURL(key string, from int, ids []string) string {
	q := url.Values{"from": {strconv.Itoa(from)}, SelectedField: ids}
	return "/processes/" + url.PathEscape(key) + "/migrate?" + q.Encode()
}

// MappingRow is one source element and the target element it maps to
// ("" when the target version has no element chosen for it).
type MappingRow struct {
	Source ElementOption
	Target string
	// Default is true when Target is the same id (nothing chosen).
	Default bool
}

// InstanceCheck is the validation of one instance of a migration plan.
type InstanceCheck struct {
	InstanceID string
	// ProcessKey and Number name the instance for people ("order #7").
	ProcessKey string
	Number     int64
	Problems   []string
}

// MigrationPage shows a migration batch and its progress.
type MigrationPage struct {
	Layout
	ID         string
	ProcessKey string
	From, To   int
	Mapping    []string
	Status     string
	CreatedBy  string
	CreatedAt  time.Time
	FinishedAt time.Time
	Total      int
	Migrated   int
	Failed     int
	Pending    int
	Items      []MigrationRow
}

// MigrationRow is one instance of a batch with its outcome.
type MigrationRow struct {
	InstanceID string
	// ProcessKey and Number name the instance for people ("order #7").
	ProcessKey string
	Number     int64
	Status     string
	Reason     string
}

// joinComma joins texts for a sentence.
func joinComma(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// migrationLive is how a batch's live region refreshes: by polling while
// it runs, not at all once it finished.
func migrationLive(status string) string {
	if status == "running" {
		return LivePoll
	}
	return LiveFinal
}

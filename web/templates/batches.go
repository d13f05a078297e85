package templates

import (
	"net/url"
	"strings"
	"time"
)

// BatchURL is the page of a batch operation.
func BatchURL(id string) string { return "/batches/" + url.PathEscape(id) }

// BatchActURL is where a batch is paused, resumed or cancelled (act).
func BatchActURL(id, act string) string { return BatchURL(id) + "/" + act }

// BatchNewURL is the page that creates a batch over the instances the
// list's filter f matches (its page left out).
func BatchNewURL(f InstanceFilter) string {
	f.Page = 0
	_, query, _ := strings.Cut(InstancesURL(f), "?")
	if query == "" {
		return RouteBatchNew
	}
	return RouteBatchNew + "?" + query
}

// BatchOperations are the operations the cockpit offers for a batch, with
// their labels.
var BatchOperations = []struct{ Value, Label string }{
	{"cancel", "Cancel them"},
	{"retry-incidents", "Retry their open incidents"},
	{"set-variables", "Set variables"},
	{"delete", "Delete them (ended instances)"},
}

// BatchRow is one batch operation with its progress.
type BatchRow struct {
	ID        string
	Operation string
	// Filter is the filter as the instance list's query ("" for none),
	// FilterText the same for people (name=value, space-separated).
	Filter     string
	FilterText string
	State      string
	CreatedBy  string
	CreatedAt  time.Time
	FinishedAt time.Time
	Total      int
	Done       int
	Failed     int
	Pending    int
}

// BatchesPage lists batch operations, newest first.
type BatchesPage struct {
	Layout
	Rows []BatchRow
}

// BatchItemRow is one instance of a batch with its outcome.
type BatchItemRow struct {
	InstanceID string
	Status     string
	Reason     string
}

// BatchPage shows one batch, its progress and its first items.
type BatchPage struct {
	Layout
	Batch BatchRow
	Items []BatchItemRow
	// MoreItems is set when the batch has items beyond those shown.
	MoreItems bool
	// CanSteer shows the pause, resume and cancel buttons.
	CanSteer bool
}

// BatchNewPage creates a batch over the instances a list filter matches:
// how many match now (the dry run), and the form.
type BatchNewPage struct {
	Layout
	// Query is the list filter as a query string, carried by the form.
	Query string
	// ListURL leads back to the list with this filter.
	ListURL string
	// Count is how many instances match now (a lower bound when More).
	Count Total
	// Operation, Retries and Variables are the form's values.
	Operation string
	Retries   string
	Variables string
}

// batchLive is how a batch's live region refreshes: by polling while it
// prepares or runs, not at all once paused or ended.
func batchLive(state string) string {
	if state == "running" || state == "preparing" {
		return LivePoll
	}
	return LiveFinal
}

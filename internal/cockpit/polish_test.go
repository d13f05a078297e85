package cockpit_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// words is a selection's text with its whitespace runs made single
// spaces: what a reader sees, words run together where the markup put no
// space between them. The copy buttons beside ids (set off by a margin)
// are left out.
func words(s *goquery.Selection) string {
	s = s.Clone()
	s.Find("button.copy-id").Remove()
	return strings.Join(strings.Fields(s.Text()), " ")
}

// An incident row reads as a sentence: the element, "in" the instance,
// "in the tree of" its root, then when — each word apart from the next.
func TestIncidentRowsSeparateTheirWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, lone := stuckTree(t, b)

	// The dashboard's latest incidents name the instance and its root.
	p := b.mustGet("/")
	row := words(p.doc.Find(`[data-testid="incident"][data-instance="` + string(leafOf(t, b, root)) + `"] div`).First())
	if !strings.Contains(row, "at Big or small? in picky #") || !strings.Contains(row, " in the tree of grandparent #1 2") {
		t.Errorf("incident row on the dashboard: %q", row)
	}

	// On the instance's own page the row names no instance: the element
	// and the time stand apart.
	p = b.mustGet("/instances/" + string(lone.ID))
	row = words(p.testid("incident").First().Find("div").First())
	if !strings.HasPrefix(row, "no-outgoing-flow at Big or small? ") {
		t.Errorf("incident row on the instance page: %q", row)
	}
}

// A task card and the opened task keep a space before the instance they
// name.
func TestTaskMetaSeparatesTheInstance(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("parcel.bpmn")
	b.start("parcel", "bk-1", nil)
	b.actAs("ann", "clerks")
	p := b.mustGet("/tasks")
	card := p.testid("task").First()
	if got := words(card.Find(".task-meta").First()); got != "Ship a parcel · bk-1 · #1" {
		t.Errorf("task card: %q", got)
	}
	p = b.mustGet("/tasks?task=" + card.AttrOr("data-id", ""))
	if got := words(p.testid("task-detail").Find(".task-meta").First()); got != "Ship a parcel · business key bk-1 · instance #1 · waiting just now" {
		t.Errorf("opened task: %q", got)
	}
}

package cockpit_test

import (
	"strings"
	"testing"
)

// TestDiagramClickTargets: the process page names the instance list of
// its version for the diagram's click handler, and the instance page the
// list of its called instances, with each called instance's row naming
// the call activity that called it.
func TestDiagramClickTargets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, _ := stuckTree(t, b)
	if got := b.mustGet("/processes/picky?version=1").testid("diagram-links").AttrOr("data-element-url", ""); got != "/instances?process=picky&version=1" {
		t.Errorf("process page's element url = %q", got)
	}
	p := b.mustGet("/instances/" + string(root.ID))
	if got := p.testid("diagram-links").AttrOr("data-children-url", ""); got != "/instances?parent="+string(root.ID) {
		t.Errorf("instance page's children url = %q", got)
	}
	child := p.testid("child")
	if child.Length() != 1 || child.AttrOr("data-node", "") != "callPicky" ||
		!strings.HasSuffix(child.Find(`[data-testid="child-link"]`).AttrOr("href", ""), string(b.instance(root.ID).Children[0].InstanceID)) {
		t.Errorf("child row: %d rows, node %q", child.Length(), child.AttrOr("data-node", ""))
	}
}

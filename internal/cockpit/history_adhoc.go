package cockpit

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/web/templates"
)

// Fact kinds of ad-hoc regions and migrations (the engine's FactRegion…,
// FactCandidates, FactAdHocActivated, FactRouterAnswered and
// FactInstanceMigrated), told in words like the others.
const (
	factRegionOpened     = "adhoc-region-opened"
	factCandidates       = "adhoc-candidates-offered"
	factRegionStopped    = "adhoc-region-stopped"
	factRouterAnswered   = "adhoc-router-answered"
	factInstanceMigrated = "instance-migrated"
)

// adHocFields are the detail members of ad-hoc and migration facts.
type adHocFields struct {
	Router      string            `json:"router"`
	Manual      bool              `json:"manual"`
	Sequential  bool              `json:"sequential"`
	Candidates  []string          `json:"candidates"`
	Activate    []string          `json:"activate"`
	Variables   []string          `json:"variables"`
	Reason      string            `json:"reason"`
	Worker      string            `json:"worker"`
	By          string            `json:"by"`
	FromVersion int               `json:"fromVersion"`
	ToVersion   int               `json:"toVersion"`
	Mapping     map[string]string `json:"mapping"`
}

// tellAdHoc fills the sentence of an ad-hoc or migration fact, naming
// elements by their model names; it reports false for any other kind (or
// a detail it cannot read, which the raw detail then shows).
func tellAdHoc(it *templates.HistoryItem, kind string, raw json.RawMessage, names map[string]string) bool {
	switch kind {
	case factRegionOpened, factCandidates, factAdHocActivated, factRouterAnswered, factRegionStopped, factInstanceMigrated:
	default:
		return false
	}
	var d adHocFields
	if len(raw) > 0 && json.Unmarshal(raw, &d) != nil {
		return false
	}
	switch kind {
	case factRegionOpened:
		it.Verb = "Opened the ad-hoc region"
		it.Rest = "— " + regionKind(d)
	case factCandidates:
		it.Verb = "Offered to activate at"
		it.Rest = "— " + namedList(d.Candidates, names)
	case factAdHocActivated:
		it.Verb = "Activated"
		if len(d.Variables) > 0 {
			it.Rest = "with " + counted(len(d.Variables), "variable") + " (" + strings.Join(d.Variables, ", ") + ")"
		}
	case factRouterAnswered:
		it.Verb = "The router job answered at"
		it.Rest = "— activate " + namedList(d.Activate, names)
		if len(d.Activate) == 0 {
			it.Rest = "— activate nothing"
		}
		if d.Worker != "" {
			it.Rest += " (worker " + d.Worker + ")"
		}
	case factRegionStopped:
		it.Verb = "The ad-hoc region stopped at"
		if d.Reason != "" {
			it.Rest = "— " + d.Reason
		}
	case factInstanceMigrated:
		it.Who = d.By
		it.Verb = "migrated the instance"
		if d.By == "" {
			it.Verb = "The instance was migrated"
		}
		it.Verb += " from version " + strconv.Itoa(d.FromVersion) + " to version " + strconv.Itoa(d.ToVersion)
		if len(d.Mapping) > 0 {
			it.Rest = "— " + renames(d.Mapping, names)
		}
	}
	return true
}

// regionKind says how a region chooses: "manual selection, sequential,
// standard router".
func regionKind(d adHocFields) string {
	sel, order := "automatic selection", "parallel"
	if d.Manual {
		sel = "manual selection"
	}
	if d.Sequential {
		order = "sequential"
	}
	s := sel + ", " + order
	if d.Router != "" {
		s += ", " + d.Router + " router"
	}
	return s
}

// namedList names elements by their model names (an id without a name
// stays an id), in order.
func namedList(ids []string, names map[string]string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = nameOf(id, names)
	}
	return strings.Join(out, ", ")
}

// nameOf is an element's model name, else its id.
func nameOf(id string, names map[string]string) string {
	if n := names[id]; n != "" {
		return n
	}
	return id
}

// renames tells a migration's renamed elements, by source id, each with
// the target element's name: "renamed msg → Send the reminder".
func renames(mapping map[string]string, names map[string]string) string {
	from := make([]string, 0, len(mapping))
	for k := range mapping {
		from = append(from, k)
	}
	sort.Strings(from)
	parts := make([]string, len(from))
	for i, k := range from {
		parts[i] = k + " → " + nameOf(mapping[k], names)
	}
	return "renamed " + strings.Join(parts, ", ")
}

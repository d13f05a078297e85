package cockpit

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// tellAdHoc fills the sentence of an ad-hoc or migration fact f (its
// detail decoded as dd), naming elements by their model names; it reports
// false for any other kind (or a detail it cannot read, which the raw
// detail then shows).
func tellAdHoc(it *templates.HistoryItem, f runtime.FactRow, dd details, names map[string]string) bool {
	switch f.Kind {
	case runtime.FactRegionOpened, runtime.FactCandidates, runtime.FactAdHocActivated, runtime.FactRouterAnswered, runtime.FactRegionStopped, runtime.FactInstanceMigrated:
	default:
		return false
	}
	if len(f.Detail) > 0 && !dd.decoded {
		return false
	}
	d, m := dd.AdHoc, dd.Migration
	switch f.Kind {
	case runtime.FactRegionOpened:
		it.Verb = "Opened the ad-hoc region"
		it.Rest = "— " + regionKind(d)
	case runtime.FactCandidates:
		it.Verb = "Offered to activate at"
		it.Rest = "— " + namedList(d.Candidates, names)
	case runtime.FactAdHocActivated:
		it.Verb = "Activated"
		if len(d.Variables) > 0 {
			it.Rest = "with " + counted(len(d.Variables), "variable") + " (" + strings.Join(d.Variables, ", ") + ")"
		}
	case runtime.FactRouterAnswered:
		it.Verb = "The router job answered at"
		it.Rest = "— activate " + namedList(d.Activate, names)
		if len(d.Activate) == 0 {
			it.Rest = "— activate nothing"
		}
		if d.Worker != "" {
			it.Rest += " (worker " + d.Worker + ")"
		}
	case runtime.FactRegionStopped:
		it.Verb = "The ad-hoc region stopped at"
		if d.Reason != "" {
			it.Rest = "— " + d.Reason
		}
	case runtime.FactInstanceMigrated:
		it.Who = m.By
		it.Verb = "migrated the instance"
		if m.By == "" {
			it.Verb = "The instance was migrated"
		}
		it.Verb += " from version " + strconv.Itoa(m.FromVersion) + " to version " + strconv.Itoa(m.ToVersion)
		if len(m.Mapping) > 0 {
			it.Rest = "— " + renames(m.Mapping, names)
		}
	}
	return true
}

// regionKind says how a region chooses: "manual selection, sequential,
// standard router".
func regionKind(d adHocDetail) string {
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

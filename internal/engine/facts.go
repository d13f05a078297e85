package engine

import (
	"github.com/gobpm/gobpm/internal/scope"
)

func (x *executor) fact(kind, node string, s scope.ID, track string, detail map[string]any) {
	if kind == FactVariableSet {
		x.varsChanged = true
	}
	x.st.NextFact++
	path := ""
	if sc := x.st.Scopes.Get(s); sc != nil {
		path = sc.Path
	}
	x.fx.Facts = append(x.fx.Facts, Fact{Seq: x.st.NextFact, At: x.now, Kind: kind, NodeID: node, ScopeID: s, ScopePath: path, TrackID: track, Detail: detail})
}

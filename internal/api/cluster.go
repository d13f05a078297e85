package api

import (
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Node is one gobpm process of the cluster (GET /api/v1/cluster).
type Node struct {
	ID          string `json:"id"`
	Address     string `json:"address"`
	Version     string `json:"version"`
	StartedAt   string `json:"startedAt"`
	HeartbeatAt string `json:"heartbeatAt"`
	// Self marks the node that answered.
	Self bool `json:"self"`
}

// Cluster is the answer of GET /api/v1/cluster.
type Cluster struct {
	// Node is the id of the node that answered.
	Node  string `json:"node"`
	Items []Node `json:"items"`
}

// cluster handles GET /api/v1/cluster: the registered nodes, oldest first
// (the one node on SQLite).
func (s *server) cluster(w http.ResponseWriter, r *http.Request) error {
	nodes, err := s.svc.Nodes(r.Context())
	if err != nil {
		return err
	}
	self := s.svc.NodeID()
	out := Cluster{Node: self, Items: make([]Node, 0, len(nodes))}
	for _, n := range nodes {
		out.Items = append(out.Items, toNode(n, self))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

func toNode(n runtime.NodeRow, self string) Node {
	return Node{ID: n.ID, Address: n.Address, Version: n.Version, StartedAt: timestamp(n.StartedAt),
		HeartbeatAt: timestamp(n.HeartbeatAt), Self: n.ID == self}
}

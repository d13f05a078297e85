package camunda8

import "net/http"

// Topology is Camunda 8's TopologyResponse: gobpm answers one broker
// holding one healthy partition it leads, whatever nodes share its store.
type Topology struct {
	Brokers               []Broker `json:"brokers"`
	ClusterSize           int      `json:"clusterSize"`
	PartitionsCount       int      `json:"partitionsCount"`
	ReplicationFactor     int      `json:"replicationFactor"`
	GatewayVersion        string   `json:"gatewayVersion"`
	LastCompletedChangeID string   `json:"lastCompletedChangeId"`
}

// Broker is one broker of the topology.
type Broker struct {
	NodeID     int         `json:"nodeId"`
	Host       string      `json:"host"`
	Port       int         `json:"port"`
	Partitions []Partition `json:"partitions"`
	Version    string      `json:"version"`
}

// Partition is one partition of a broker.
type Partition struct {
	PartitionID int    `json:"partitionId"`
	Role        string `json:"role"`
	Health      string `json:"health"`
}

// topology handles GET /v2/topology.
func (h *handler) topology(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, Topology{
		Brokers: []Broker{{NodeID: 0, Host: "localhost", Port: 26501, Version: h.version,
			Partitions: []Partition{{PartitionID: 1, Role: "leader", Health: "healthy"}}}},
		ClusterSize: 1, PartitionsCount: 1, ReplicationFactor: 1, GatewayVersion: h.version, LastCompletedChangeID: "-1",
	})
}

// License is Camunda 8's LicenseResponse: gobpm needs no Camunda licence.
type License struct {
	ValidLicense bool    `json:"validLicense"`
	LicenseType  string  `json:"licenseType"`
	IsCommercial bool    `json:"isCommercial"`
	ExpiresAt    *string `json:"expiresAt,omitempty"`
}

// license handles GET /v2/license.
func (h *handler) license(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, License{ValidLicense: false, LicenseType: "unknown", IsCommercial: false})
}

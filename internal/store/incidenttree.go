package store

// IncidentAncestor links an instance with an open incident to one of the
// instances above it in its call tree: itself (Depth 0), its caller (1),
// the caller's caller (2), up to the root of the tree.
type IncidentAncestor struct {
	// InstanceID has at least one open incident.
	InstanceID InstanceID
	// AncestorID is InstanceID (Depth 0) or the instance Depth calls above it.
	AncestorID InstanceID
	// AncestorKey is the process key of AncestorID.
	AncestorKey string
	// Depth counts the calls between AncestorID and InstanceID.
	Depth int
}

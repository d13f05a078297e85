package client

import (
	"context"
	"net/http"
	"strconv"
)

// VersionSuspension is the answer of SuspendVersion and ResumeVersion: the
// version's state now and how many of its instances the act changed.
type VersionSuspension struct {
	Key       string `json:"key"`
	Version   int    `json:"version"`
	Suspended bool   `json:"suspended"`
	// Instances is how many instances were suspended or resumed (0
	// without includeInstances).
	Instances int `json:"instances"`
}

// SuspendInstance suspends a running instance: it takes no step but its
// cancellation until ResumeInstance. Suspending a suspended instance
// changes nothing.
func (c *Client) SuspendInstance(ctx context.Context, id string) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/suspend"}, &out)
	return out, err
}

// ResumeInstance resumes a suspended instance: its timers that came due
// meanwhile fire, its jobs are activatable again.
func (c *Client) ResumeInstance(ctx context.Context, id string) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/resume"}, &out)
	return out, err
}

// SuspendVersion suspends a process version (no new instances, its timer
// starts held) and, with includeInstances, its running instances.
func (c *Client) SuspendVersion(ctx context.Context, key string, version int, includeInstances bool) (VersionSuspension, error) {
	return c.versionSuspension(ctx, key, version, "suspend", includeInstances)
}

// ResumeVersion resumes a process version and, with includeInstances, its
// suspended instances.
func (c *Client) ResumeVersion(ctx context.Context, key string, version int, includeInstances bool) (VersionSuspension, error) {
	return c.versionSuspension(ctx, key, version, "resume", includeInstances)
}

func (c *Client) versionSuspension(ctx context.Context, key string, version int, act string, includeInstances bool) (VersionSuspension, error) {
	var out VersionSuspension
	err := c.do(ctx, request{
		method: http.MethodPost,
		path:   "/processes/" + esc(key) + "/versions/" + strconv.Itoa(version) + "/" + act,
		body:   map[string]any{"includeInstances": includeInstances},
	}, &out)
	return out, err
}

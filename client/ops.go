package client

import (
	"context"
	"net/http"
	"time"
)

// Operator tools: the clock of tests and demos, deleting an ended
// instance, backups.

// Clock is the server's clock.
type Clock struct {
	// Time is the engine's current time.
	Time time.Time `json:"time"`
	// Manual is true when the server runs with --dev --clock=manual.
	Manual bool `json:"manual"`
	// TimersFired counts the timers a move fired (SetClock, AdvanceClock).
	TimersFired int `json:"timersFired"`
}

// Backup describes a backup the server wrote.
type Backup struct {
	// Path is the backup file on the server, inside its --backup-dir.
	Path      string    `json:"path"`
	Bytes     int64     `json:"bytes"`
	StartedAt time.Time `json:"startedAt"`
	TookMs    int64     `json:"tookMs"`
}

// Clock returns the server's clock.
func (c *Client) Clock(ctx context.Context) (Clock, error) {
	var out Clock
	err := c.do(ctx, request{method: http.MethodGet, path: "/clock"}, &out)
	return out, err
}

// SetClock moves the manual clock of a server started with --dev
// --clock=manual to t and returns it once the timers due then have fired.
// A server with a real clock answers a 409 *Problem; a time before the
// clock's a 400.
func (c *Client) SetClock(ctx context.Context, t time.Time) (Clock, error) {
	var out Clock
	err := c.do(ctx, request{method: http.MethodPost, path: "/clock", body: map[string]any{"time": t.UTC().Format(time.RFC3339Nano)}}, &out)
	return out, err
}

// AdvanceClock moves the manual clock forward by d (whole milliseconds),
// like SetClock. It is never retried: a retry would move the clock twice.
func (c *Client) AdvanceClock(ctx context.Context, d time.Duration) (Clock, error) {
	var out Clock
	err := c.do(ctx, request{method: http.MethodPost, path: "/clock", body: map[string]any{"advanceMs": d.Milliseconds()}}, &out)
	return out, err
}

// DeleteInstance deletes an ended (completed or terminated) instance and
// its history at once. A running or failed instance, or one whose caller
// still runs, is a 409 *Problem.
func (c *Client) DeleteInstance(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: "/instances/" + esc(id)}, nil)
}

// Backup has the server write a consistent copy of its database into the
// file to inside its --backup-dir ("" lets the server name it) and returns
// once the copy is complete. An existing file, or a server without
// --backup-dir, is a 409 *Problem.
func (c *Client) Backup(ctx context.Context, to string) (Backup, error) {
	body := map[string]any{}
	if to != "" {
		body["to"] = to
	}
	var out Backup
	err := c.do(ctx, request{method: http.MethodPost, path: "/admin/backup", body: body}, &out)
	return out, err
}

package cockpit_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// setupManualClock serves the cockpit over a runtime whose clock is
// manual (--clock manual), standing at start.
func setupManualClock(t *testing.T, start time.Time) (*bundle, *clock.Manual) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(start)
	rt := runtime.New(db, runtime.Options{ManualClock: clk})
	srv := httptest.NewServer(api.New(rt, nil, api.Options{Fallback: cockpit.New(rt, nil, cockpit.Options{})}))
	jar, _ := cookiejar.New(nil)
	t.Cleanup(func() {
		rt.BeginShutdown()
		srv.Close()
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}, clk
}

// With a manual clock every page says so in its header, with the clock's
// time; with the real clock no page does.
func TestManualClockBadge(t *testing.T) {
	t.Parallel()
	b, clock := setupManualClock(t, time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, path := range []string{"/", "/tasks", "/incidents"} {
		if got := b.mustGet(path).text("manual-clock"); got != "manual clock: 2030-01-02 03:04:05" {
			t.Errorf("%s: badge %q", path, got)
		}
	}
	clock.Advance(time.Hour)
	if got := b.mustGet("/").text("manual-clock"); got != "manual clock: 2030-01-02 04:04:05" {
		t.Errorf("after an hour: %q", got)
	}
	if n := setup(t).mustGet("/").testid("manual-clock").Length(); n != 0 {
		t.Errorf("the real clock shows %d badges", n)
	}
}

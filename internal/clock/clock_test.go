package clock

import (
	"testing"
	"time"
)

func TestManual(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	c := NewManual(start)
	if got := c.Now(); !got.Equal(start) || got.Location() != time.UTC {
		t.Fatalf("Now = %v, want %v in UTC", got, start)
	}
	if got := c.Advance(90 * time.Second); !got.Equal(start.Add(90 * time.Second)) {
		t.Errorf("Advance = %v", got)
	}
	earlier := start.Add(-time.Hour)
	if got := c.Set(earlier); !got.Equal(earlier) || !c.Now().Equal(earlier) {
		t.Errorf("Set backwards = %v, now %v: a test clock keeps what it is told", got, c.Now())
	}
}

func TestManualNextRead(t *testing.T) {
	t.Parallel()
	c := NewManual(time.Unix(0, 0))
	read := c.NextRead()
	select {
	case <-read:
		t.Fatal("closed before any read")
	default:
	}
	done := make(chan struct{})
	go func() { c.Now(); close(done) }()
	<-read
	<-done
	select {
	case <-c.NextRead():
		t.Fatal("a new NextRead is closed by an earlier read")
	default:
	}
}

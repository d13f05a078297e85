package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
)

// The server bounds how long a client may take to send its headers and
// how long an idle keep-alive connection is held; it sets no WriteTimeout,
// deliberately: a job activation long-polls for up to five minutes, and a
// write deadline would cut the answer off.
func TestServerTimeouts(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db")}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.srv.ReadHeaderTimeout <= 0 {
		t.Errorf("ReadHeaderTimeout = %v: a client may hold a connection forever before its headers", m.srv.ReadHeaderTimeout)
	}
	if m.srv.IdleTimeout <= 0 {
		t.Errorf("IdleTimeout = %v: idle keep-alive connections are held forever", m.srv.IdleTimeout)
	}
	if m.srv.WriteTimeout != 0 {
		t.Errorf("WriteTimeout = %v: it would cut off long polls (requestTimeoutMs up to 5 minutes)", m.srv.WriteTimeout)
	}
}

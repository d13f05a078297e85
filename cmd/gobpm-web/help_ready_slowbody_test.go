package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelpExitsZero: --help prints the usage and exits 0.
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "-addr") || !strings.Contains(string(out), "-auth") {
		t.Errorf("--help printed no usage:\n%s", out)
	}
}

// startMain runs a server in the test process on a fresh database.
func startMain(t *testing.T, args ...string) *Main {
	t.Helper()
	cfg, err := ParseConfig(append([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db")}, args...),
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// TestReadyAndHead: /readyz turns 200 once resume is done; HEAD answers
// wherever GET does.
func TestReadyAndHead(t *testing.T) {
	t.Parallel()
	m := startMain(t)
	base := "http://" + m.Addr()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			break
		}
		if res.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("/readyz: %d", res.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, path := range []string{"/healthz", "/readyz", "/api/v1/openapi.yaml", "/api/v1/processes"} {
		res, err := http.Head(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(body) != 0 {
			t.Errorf("HEAD %s: %d with %d body bytes", path, res.StatusCode, len(body))
		}
	}
}

// TestSlowBodyIsCutOff: a client that sends its body a byte at a time
// cannot hold the connection past --body-timeout; a long poll, whose
// handler waits after reading its body, is not cut off by it.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	m := startMain(t, "--body-timeout", "300ms")
	conn, err := net.Dial("tcp", m.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"variables":{}}`
	head := "POST /api/v1/processes/x/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
		itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(conn) // the server answers and closes
		done <- b
	}()
	for i := 0; i < len(body); i++ {
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			break // the server has given up on us
		}
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case b := <-done:
		if elapsed := time.Since(start); elapsed > 1500*time.Millisecond {
			t.Errorf("the slow body held the connection %s", elapsed)
		}
		if !bytes.Contains(b, []byte("HTTP/1.1 4")) {
			t.Errorf("answer to a slow body: %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server kept reading a body sent a byte every 100 ms")
	}

	// A long poll outlives the body timeout.
	req, _ := http.NewRequest("POST", "http://"+m.Addr()+"/api/v1/jobs/activate",
		strings.NewReader(`{"type":"none","worker":"w","maxJobs":1,"lockDurationMs":1000,"requestTimeoutMs":800}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("long poll past the body timeout: %d", res.StatusCode)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

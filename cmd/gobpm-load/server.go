package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Server is a gobpm-web process the tool started (-spawn). Stop ends only
// this process, by its pid.
type Server struct {
	Bin  string // the server binary
	DB   string // its SQLite file or PostgreSQL URL
	Sync string // the synchronous mode passed with --sync
	Addr string // 127.0.0.1:port while running
	Log  string // the file its stderr and stdout go to

	cmd  *exec.Cmd
	done chan error // the result of cmd.Wait
}

// freeLoopbackPort asks the kernel for a free port on 127.0.0.1.
func freeLoopbackPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// Start starts the server on a free loopback port and waits until /healthz
// answers (at most 30 s). A port taken between picking and binding is retried
// with another one.
func (s *Server) Start(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.start(ctx); err == nil {
			return nil
		}
	}
	return err
}

func (s *Server) start(ctx context.Context) error {
	addr, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(s.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	args := []string{"--addr", addr, "--db", s.DB}
	if s.Sync != "" && !isPostgres(s.DB) {
		args = append(args, "--sync", s.Sync)
	}
	cmd := exec.Command(s.Bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.Bin, err)
	}
	s.cmd, s.Addr, s.done = cmd, addr, make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	c := NewClient("http://"+addr, 2)
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.cmd = nil
			return fmt.Errorf("server exited at start (%v); its log:\n%s", err, tail(s.Log, 2000))
		case <-ctx.Done():
			s.Stop()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		ok := c.Healthy(hctx)
		cancel()
		if ok {
			return nil
		}
	}
	s.Stop()
	return fmt.Errorf("server did not answer /healthz within 30 s; its log:\n%s", tail(s.Log, 2000))
}

// Stop shuts the server down gracefully (SIGTERM, which also closes the
// database and checkpoints its WAL), and kills it after 60 s. It is a no-op
// when the server is not running.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	defer func() { s.cmd = nil }()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return err
		}
		if err != nil {
			return fmt.Errorf("server exited with %v; its log:\n%s", err, tail(s.Log, 2000))
		}
		return nil
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		return errors.New("server did not stop within 60 s of SIGTERM; killed")
	}
}

// pid returns the server's process id, 0 when it is not running or s is nil.
func (s *Server) pid() int {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Version runs the binary with --version and returns what it prints after
// the program name ("unknown" when it fails).
func Version(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "unknown"
	}
	return f[len(f)-1]
}

// DBSize returns the sizes of the SQLite file and of its -wal file (0 when
// absent).
func DBSize(db string) (main, wal int64, err error) {
	fi, err := os.Stat(db)
	if err != nil {
		return 0, 0, err
	}
	if wi, err := os.Stat(db + "-wal"); err == nil {
		wal = wi.Size()
	}
	return fi.Size(), wal, nil
}

// tail returns the last n bytes of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		return err.Error()
	}
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}

package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The server serves Zeebe's gateway protocol on --grpc-addr, over TLS
// with --tls-cert when it is set; the real Zeebe Go client reaches it.
func TestGRPCGatewayServesTheZeebeClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("plaintext", func(t *testing.T) {
		t.Parallel()
		m := startMain(t, "--grpc-addr", "127.0.0.1:0")
		c, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: m.GRPCAddr(), UsePlaintextConnection: true})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		topo, err := c.NewTopologyCommand().Send(ctx)
		if err != nil || len(topo.Brokers) != 1 {
			t.Fatalf("Topology = %v, %v", topo, err)
		}
	})
	t.Run("tls", func(t *testing.T) {
		t.Parallel()
		cert, key := selfSigned(t)
		m, _ := startAuth(t, "--grpc-addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
		c, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: m.GRPCAddr(), CaCertificatePath: cert})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// The connection is TLS (a handshake with the server's certificate)
		// and the server authenticates: no credential is UNAUTHENTICATED.
		_, err = c.NewTopologyCommand().Send(ctx)
		if status.Code(err) != codes.Unauthenticated {
			t.Fatalf("Topology without a credential over TLS: %v, want UNAUTHENTICATED", err)
		}
	})
}

func TestGRPCAddrIsOffByDefaultAndLoopbackWithoutAuth(t *testing.T) {
	t.Parallel()
	m := startMain(t)
	if m.GRPCAddr() != "" {
		t.Errorf("gRPC listens on %s without --grpc-addr", m.GRPCAddr())
	}
	_, err := ParseConfig([]string{"--grpc-addr", "0.0.0.0:26500", "--db", filepath.Join(t.TempDir(), "g.db")}, func(string) string { return "" }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refusing to serve gRPC on 0.0.0.0:26500 with --auth none") {
		t.Errorf("ParseConfig = %v, want the loopback refusal", err)
	}
}

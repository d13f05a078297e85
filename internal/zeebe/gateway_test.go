package zeebe_test

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/testdb"
	"github.com/gobpm/gobpm/internal/zeebe"
)

// serve starts the gateway with opts on a loopback port and returns its
// address; it stops when the test ends.
func serve(t *testing.T, opts zeebe.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	p, _ := strconv.Atoi(port)
	opts.Node = zeebe.Node{Host: host, Port: int32(p)}
	srv := zeebe.NewServer(opts)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// client is the real Zeebe Go client on addr, sending token as its bearer
// credential ("" sends none).
func client(t *testing.T, addr, token string) zbc.Client {
	t.Helper()
	cfg := &zbc.ClientConfig{GatewayAddress: addr, UsePlaintextConnection: true}
	if token != "" {
		cfg.CredentialsProvider = bearer(token)
	}
	c, err := zbc.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bearer is a Zeebe client credentials provider sending a fixed token.
type bearer string

func (b bearer) ApplyCredentials(_ context.Context, headers map[string]string) error {
	headers["Authorization"] = "Bearer " + string(b)
	return nil
}

func (bearer) ShouldRetryRequest(context.Context, error) bool { return false }

// accessService is the real access service on a fresh store.
func accessService(t *testing.T, mode access.Mode) *access.Service {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	acc, err := access.New(ctx, access.Config{Mode: mode, Store: db, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = acc.Close(context.Background()) })
	return acc
}

func TestTopologyThroughTheZeebeGoClient(t *testing.T) {
	t.Parallel()
	addr := serve(t, zeebe.Options{})
	topo, err := client(t, addr, "").NewTopologyCommand().Send(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if topo.GatewayVersion != zeebe.ProtocolVersion || topo.ClusterSize != 1 || topo.PartitionsCount != 1 || topo.ReplicationFactor != 1 {
		t.Errorf("topology = %v", topo)
	}
	if len(topo.Brokers) != 1 {
		t.Fatalf("brokers = %v", topo.Brokers)
	}
	b := topo.Brokers[0]
	if net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))) != addr || len(b.Partitions) != 1 || b.Partitions[0].PartitionId != 1 ||
		b.Partitions[0].Role.String() != "LEADER" || b.Partitions[0].Health.String() != "HEALTHY" {
		t.Errorf("broker = %v", b)
	}
}

func TestGatewayAuthenticatesBearerCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acc := accessService(t, access.ModeBuiltin)
	if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "ada", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	token, _, err := acc.MintToken(ctx, access.NewToken{Owner: "ada", Name: "zeebe"})
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, zeebe.Options{Credentials: acc})

	if _, err := client(t, addr, token).NewTopologyCommand().Send(ctx); err != nil {
		t.Errorf("Topology with a valid token: %v", err)
	}
	for name, tok := range map[string]string{"no credential": "", "an unknown token": "gobpm_0123456789abcdef_nope", "no gobpm token": "not-a-token"} {
		_, err := client(t, addr, tok).NewTopologyCommand().Send(ctx)
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("Topology with %s: %v, want UNAUTHENTICATED", name, err)
		}
	}
}

func TestGatewayAnswersUnimplementedForRPCsItDoesNotServe(t *testing.T) {
	t.Parallel()
	addr := serve(t, zeebe.Options{})
	_, err := client(t, addr, "").NewDeleteResourceCommand().ResourceKey(1).Send(context.Background())
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("DeleteResource: %v, want UNIMPLEMENTED", err)
	}
}

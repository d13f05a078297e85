// Package zeebe serves Zeebe's gateway protocol, the gRPC service
// "gateway_protocol.Gateway" that Camunda 8's clients (the Java and
// JavaScript SDKs, the community Go client, zbctl) speak, as a thin
// adapter over the runtime: never a second engine.
//
// The message and service types are the generated Go types of the
// Apache-2.0 Zeebe Go client module (github.com/camunda/zeebe/clients/go/v8,
// pkg/pb, protocol 8.3).
//
// Every RPC passes one table (rpcs): the access rule it needs, checked
// against the caller the request's bearer credential names, with the same
// permissions as /api/v1. An RPC not in the table answers UNIMPLEMENTED.
//
// The RPCs act through Service, the runtime's Camunda 8 layer (the acts
// REST v2 uses too), and answer Zeebe's status codes (errors.go). The two
// RPCs protocol 8.3's types lack, StreamActivatedJobs and
// UpdateJobTimeout, are served by the unknown-service handler over
// dynamicpb descriptors (dynamic.go), behind the same guard. See
// docs/zeebe-grpc.md for every RPC and what differs from Zeebe.
package zeebe

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // the JavaScript SDK compresses its requests with gzip
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/httpsec"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/telemetry"
)

// ServiceName is the gRPC service the gateway serves.
const ServiceName = "gateway_protocol.Gateway"

// ProtocolVersion is the Zeebe gateway version gobpm answers in Topology:
// the version of the protocol whose behaviour it follows.
const ProtocolVersion = "8.8.0"

// Credentials authenticates callers; *access.Service implements it. A nil
// Credentials, or one in access.ModeNone, lets every caller do everything.
type Credentials interface {
	// Mode is the server's authentication mode.
	Mode() access.Mode
	// Bearer authenticates a bearer credential: a gobpm API token or, with
	// OIDC, the provider's JWT.
	Bearer(ctx context.Context, credential string) (access.Caller, error)
	// Deployer is who a caller's deployment is recorded as deployed by.
	Deployer(c access.Caller) runtime.Deployer
}

// Node describes the one broker the gateway is, for Topology.
type Node struct {
	// Host and Port are where clients reach the gateway.
	Host string
	Port int32
}

// Options configure a Gateway.
type Options struct {
	// Service is the runtime's Camunda 8 layer the RPCs act through (nil:
	// every RPC but Topology answers UNAVAILABLE).
	Service Service
	// Credentials authenticate callers (nil: no authentication).
	Credentials Credentials
	// Node is what Topology reports.
	Node Node
	// TLS, when set, serves gRPC over TLS with it.
	TLS *tls.Config
	// Logger logs refused and failed calls (nil: discard).
	Logger *slog.Logger
	// MaxLongPolls caps the long-polling ActivateJobs calls and the job
	// streams one caller (user, or address when anonymous) holds open at
	// once; more are RESOURCE_EXHAUSTED. 0 or less: no cap.
	MaxLongPolls int
	// Tracer gives each call a span (tracing.go); nil traces nothing.
	Tracer *telemetry.Tracer
}

// Gateway is the gRPC gateway service.
type Gateway struct {
	pb.UnimplementedGatewayServer
	opts  Options
	log   *slog.Logger
	polls *httpsec.Holds
}

// NewServer returns a gRPC server serving the gateway with opts. The
// caller serves it on a listener and stops it.
func NewServer(opts Options) *grpc.Server {
	return newGateway(opts).server()
}

// newGateway is the gateway NewServer serves.
func newGateway(opts Options) *Gateway {
	g := &Gateway{opts: opts, log: opts.Logger, polls: httpsec.NewHolds(opts.MaxLongPolls)}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	return g
}

// server is a gRPC server serving g.
func (g *Gateway) server() *grpc.Server {
	opts := g.opts
	unary, stream := []grpc.UnaryServerInterceptor{g.unaryGuard}, []grpc.StreamServerInterceptor{g.streamGuard}
	if opts.Tracer != nil {
		unary = append([]grpc.UnaryServerInterceptor{traceUnary(opts.Tracer)}, unary...)
		stream = append([]grpc.StreamServerInterceptor{traceStream(opts.Tracer)}, stream...)
	}
	serverOpts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
		// The RPCs protocol 8.3's generated service lacks (see
		// dynamic.go); the stream interceptor guards them as the others.
		grpc.UnknownServiceHandler(g.serveDynamic),
	}
	if opts.TLS != nil {
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	s := grpc.NewServer(serverOpts...)
	pb.RegisterGatewayServer(s, g)
	return s
}

// callerKey carries the authenticated caller in a call's context.
type callerKey struct{}

func (g *Gateway) unaryGuard(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := g.admit(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (g *Gateway) streamGuard(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, err := g.admit(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}
	return handler(srv, &guardedStream{ServerStream: ss, ctx: ctx})
}

// guardedStream is a server stream whose context carries the caller.
type guardedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *guardedStream) Context() context.Context { return s.ctx }

// admit authenticates the call and applies its RPC's rule: UNIMPLEMENTED
// for an RPC gobpm does not serve, UNAUTHENTICATED without a valid
// credential, PERMISSION_DENIED without the permission.
func (g *Gateway) admit(ctx context.Context, fullMethod string) (context.Context, error) {
	name, ok := strings.CutPrefix(fullMethod, "/"+ServiceName+"/")
	rule, served := rpcs[name]
	if !ok || !served {
		return ctx, status.Errorf(codes.Unimplemented, "gobpm does not serve %s", fullMethod)
	}
	c, err := g.caller(ctx)
	if err != nil {
		return ctx, err
	}
	if c.Via != "none" && !rule.Public {
		if !c.Authenticated() {
			return ctx, status.Error(codes.Unauthenticated, "send a bearer credential: a gobpm API token or, with OIDC, the provider's JWT")
		}
		// Rules whose key only the handler knows check the kind here and
		// each key in the handler.
		if rule.Perm != "" && !c.Unrestricted() && !allowsRoute(rule, c) {
			return ctx, status.Errorf(codes.PermissionDenied, "%s needs the %s permission on a %s", name, rule.Perm, rule.Kind)
		}
	}
	ctx = context.WithValue(ctx, callerKey{}, c)
	return runtime.WithActingUser(ctx, string(c.User)), nil
}

// allowsRoute is the call-level check of a rule: the permission on "*"
// for a rule without keys, on some resource of its kind for one whose
// keys the handler checks.
func allowsRoute(rule access.Rule, c access.Caller) bool {
	if rule.Key == access.KeyNone {
		return c.Allowed(rule.Perm, rule.Kind, "*")
	}
	return rule.AllowsSome(c)
}

// callerOf is the caller admit authenticated for the call.
func callerOf(ctx context.Context) access.Caller {
	c, _ := ctx.Value(callerKey{}).(access.Caller)
	return c
}

// allowed reports whether the call's caller holds perm on the resource
// key of kind (always, without authentication).
func allowed(ctx context.Context, perm auth.Permission, kind auth.ResourceKind, key string) bool {
	c := callerOf(ctx)
	return c.Via == "none" || c.Unrestricted() || c.Allowed(perm, kind, key)
}

// user is the call's user id, the identity a job's activation is bound to.
func user(ctx context.Context) string { return string(callerOf(ctx).User) }

// hold takes one of the caller's long-poll holds: RESOURCE_EXHAUSTED when
// they hold the cap already. release must be called when the call ends.
func (g *Gateway) hold(ctx context.Context) (release func(), err error) {
	key := "addr "
	if c := callerOf(ctx); c.Via != "none" && c.Authenticated() {
		key = "user " + string(c.User)
	} else if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host, _, splitErr := net.SplitHostPort(p.Addr.String())
		if splitErr != nil {
			host = p.Addr.String()
		}
		key += host
	}
	release, ok := g.polls.Acquire(key)
	if !ok {
		return nil, status.Errorf(codes.ResourceExhausted, "too many long-polling activations and job streams of this caller are open (at most %d): wait for one to end", g.polls.Max())
	}
	return release, nil
}

// svc is the service, or UNAVAILABLE when the gateway has none.
func (g *Gateway) svc() (Service, error) {
	if g.opts.Service == nil {
		return nil, status.Error(codes.Unavailable, "this gateway serves no runtime")
	}
	return g.opts.Service, nil
}

// caller authenticates the call's "authorization" metadata.
func (g *Gateway) caller(ctx context.Context) (access.Caller, error) {
	cred := g.opts.Credentials
	if cred == nil || cred.Mode() == access.ModeNone {
		return access.Anonymous("", nil), nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	values := md.Get("authorization")
	if len(values) == 0 {
		return access.Caller{}, nil
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return access.Caller{}, status.Error(codes.Unauthenticated, `the authorization metadata must be "Bearer <token>"`)
	}
	c, err := cred.Bearer(ctx, strings.TrimSpace(token))
	if err != nil {
		if errors.Is(err, access.ErrUnauthenticated) {
			g.log.Info("gRPC authentication failed", "err", err)
			return access.Caller{}, status.Error(codes.Unauthenticated, "the credential is unknown, expired, revoked or malformed")
		}
		return access.Caller{}, status.Errorf(codes.Internal, "authenticating: %v", err)
	}
	return c, nil
}

// Topology answers the one broker gobpm is: one partition, which it leads.
func (g *Gateway) Topology(context.Context, *pb.TopologyRequest) (*pb.TopologyResponse, error) {
	return &pb.TopologyResponse{
		Brokers: []*pb.BrokerInfo{{
			NodeId:     0,
			Host:       g.opts.Node.Host,
			Port:       g.opts.Node.Port,
			Version:    ProtocolVersion,
			Partitions: []*pb.Partition{{PartitionId: 1, Role: pb.Partition_LEADER, Health: pb.Partition_HEALTHY}},
		}},
		ClusterSize:       1,
		PartitionsCount:   1,
		ReplicationFactor: 1,
		GatewayVersion:    ProtocolVersion,
	}, nil
}

package zeebe

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// dynBundle is the gateway over a real runtime with built-in
// authentication, a raw gRPC connection to it and an admin's and a
// worker's tokens.
type dynBundle struct {
	rt            *runtime.Runtime
	gw            *Gateway
	conn          *grpc.ClientConn
	admin, worker string
}

func setupDynamic(t *testing.T) *dynBundle {
	t.Helper()
	return setupDynamicWith(t, 0)
}

// setupDynamicWith is setupDynamic with a cap on each caller's long polls.
func setupDynamicWith(t *testing.T, maxLongPolls int) *dynBundle {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = acc.Close(context.Background())
		_ = rt.Close()
		_ = db.Close()
	})
	b := &dynBundle{rt: rt}
	for _, u := range []struct {
		id   string
		role auth.Role
		tok  *string
	}{{"root", auth.RoleAdmin, &b.admin}, {"w", auth.RoleWorker, &b.worker}} {
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: u.id}); err != nil {
			t.Fatal(err)
		}
		if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: u.id}, Role: u.role}); err != nil {
			t.Fatal(err)
		}
		if *u.tok, _, err = acc.MintToken(ctx, access.NewToken{Owner: u.id, Name: "zeebe"}); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.gw = newGateway(Options{Service: rt, Credentials: acc, MaxLongPolls: maxLongPolls})
	srv := b.gw.server()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	b.conn, err = grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.conn.Close() })
	return b
}

// waitForHold returns once user holds a long poll or job stream (holds
// are counted only under a cap: setupDynamicWith(t, n > 0)): the
// server takes a stream's hold once it has read the stream's request, and
// a test waits for that rather than guess how long it takes.
func (b *dynBundle) waitForHold(t *testing.T, ctx context.Context, user string) {
	t.Helper()
	for b.gw.polls.Held("user "+user) == 0 {
		if ctx.Err() != nil {
			t.Fatalf("no stream of %s took its hold", user)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// as is ctx sending token as the bearer credential ("": none).
func as(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

func method(name string) string { return "/" + ServiceName + "/" + name }

// streamRequest is a StreamActivatedJobsRequest.
func streamRequest(t *testing.T, typ string, timeout time.Duration) *dynamicpb.Message {
	t.Helper()
	msgs, err := buildDynamic()
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(msgs.stream)
	f := msgs.stream.Fields()
	m.Set(f.ByName("type"), protoValueString(typ))
	m.Set(f.ByName("worker"), protoValueString("streamer"))
	m.Set(f.ByName("timeout"), protoValueInt(timeout.Milliseconds()))
	return m
}

// openStream opens StreamActivatedJobs for typ as token, gzip-compressed.
func (b *dynBundle) openStream(t *testing.T, ctx context.Context, token, typ string) grpc.ClientStream {
	t.Helper()
	return b.openStreamFor(t, ctx, token, typ, time.Minute)
}

// openStreamFor is openStream with the jobs' timeout.
func (b *dynBundle) openStreamFor(t *testing.T, ctx context.Context, token, typ string, timeout time.Duration) grpc.ClientStream {
	t.Helper()
	s, err := b.conn.NewStream(as(ctx, token), &grpc.StreamDesc{ServerStreams: true}, method("StreamActivatedJobs"), grpc.UseCompressor(gzip.Name))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SendMsg(streamRequest(t, typ, timeout)); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	return s
}

// updateTimeout calls UpdateJobTimeout as token.
func (b *dynBundle) updateTimeout(t *testing.T, token string, key int64, timeout time.Duration) error {
	t.Helper()
	msgs, err := buildDynamic()
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(msgs.updateTimeout)
	f := msgs.updateTimeout.Fields()
	m.Set(f.ByName("jobKey"), protoValueInt(key))
	m.Set(f.ByName("timeout"), protoValueInt(timeout.Milliseconds()))
	return b.conn.Invoke(as(context.Background(), token), method("UpdateJobTimeout"), m, &emptypb.Empty{}, grpc.UseCompressor(gzip.Name))
}

// TestStreamActivatedJobsPushesEachJob opens a job stream before any job
// exists: each instance started afterwards pushes its job at once; the
// worker completes them and moves a deadline with UpdateJobTimeout. The
// calls are gzip-compressed, as the JavaScript SDK sends them.
func TestStreamActivatedJobsPushesEachJob(t *testing.T) {
	t.Parallel()
	b := setupDynamic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gw := pb.NewGatewayClient(b.conn)
	data, err := os.ReadFile("testdata/c8-pay.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.DeployResource(as(ctx, b.admin), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "c8-pay.bpmn", Content: data}}},
		grpc.UseCompressor(gzip.Name)); err != nil {
		t.Fatalf("DeployResource (gzip): %v", err)
	}
	s := b.openStream(t, ctx, b.worker, "c8-charge")
	time.Sleep(100 * time.Millisecond) // the stream is likely waiting before the jobs exist (it activates them either way)
	var keys []int64
	for range 3 {
		res, err := gw.CreateProcessInstance(as(ctx, b.admin), &pb.CreateProcessInstanceRequest{BpmnProcessId: "c8-pay", Version: -1})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, res.ProcessInstanceKey)
		var job pb.ActivatedJob
		if err := s.RecvMsg(&job); err != nil {
			t.Fatalf("receiving a pushed job: %v", err)
		}
		if job.ProcessInstanceKey != res.ProcessInstanceKey || job.Type != "c8-charge" || job.Worker != "streamer" || job.Deadline == 0 {
			t.Errorf("pushed job = %v", &job)
		}
		if err := b.updateTimeout(t, b.worker, job.Key, 2*time.Minute); err != nil {
			t.Errorf("UpdateJobTimeout: %v", err)
		}
		if _, err := gw.CompleteJob(as(ctx, b.worker), &pb.CompleteJobRequest{JobKey: job.Key, Variables: `{"ok":true}`}); err != nil {
			t.Errorf("CompleteJob: %v", err)
		}
	}
	for _, k := range keys {
		v, err := b.rt.InstanceByC8Key(ctx, k)
		if err != nil || v.Status != runtime.StatusCompleted {
			t.Errorf("instance %d: %v, %v", k, v.Status, err)
		}
	}
	if err := b.updateTimeout(t, b.worker, 31337, time.Minute); status.Code(err) != codes.NotFound {
		t.Errorf("UpdateJobTimeout of a forged key: %v, want NOT_FOUND", err)
	}
}

// TestDynamicRPCsPassAuthentication checks the RPCs served through the
// unknown-service handler pass the same guard as the generated ones.
func TestDynamicRPCsPassAuthentication(t *testing.T) {
	t.Parallel()
	b := setupDynamic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for name, tok := range map[string]string{"no credential": "", "an unknown token": "gobpm_0123456789abcdef_nope"} {
		s := b.openStream(t, ctx, tok, "c8-charge")
		var job pb.ActivatedJob
		if err := s.RecvMsg(&job); status.Code(err) != codes.Unauthenticated {
			t.Errorf("StreamActivatedJobs with %s: %v, want UNAUTHENTICATED", name, err)
		}
		if err := b.updateTimeout(t, tok, 1, time.Minute); status.Code(err) != codes.Unauthenticated {
			t.Errorf("UpdateJobTimeout with %s: %v, want UNAUTHENTICATED", name, err)
		}
	}
	// A worker may not start instances; an unserved RPC is UNIMPLEMENTED.
	gw := pb.NewGatewayClient(b.conn)
	_, err := gw.CreateProcessInstance(as(ctx, b.worker), &pb.CreateProcessInstanceRequest{BpmnProcessId: "c8-pay", Version: -1})
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("CreateProcessInstance by a worker: %v, want PERMISSION_DENIED", err)
	}
	_, err = gw.PublishMessage(as(ctx, b.worker), &pb.PublishMessageRequest{Name: "m"})
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("PublishMessage by a worker: %v, want PERMISSION_DENIED", err)
	}
	err = b.conn.Invoke(as(ctx, b.admin), method("NoSuchRPC"), &emptypb.Empty{}, &emptypb.Empty{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("an unknown RPC: %v, want UNIMPLEMENTED", err)
	}
}

func protoValueString(s string) protoreflect.Value { return protoreflect.ValueOfString(s) }
func protoValueInt(i int64) protoreflect.Value     { return protoreflect.ValueOfInt64(i) }

// TestLongPollCap: a caller holding their cap of job streams and long
// polls gets RESOURCE_EXHAUSTED for one more, and a hold again once one
// ends.
func TestLongPollCap(t *testing.T) {
	t.Parallel()
	b := setupDynamicWith(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	firstCtx, closeFirst := context.WithCancel(ctx)
	first := b.openStream(t, firstCtx, b.worker, "c8-charge")
	ended := make(chan error, 1)
	go func() {
		var job pb.ActivatedJob
		ended <- first.RecvMsg(&job)
	}()
	b.waitForHold(t, ctx, "w")
	gw := pb.NewGatewayClient(b.conn)
	s, err := gw.ActivateJobs(as(ctx, b.worker), &pb.ActivateJobsRequest{Type: "c8-charge", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: 100})
	if err == nil {
		_, err = s.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a long poll beside a held stream: %v, want RESOURCE_EXHAUSTED", err)
	}
	// At once (requestTimeout < 0) is no long poll: never capped.
	s, err = gw.ActivateJobs(as(ctx, b.worker), &pb.ActivateJobsRequest{Type: "c8-charge", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: -1})
	if err == nil {
		_, err = s.Recv()
	}
	if err != nil {
		t.Errorf("an activation without long poll: %v", err)
	}
	closeFirst()
	if err := <-ended; status.Code(err) != codes.Canceled {
		t.Errorf("the first stream ended with %v, want CANCELED", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := gw.ActivateJobs(as(ctx, b.worker), &pb.ActivateJobsRequest{Type: "c8-charge", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: 50})
		if err == nil {
			_, err = s.Recv()
		}
		if err == nil {
			break
		}
		if status.Code(err) != codes.ResourceExhausted || time.Now().After(deadline) {
			t.Fatalf("a long poll after the stream ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDisconnectedStreamGivesItsJobsBack: a worker that received a pushed
// job and went away gives it back when the job's timeout ends: another
// activation gets it then, not before.
func TestDisconnectedStreamGivesItsJobsBack(t *testing.T) {
	t.Parallel()
	b := setupDynamic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gw := pb.NewGatewayClient(b.conn)
	data, err := os.ReadFile("testdata/c8-pay.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.DeployResource(as(ctx, b.admin), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "c8-pay.bpmn", Content: data}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.CreateProcessInstance(as(ctx, b.admin), &pb.CreateProcessInstanceRequest{BpmnProcessId: "c8-pay", Version: -1}); err != nil {
		t.Fatal(err)
	}
	streamCtx, disconnect := context.WithCancel(ctx)
	s := b.openStreamFor(t, streamCtx, b.worker, "c8-charge", 1500*time.Millisecond)
	var pushed pb.ActivatedJob
	if err := s.RecvMsg(&pushed); err != nil {
		t.Fatalf("receiving the pushed job: %v", err)
	}
	disconnect()
	activate := func() []*pb.ActivatedJob {
		st, err := gw.ActivateJobs(as(ctx, b.worker), &pb.ActivateJobsRequest{Type: "c8-charge", Worker: "other", Timeout: 60000, MaxJobsToActivate: 1, RequestTimeout: -1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	if jobs := activate(); len(jobs) != 0 {
		t.Fatalf("the job came back before its timeout ended: %v", jobs)
	}
	time.Sleep(time.Until(time.UnixMilli(pushed.Deadline)) + 100*time.Millisecond)
	jobs := activate()
	if len(jobs) != 1 || jobs[0].Key != pushed.Key || jobs[0].Worker != "other" {
		t.Fatalf("after the timeout: %v, want job %d for worker other", jobs, pushed.Key)
	}
}

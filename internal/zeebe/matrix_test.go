package zeebe

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// TestRoleMatrix calls every served RPC as each built-in role and as a
// user without grants: the roles a row names pass the call's permission
// check (whatever the act then answers), the others are PERMISSION_DENIED
// — the permissions of each RPC's /api/v1 counterpart.
func TestRoleMatrix(t *testing.T) {
	t.Parallel()
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
	letters := map[string]string{"admin": "a", "developer": "d", "operator": "o", "worker": "w", "viewer": "v", "nobody": "n"}
	tokens := map[string]string{}
	for name := range letters {
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "u-" + name}); err != nil {
			t.Fatal(err)
		}
		if name != "nobody" {
			g := access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "u-" + name}, Role: auth.Role(name)}
			if _, err := acc.Grant(ctx, "", g); err != nil {
				t.Fatal(err)
			}
		}
		if tokens[name], _, err = acc.MintToken(ctx, access.NewToken{Owner: "u-" + name, Name: "matrix"}); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Options{Service: rt, Credentials: acc})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })

	stream := streamRequest(t, "nothing", time.Minute)
	rows := []struct {
		rpc   string
		req   proto.Message
		roles string
	}{
		{"Topology", &pb.TopologyRequest{}, "*"},
		{"ActivateJobs", &pb.ActivateJobsRequest{Type: "nothing", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: -1}, "aw"},
		{"StreamActivatedJobs", stream, "aw"}, // stays open for those allowed
		{"CompleteJob", &pb.CompleteJobRequest{JobKey: 99999999}, "aw"},
		{"FailJob", &pb.FailJobRequest{JobKey: 99999999}, "aw"},
		{"FailJob", &pb.FailJobRequest{JobKey: 99999999, Retries: 1, Variables: `{"tries":1}`}, "aw"}, // variables are the task's locals
		{"ThrowError", &pb.ThrowErrorRequest{JobKey: 99999999, ErrorCode: "x"}, "aw"},
		{"UpdateJobTimeout", &emptypb.Empty{}, "aw"},
		{"CreateProcessInstance", &pb.CreateProcessInstanceRequest{BpmnProcessId: "none"}, "ado"},
		{"CreateProcessInstanceWithResult", &pb.CreateProcessInstanceWithResultRequest{Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "none"}}, "ado"},
		{"CancelProcessInstance", &pb.CancelProcessInstanceRequest{ProcessInstanceKey: 99999999}, "ado"},
		{"SetVariables", &pb.SetVariablesRequest{ElementInstanceKey: 99999999}, "ado"},
		{"ResolveIncident", &pb.ResolveIncidentRequest{IncidentKey: 99999999}, "ado"},
		{"UpdateJobRetries", &pb.UpdateJobRetriesRequest{JobKey: 99999999, Retries: 1}, "ado"},
		{"DeployResource", &pb.DeployResourceRequest{}, "ad"},
		{"DeployProcess", &emptypb.Empty{}, "ad"},
		{"PublishMessage", &pb.PublishMessageRequest{Name: "none"}, "ado"},
		{"BroadcastSignal", &pb.BroadcastSignalRequest{SignalName: "none"}, "ado"},
	}
	covered := map[string]bool{}
	for _, rw := range rows {
		covered[rw.rpc] = true
		for role, letter := range letters {
			t.Run(rw.rpc+"/"+role, func(t *testing.T) {
				t.Parallel()
				cctx, cancel := context.WithTimeout(as(ctx, tokens[role]), 500*time.Millisecond)
				defer cancel()
				s, err := conn.NewStream(cctx, &grpc.StreamDesc{ServerStreams: true}, method(rw.rpc))
				if err == nil {
					if err = s.SendMsg(rw.req); err == nil {
						if err = s.CloseSend(); err == nil {
							err = s.RecvMsg(&emptypb.Empty{})
						}
					}
				}
				denied := status.Code(err) == codes.PermissionDenied
				want := rw.roles != "*" && !strings.Contains(rw.roles, letter)
				if denied != want {
					t.Errorf("%s as %s: %v; want denied %v", rw.rpc, role, err, want)
				}
			})
		}
	}
	for _, name := range Served() {
		if !covered[name] {
			t.Errorf("the role matrix does not cover %s", name)
		}
	}
}

package zeebe

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The RPCs protocol 8.3's generated Go types lack, StreamActivatedJobs
// (job push, Zeebe 8.4) and UpdateJobTimeout (8.5), are served through
// grpc.UnknownServiceHandler: their request messages are decoded with
// dynamicpb over descriptors built here, field by field, after the
// gateway protocol description the Camunda 8 JavaScript SDK ships
// (@camunda8/sdk 8.8.13, dist/proto/zeebe.proto, package
// gateway_protocol; the package is licensed Apache-2.0, by Camunda: its
// licence is PROTOCOL-LICENSE beside this file). Only names and field
// numbers are taken from it; the file is not copied.
// StreamActivatedJobs answers pb.ActivatedJob, whose 8.3 fields are the
// same; UpdateJobTimeoutResponse is an empty message.

// streamBatch is how many jobs one wake-up of a job stream activates.
const streamBatch = 8

// dynamicMessages are the descriptors of the two request messages.
type dynamicMessages struct {
	stream, updateTimeout protoreflect.MessageDescriptor
}

var buildDynamic = sync.OnceValues(func() (dynamicMessages, error) {
	str := func(name string, n int32, label descriptorpb.FieldDescriptorProto_Label, typ descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(n),
			Label: label.Enum(), Type: typ.Enum()}
	}
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL, descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	fd := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("gobpm/zeebe_dynamic.proto"),
		Package: proto.String("gateway_protocol"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("StreamActivatedJobsRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				str("type", 1, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING),
				str("worker", 2, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING),
				str("timeout", 3, opt, descriptorpb.FieldDescriptorProto_TYPE_INT64),
				str("fetchVariable", 5, rep, descriptorpb.FieldDescriptorProto_TYPE_STRING),
				str("tenantIds", 6, rep, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			},
		}, {
			Name: proto.String("UpdateJobTimeoutRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				str("jobKey", 1, opt, descriptorpb.FieldDescriptorProto_TYPE_INT64),
				str("timeout", 2, opt, descriptorpb.FieldDescriptorProto_TYPE_INT64),
				// optional uint64 in the protocol: the same on the wire.
				str("operationReference", 3, opt, descriptorpb.FieldDescriptorProto_TYPE_UINT64),
			},
		}},
	}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		return dynamicMessages{}, fmt.Errorf("zeebe: build the dynamic descriptors: %w", err)
	}
	ms := f.Messages()
	return dynamicMessages{stream: ms.ByName("StreamActivatedJobsRequest"), updateTimeout: ms.ByName("UpdateJobTimeoutRequest")}, nil
})

// serveDynamic serves the RPCs the generated service lacks; the stream
// interceptor (streamGuard) has admitted the call already, so an RPC
// missing from rpcs never gets here.
func (g *Gateway) serveDynamic(_ any, ss grpc.ServerStream) error {
	full, _ := grpc.MethodFromServerStream(ss)
	name := strings.TrimPrefix(full, "/"+ServiceName+"/")
	msgs, err := buildDynamic()
	if err != nil {
		return g.statusOf(ss.Context(), name, err)
	}
	switch name {
	case "StreamActivatedJobs":
		in := dynamicpb.NewMessage(msgs.stream)
		if err := ss.RecvMsg(in); err != nil {
			return fmt.Errorf("zeebe: read StreamActivatedJobs: %w", err)
		}
		return g.streamActivatedJobs(ss, in)
	case "UpdateJobTimeout":
		in := dynamicpb.NewMessage(msgs.updateTimeout)
		if err := ss.RecvMsg(in); err != nil {
			return fmt.Errorf("zeebe: read UpdateJobTimeout: %w", err)
		}
		key, timeout := intField(in, "jobKey"), intField(in, "timeout")
		if err := g.updateJobTimeout(ss.Context(), key, timeout); err != nil {
			return err
		}
		return ss.SendMsg(&emptypb.Empty{})
	}
	return status.Errorf(codes.Unimplemented, "gobpm does not serve %s", full)
}

// intField is an int64 field of a dynamic message.
func intField(m *dynamicpb.Message, name protoreflect.Name) int64 {
	return m.Get(m.Descriptor().Fields().ByName(name)).Int()
}

// stringsField is a repeated string field of a dynamic message.
func stringsField(m *dynamicpb.Message, name protoreflect.Name) []string {
	l := m.Get(m.Descriptor().Fields().ByName(name)).List()
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Get(i).String()
	}
	return out
}

// streamActivatedJobs pushes jobs of a type to the worker for as long as
// the stream stays open: each wake-up of the runtime's job notification
// (the commit that makes a job activatable) activates what is there and
// sends it, with no polling interval. A worker that disconnects keeps
// what it was sent until the jobs' timeout ends; then they are
// activatable again.
func (g *Gateway) streamActivatedJobs(ss grpc.ServerStream, in *dynamicpb.Message) error {
	ctx := ss.Context()
	svc, err := g.svc()
	if err != nil {
		return err
	}
	fields := in.Descriptor().Fields()
	typ := in.Get(fields.ByName("type")).String()
	worker := in.Get(fields.ByName("worker")).String()
	req, err := activation(ctx, typ, worker, intField(in, "timeout"), stringsField(in, "fetchVariable"))
	if err != nil {
		return err
	}
	for _, t := range stringsField(in, "tenantIds") {
		if t != "" && t != defaultTenant {
			return invalid("tenant '%s' is unknown: gobpm has no tenants, only '%s'", t, defaultTenant)
		}
	}
	req.MaxJobs = streamBatch
	req.RequestTimeout = runtime.MaxRequestTimeout
	release, err := g.hold(ctx)
	if err != nil {
		return err
	}
	defer release()
	for {
		asked := time.Now()
		jobs, err := svc.ActivateC8Jobs(ctx, req)
		if err == nil && len(jobs) == 0 && ctx.Err() == nil && time.Since(asked) < req.RequestTimeout/2 {
			// A long poll answers nothing before its timeout only when the
			// runtime drains: end the stream, the worker reconnects.
			return status.Error(codes.Unavailable, "the server is shutting down: reconnect")
		}
		if err != nil {
			if ctx.Err() != nil {
				return status.FromContextError(ctx.Err()).Err()
			}
			return g.statusOf(ctx, "StreamActivatedJobs", err)
		}
		for _, j := range jobs {
			aj, err := activatedJob(j)
			if err != nil {
				return g.statusOf(ctx, "StreamActivatedJobs", err)
			}
			if err := ss.SendMsg(aj); err != nil {
				return fmt.Errorf("zeebe: push job %d: %w", j.Key, err)
			}
			g.log.DebugContext(ctx, "gRPC job pushed", "job_key", j.Key, "job_type", j.Type)
		}
		if err := ctx.Err(); err != nil {
			return status.FromContextError(err).Err()
		}
	}
}

// defaultTenant is the one tenant id gobpm accepts.
const defaultTenant = "<default>"

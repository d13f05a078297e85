package zeebe

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/runtime"
)

// eventKey is the key a publication, broadcast or variable write answers:
// gobpm keeps no entity for them, so it is a fresh random number that
// names nothing (Camunda 8 clients only log it).
func eventKey() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return int64(binary.BigEndian.Uint64(b[:])>>12) + 1<<50
}

// PublishMessage publishes a message: it correlates with the oldest
// subscription waiting for its name and correlation key, or starts
// instances at message start events. With a timeToLive (ms) the message
// is also kept that long for a subscription that opens later; a messageId
// makes it unique among the live kept messages of its name and
// correlation key (a duplicate is ALREADY_EXISTS). As in Zeebe, nothing
// waiting is no error.
func (g *Gateway) PublishMessage(ctx context.Context, in *pb.PublishMessageRequest) (*pb.PublishMessageResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, invalid("Expected to publish a message with a name, but none was given")
	}
	if in.TimeToLive < 0 || time.Duration(in.TimeToLive) > runtime.MaxMessageTTL/time.Millisecond {
		return nil, invalid("Expected to publish a message with a timeToLive from 0 to %d ms, but it was %d", runtime.MaxMessageTTL.Milliseconds(), in.TimeToLive)
	}
	vars, err := document(in.Variables, "variables")
	if err != nil {
		return nil, err
	}
	_, err = svc.PublishMessage(ctx, runtime.Publication{Name: in.Name, CorrelationKey: in.CorrelationKey, Variables: vars,
		TimeToLive: time.Duration(in.TimeToLive) * time.Millisecond, MessageID: in.MessageId})
	switch {
	case errors.Is(err, runtime.ErrDuplicateMessage):
		return nil, status.Errorf(codes.AlreadyExists, "Expected to publish a new message with id '%s', but a message with that id was already published", in.MessageId)
	case in.TimeToLive == 0 && runtime.ErrorCode(err) == runtime.ENOTFOUND:
		// Nothing waits and nothing keeps it: dropped, as Zeebe drops it.
	case err != nil:
		return nil, g.statusOf(ctx, "PublishMessage", err)
	}
	return &pb.PublishMessageResponse{Key: eventKey()}, nil
}

// BroadcastSignal fires a signal at every instance waiting for it and
// starts instances at signal start events.
func (g *Gateway) BroadcastSignal(ctx context.Context, in *pb.BroadcastSignalRequest) (*pb.BroadcastSignalResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	if in.SignalName == "" {
		return nil, invalid("Expected to broadcast a signal with a name, but none was given")
	}
	vars, err := document(in.Variables, "variables")
	if err != nil {
		return nil, err
	}
	if _, err := svc.BroadcastSignal(ctx, in.SignalName, vars); err != nil {
		return nil, g.statusOf(ctx, "BroadcastSignal", err)
	}
	return &pb.BroadcastSignalResponse{Key: eventKey()}, nil
}

package zeebe

import (
	"context"
	"crypto/rand"
	"encoding/binary"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
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
// instances at message start events. As in Zeebe, nothing waiting is no
// error. timeToLive and messageId are accepted; this build correlates
// at once and does not keep a message nobody waits for (see
// docs/zeebe-grpc.md).
func (g *Gateway) PublishMessage(ctx context.Context, in *pb.PublishMessageRequest) (*pb.PublishMessageResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, invalid("Expected to publish a message with a name, but none was given")
	}
	if in.TimeToLive < 0 {
		return nil, invalid("Expected to publish a message with a timeToLive of at least 0, but it was %d", in.TimeToLive)
	}
	vars, err := document(in.Variables, "variables")
	if err != nil {
		return nil, err
	}
	if _, err := svc.PublishC8Message(ctx, in.Name, in.CorrelationKey, vars); err != nil {
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

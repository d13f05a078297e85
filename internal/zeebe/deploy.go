package zeebe

import (
	"context"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// deploying prepares ctx for a deployment as /api/v1 does: the deployer
// recorded with it, and a guard that checks the deploy permission on each
// process and decision the models declare and what they reach by name.
func (g *Gateway) deploying(ctx context.Context) context.Context {
	c := callerOf(ctx)
	if g.opts.Credentials != nil {
		ctx = runtime.WithDeployer(ctx, g.opts.Credentials.Deployer(c))
	}
	if c.Via == "none" || c.Unrestricted() {
		return ctx
	}
	return runtime.WithDeployGuard(ctx, func(plan runtime.DeploymentPlan) error {
		for _, k := range plan.Processes {
			if !c.Allowed(auth.PermDeploy, auth.KindProcess, k) {
				return status.Errorf(codes.PermissionDenied, "the caller may not deploy process '%s'", k)
			}
		}
		for _, k := range plan.Decisions {
			if !c.Allowed(auth.PermDeploy, auth.KindDecision, k) {
				return status.Errorf(codes.PermissionDenied, "the caller may not deploy decision '%s'", k)
			}
		}
		if err := c.ReachRefused(plan.Reaches); err != nil {
			return status.Error(codes.PermissionDenied, err.Error())
		}
		return nil
	})
}

// deploy deploys files atomically.
func (g *Gateway) deploy(ctx context.Context, method string, files []runtime.File) (runtime.C8Deployment, error) {
	svc, err := g.svc()
	if err != nil {
		return runtime.C8Deployment{}, err
	}
	if len(files) == 0 {
		return runtime.C8Deployment{}, invalid("Expected to deploy at least one resource, but none given")
	}
	d, err := svc.DeployC8(g.deploying(ctx), files)
	if err != nil {
		return runtime.C8Deployment{}, g.statusOf(ctx, method, err)
	}
	return d, nil
}

// DeployResource deploys BPMN and DMN resources in one atomic deployment.
// Decisions answer key 0: gobpm keeps no numeric keys for decisions.
func (g *Gateway) DeployResource(ctx context.Context, in *pb.DeployResourceRequest) (*pb.DeployResourceResponse, error) {
	files := make([]runtime.File, 0, len(in.Resources))
	for _, r := range in.Resources {
		files = append(files, runtime.File{Name: r.Name, Content: r.Content})
	}
	d, err := g.deploy(ctx, "DeployResource", files)
	if err != nil {
		return nil, err
	}
	out := &pb.DeployResourceResponse{Key: d.Key}
	for _, p := range d.Processes {
		out.Deployments = append(out.Deployments, &pb.Deployment{Metadata: &pb.Deployment_Process{Process: processMetadata(p)}})
	}
	for _, dec := range d.Decisions {
		out.Deployments = append(out.Deployments, &pb.Deployment{Metadata: &pb.Deployment_Decision{Decision: &pb.DecisionMetadata{
			DmnDecisionId: dec.Key, DmnDecisionName: dec.Name, Version: int32(dec.Version)}}})
	}
	return out, nil
}

// DeployProcess is the deprecated deployment of processes only, served
// because older clients still send it.
//
//lint:ignore SA1019 the gateway serves the deprecated RPC for older clients
func (g *Gateway) DeployProcess(ctx context.Context, in *pb.DeployProcessRequest) (*pb.DeployProcessResponse, error) {
	files := make([]runtime.File, 0, len(in.Processes))
	for _, p := range in.Processes {
		files = append(files, runtime.File{Name: p.Name, Content: p.Definition})
	}
	d, err := g.deploy(ctx, "DeployProcess", files)
	if err != nil {
		return nil, err
	}
	out := &pb.DeployProcessResponse{Key: d.Key} //lint:ignore SA1019 the deprecated RPC's answer
	for _, p := range d.Processes {
		out.Processes = append(out.Processes, processMetadata(p))
	}
	return out, nil
}

// processMetadata is a deployed process version as the protocol names it.
func processMetadata(p runtime.C8Process) *pb.ProcessMetadata {
	return &pb.ProcessMetadata{BpmnProcessId: p.ProcessID, Version: int32(p.Version), ProcessDefinitionKey: p.Key, ResourceName: p.ResourceName}
}

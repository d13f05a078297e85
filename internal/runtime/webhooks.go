package runtime

import (
	"context"
	"fmt"
	"sort"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// WebhookRoute is a webhook the latest version of a process serves.
type WebhookRoute struct {
	// Process is the version that declares it.
	Process DefinitionRef
	// Node is the start, catch or boundary event that declares it.
	Node *bpmn.Node
}

// Webhook returns the node's webhook.
func (w WebhookRoute) Webhook() *bpmn.Webhook { return w.Node.Webhook }

// Webhooks returns the webhooks served now, by path: those of the latest
// version of every process. It is derived from the store on every call,
// so a deployment on another node sharing the store, or before a restart,
// counts as one on this node; the parsed definitions are cached.
func (r *Runtime) Webhooks(ctx context.Context) (map[string]WebhookRoute, error) {
	recs, err := r.store.LatestDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: webhooks: %w", err)
	}
	out := map[string]WebhookRoute{}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
	for _, rec := range recs {
		proc, ref, err := r.process(ctx, rec.Key, rec.Version)
		if err != nil {
			return nil, fmt.Errorf("runtime: webhooks of %s version %d: %w", rec.Key, rec.Version, err)
		}
		for _, n := range proc.Webhooks() {
			if _, dup := out[n.Webhook.Path]; !dup { // Deploy refuses duplicates; the first key wins if two nodes raced
				out[n.Webhook.Path] = WebhookRoute{Process: ref, Node: n}
			}
		}
	}
	return out, nil
}

// StartWebhook starts an instance of route's process version at route's
// start event — its none start, or the message start event the webhook
// sits on — with vars as the root variables. A webhook on a message start
// starts its own process only: it never correlates the message to waits
// of other processes, as a publication of that message name would.
func (r *Runtime) StartWebhook(ctx context.Context, route WebhookRoute, vars map[string]any) (InstanceView, error) {
	if route.Node == nil || route.Node.Kind != bpmn.KindStartEvent {
		return InstanceView{}, &Error{Code: EINVALID, Message: "runtime: a webhook start needs a start event"}
	}
	proc, ref, err := r.process(ctx, route.Process.Key, route.Process.Version)
	if err != nil {
		return InstanceView{}, unreadableDefinition(route.Process.Key, route.Process.Version, err)
	}
	node := ""
	if route.Node.Event != nil {
		node = route.Node.ID // an event start; "" is the none start
	}
	var view InstanceView
	if _, err := r.startAt(ctx, proc, ref, "", node, vars, nil, &view); err != nil {
		return InstanceView{}, err
	}
	return view, nil
}

// checkWebhookPaths returns a problem for every webhook path of the
// processes about to be deployed that another process serves already, or
// that two of them (or two events of one) declare. A new version of a
// process replaces its own paths, so they do not count.
func (r *Runtime) checkWebhookPaths(ctx context.Context, parsed map[string]*bpmn.Process, owner map[string]string) ([]Problem, error) {
	keys := make([]string, 0, len(parsed))
	for k, p := range parsed {
		if len(p.Webhooks()) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	sort.Strings(keys)
	served, err := r.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	type claim struct{ key, node string }
	claimed := map[string]claim{}
	var problems []Problem
	for _, k := range keys {
		for _, n := range parsed[k].Webhooks() {
			path := n.Webhook.Path
			if c, dup := claimed[path]; dup {
				problems = append(problems, Problem{Resource: owner[k], Element: n.ID, Rule: "duplicate-webhook-path",
					Detail: fmt.Sprintf("webhook path %q of %s in process %q is also declared by %s in process %q", path, n.ID, k, c.node, c.key)})
				continue
			}
			claimed[path] = claim{key: k, node: n.ID}
			if s, ok := served[path]; ok && s.Process.Key != k {
				if _, replaced := parsed[s.Process.Key]; replaced {
					continue // that process is redeployed too; its new version is checked above
				}
				problems = append(problems, Problem{Resource: owner[k], Element: n.ID, Rule: "duplicate-webhook-path",
					Detail: fmt.Sprintf("webhook path %q of %s in process %q is served by %s in process %q (version %d)", path, n.ID, k, s.Node.ID, s.Process.Key, s.Process.Version)})
			}
		}
	}
	return problems, nil
}

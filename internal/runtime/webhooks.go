package runtime

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

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

// webhookTTL is how long Webhooks answers from its cache: a deployment on
// another node sharing the store is served here within it.
const webhookTTL = time.Second

// webhookCache keeps the last answer of Webhooks: a webhook request, which
// anyone may send before its authentication is checked, then costs no
// store read. A deployment through this runtime empties it.
type webhookCache struct {
	mu     sync.Mutex
	routes map[string]WebhookRoute
	until  time.Time
	gen    uint64 // deployments seen; a read that raced one is not kept
}

// invalidate empties the cache (a deployment).
func (c *webhookCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.routes, c.gen = nil, c.gen+1
}

// Webhooks returns the webhooks served now, by path: those of the latest
// version of every process. It is derived from the store, so a deployment
// on another node sharing the store, or before a restart, counts as one
// on this node — within webhookTTL, for which an answer is kept (a
// deployment on this node shows at once). The map is shared: read it only.
func (r *Runtime) Webhooks(ctx context.Context) (map[string]WebhookRoute, error) {
	c := &r.webhooks
	c.mu.Lock()
	routes, gen := c.routes, c.gen
	fresh := routes != nil && time.Now().Before(c.until)
	c.mu.Unlock()
	if fresh {
		return routes, nil
	}
	routes, err := r.servedWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.routes, c.until = routes, time.Now().Add(webhookTTL)
	}
	c.mu.Unlock()
	return routes, nil
}

// servedWebhooks reads the webhooks served from the store.
func (r *Runtime) servedWebhooks(ctx context.Context) (map[string]WebhookRoute, error) {
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
	served, err := r.servedWebhooks(ctx) // not the cache: a path another node just took counts
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

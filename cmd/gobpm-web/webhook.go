package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/gobpm/gobpm/internal/connector/httpjson"
	"github.com/gobpm/gobpm/internal/connector/webhook"
)

// WebhookConfig configures the inbound webhooks at /webhooks/{path}.
type WebhookConfig struct {
	// MaxBody caps a webhook request's body in bytes (--webhook-max-body).
	MaxBody int64
	// Rate and Burst are each path's token bucket (--webhook-rate
	// requests a second, --webhook-burst); a negative rate: no limit.
	Rate  float64
	Burst int
}

// register adds the webhook flags to fs.
func (c *WebhookConfig) register(fs *flag.FlagSet, getenv func(string) string) error {
	maxBody := int64(webhook.DefaultMaxBodyBytes)
	if v := getenv("GOBPM_WEBHOOK_MAX_BODY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("GOBPM_WEBHOOK_MAX_BODY=%q: want a positive number of bytes", v)
		}
		maxBody = n
	}
	rate := webhook.DefaultRate
	if v := getenv("GOBPM_WEBHOOK_RATE"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("GOBPM_WEBHOOK_RATE=%q: want requests a second (negative: no limit)", v)
		}
		rate = n
	}
	burst := webhook.DefaultBurst
	if v := getenv("GOBPM_WEBHOOK_BURST"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("GOBPM_WEBHOOK_BURST=%q: want a positive number of requests", v)
		}
		burst = n
	}
	fs.Int64Var(&c.MaxBody, "webhook-max-body", maxBody, "inbound webhooks: the largest request body, in bytes; larger ones get 413 (GOBPM_WEBHOOK_MAX_BODY)")
	fs.Float64Var(&c.Rate, "webhook-rate", rate, "inbound webhooks: requests a second each path accepts on average; more get 429 with Retry-After (negative: no limit) (GOBPM_WEBHOOK_RATE)")
	fs.IntVar(&c.Burst, "webhook-burst", burst, "inbound webhooks: requests each path accepts at once before --webhook-rate applies (GOBPM_WEBHOOK_BURST)")
	return nil
}

// check refuses a non-positive body cap or burst and a zero rate.
func (c *WebhookConfig) check() error {
	switch {
	case c.MaxBody <= 0:
		return fmt.Errorf("--webhook-max-body %d: want a positive number of bytes", c.MaxBody)
	case c.Burst <= 0:
		return fmt.Errorf("--webhook-burst %d: want a positive number of requests", c.Burst)
	case c.Rate == 0:
		return fmt.Errorf("--webhook-rate 0: want requests a second (negative: no limit)")
	}
	return nil
}

// webhooks returns the handler of /webhooks/{path}, with the secrets of
// --secrets-file and GOBPM_SECRET_* (as the REST connector reads them).
func (m *Main) webhooks() (*webhook.Handler, error) {
	var file map[string]string
	if f := m.cfg.Connector.SecretsFile; f != "" {
		var err error
		if file, err = httpjson.ReadSecretsFile(f); err != nil {
			return nil, err
		}
	}
	c := m.cfg.Webhook
	return webhook.New(m.rt, webhook.Options{Logger: m.log, Secrets: httpjson.NewSecrets(m.cfg.Connector.Getenv, file),
		MaxBodyBytes: c.MaxBody, Rate: c.Rate, Burst: c.Burst})
}

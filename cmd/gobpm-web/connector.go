package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/connector/httpjson"
)

// ConnectorConfig configures the built-in REST connector worker.
type ConnectorConfig struct {
	// Enabled runs the worker (--http-connector, on by default).
	Enabled bool
	// AllowHosts are the loopback, private or link-local hosts calls may
	// reach anyway (--connector-allow-hosts, comma-separated patterns).
	AllowHosts []string
	// MaxBody caps request and response bodies in bytes.
	MaxBody int64
	// SecretsFile holds NAME=value lines (--secrets-file).
	SecretsFile string
	// Getenv reads the GOBPM_SECRET_* variables; ParseConfig sets it to
	// the environment it was given.
	Getenv func(string) string
	// allow is the flag's text until check splits it into AllowHosts.
	allow string
}

// register adds the connector flags to fs.
func (c *ConnectorConfig) register(fs *flag.FlagSet, getenv func(string) string) error {
	c.Getenv = getenv
	on := getenv("GOBPM_HTTP_CONNECTOR") != "false"
	fs.BoolVar(&c.Enabled, "http-connector", on, "run the REST connector (job types io.camunda:http-json:1 and gobpm:http) inside the server; --http-connector=false leaves those jobs to external workers (GOBPM_HTTP_CONNECTOR=false)")
	fs.StringVar(&c.allow, "connector-allow-hosts", getenv("GOBPM_CONNECTOR_ALLOW_HOSTS"), "REST connector: loopback, private or link-local hosts calls may reach anyway, comma-separated: names, *.domain, addresses, networks such as 10.0.0.0/8 (GOBPM_CONNECTOR_ALLOW_HOSTS)")
	maxBody := int64(httpjson.DefaultMaxBodyBytes)
	if v := getenv("GOBPM_CONNECTOR_MAX_BODY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("GOBPM_CONNECTOR_MAX_BODY=%q: want a positive number of bytes", v)
		}
		maxBody = n
	}
	fs.Int64Var(&c.MaxBody, "connector-max-body", maxBody, "REST connector: the largest request or response body, in bytes (GOBPM_CONNECTOR_MAX_BODY)")
	fs.StringVar(&c.SecretsFile, "secrets-file", getenv("GOBPM_SECRETS_FILE"), "REST connector: a file of NAME=value lines for {{secrets.NAME}}; GOBPM_SECRET_NAME in the environment wins (GOBPM_SECRETS_FILE)")
	return nil
}

// check splits the allow patterns and refuses a non-positive body cap.
func (c *ConnectorConfig) check() error {
	c.AllowHosts = nil
	for _, p := range strings.Split(c.allow, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.AllowHosts = append(c.AllowHosts, p)
		}
	}
	if c.MaxBody <= 0 {
		return fmt.Errorf("--connector-max-body %d: want a positive number of bytes", c.MaxBody)
	}
	return nil
}

// startConnector starts the REST connector worker when it is enabled.
func (m *Main) startConnector(ctx context.Context) error {
	c := m.cfg.Connector
	if !c.Enabled {
		return nil
	}
	var file map[string]string
	if c.SecretsFile != "" {
		var err error
		if file, err = httpjson.ReadSecretsFile(c.SecretsFile); err != nil {
			return err
		}
	}
	w, err := httpjson.New(m.rt, httpjson.Options{Logger: m.log, Secrets: httpjson.NewSecrets(c.Getenv, file),
		AllowHosts: c.AllowHosts, MaxBodyBytes: c.MaxBody})
	if err != nil {
		return err
	}
	w.Start(ctx)
	m.connector = w
	return nil
}

package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// webhookRESTModel starts at a signed webhook and calls url with the
// body's item, keeping the answer in r: a model with no worker at all.
func webhookRESTModel(url string) []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:process id="hooked" isExecutable="true">
    <bpmn:startEvent id="start">
      <bpmn:extensionElements>
        <zeebe:properties>
          <zeebe:property name="inbound.type" value="io.camunda:webhook:1" />
          <zeebe:property name="inbound.context" value="orders" />
          <zeebe:property name="inbound.method" value="post" />
          <zeebe:property name="inbound.shouldValidateHmac" value="enabled" />
          <zeebe:property name="inbound.hmacSecret" value="{{secrets.HOOK}}" />
          <zeebe:property name="inbound.hmacHeader" value="X-Signature" />
          <zeebe:property name="inbound.hmacAlgorithm" value="sha_256" />
          <zeebe:property name="resultExpression" value="={item: request.body.item}" />
        </zeebe:properties>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:serviceTask id="call">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="io.camunda:http-json:1" retries="1" />
        <zeebe:ioMapping>
          <zeebe:input source="GET" target="method" />
          <zeebe:input source="=&quot;%s/items/&quot; + item" target="url" />
        </zeebe:ioMapping>
        <zeebe:taskHeaders><zeebe:header key="resultVariable" value="r" /></zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`, url))
}

// TestWebhookEndToEnd runs a model with only a webhook start and an HTTP
// task through the real server: a signed request starts it, the task calls
// the local service, a wrong signature starts nothing, and the HMAC secret
// (from the secrets file) is in no answer, log line or database file.
func TestWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	const secret = "hook-e2e-5Zp1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"path": r.URL.Path})
	}))
	defer srv.Close()
	dir := t.TempDir()
	secrets := filepath.Join(dir, "secrets")
	if err := os.WriteFile(secrets, []byte("HOOK="+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "gobpm.db")
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", db, "--connector-allow-hosts", "127.0.0.1", "--secrets-file", secrets},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	m := NewMain(cfg, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	if code, dep := post(t, base+"/api/v1/deployments", "application/xml", webhookRESTModel(srv.URL)); code != http.StatusCreated {
		t.Fatalf("deploy: %d %v", code, dep)
	}
	var answers bytes.Buffer
	hook := func(sig string) (int, map[string]any) {
		body := []byte(`{"item":"i-7"}`)
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/orders", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Signature", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		answers.Write(raw)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return resp.StatusCode, out
	}
	if code, out := hook("sha256=00"); code != http.StatusUnauthorized {
		t.Fatalf("wrong signature: %d %v", code, out)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(`{"item":"i-7"}`))
	code, out := hook("sha256=" + hex.EncodeToString(mac.Sum(nil)))
	if code != http.StatusOK {
		t.Fatalf("signed: %d %v", code, out)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, v := get(t, fmt.Sprintf("%s/api/v1/instances/%s", base, out["processInstanceKey"]))
		if v["status"] == "completed" {
			r := v["variables"].(map[string]any)["r"].(map[string]any)
			if p := r["body"].(map[string]any)["path"]; p != "/items/i-7" {
				t.Fatalf("the task called %v", p)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance: %v\nlog:\n%s", v, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, list := get(t, base+"/api/v1/instances?processKey=hooked")
	if items, _ := list["items"].([]any); len(items) != 1 {
		t.Fatalf("instances = %v, want only the signed request's", list)
	}
	m.Close()
	files, _ := filepath.Glob(db + "*")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
	if strings.Contains(answers.String()+logs.String(), secret) {
		t.Error("an answer or the log holds the secret")
	}
}

func TestWebhookFlags(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Webhook.MaxBody != 1<<20 || cfg.Webhook.Rate != 10 || cfg.Webhook.Burst != 20 {
		t.Fatalf("defaults = %+v", cfg.Webhook)
	}
	cfg, err = ParseConfig([]string{"--addr", "127.0.0.1:0", "--webhook-max-body", "4096", "--webhook-rate", "-1"}, func(k string) string {
		return map[string]string{"GOBPM_WEBHOOK_BURST": "5"}[k]
	}, io.Discard)
	if err != nil || cfg.Webhook.MaxBody != 4096 || cfg.Webhook.Rate != -1 || cfg.Webhook.Burst != 5 {
		t.Fatalf("set = %+v, %v", cfg.Webhook, err)
	}
	for _, bad := range [][]string{{"--webhook-max-body", "0"}, {"--webhook-rate", "0"}, {"--webhook-burst", "0"}} {
		if _, err := ParseConfig(append([]string{"--addr", "127.0.0.1:0"}, bad...), none, io.Discard); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

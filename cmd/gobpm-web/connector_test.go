package main

import (
	"bytes"
	"context"
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

// restModel is a process whose REST connector task calls url with a
// bearer token and a header from secrets, keeping the answer in r.
func restModel(id, url string) []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:process id="%s" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="call">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="io.camunda:http-json:1" retries="1" />
        <zeebe:ioMapping>
          <zeebe:input source="POST" target="method" />
          <zeebe:input source="%s?key={{secrets.KEY}}" target="url" />
          <zeebe:input source="bearer" target="authentication.type" />
          <zeebe:input source="{{secrets.TOKEN}}" target="authentication.token" />
          <zeebe:input source="={&quot;X-Key&quot;: &quot;{{secrets.KEY}}&quot;}" target="headers" />
        </zeebe:ioMapping>
        <zeebe:taskHeaders><zeebe:header key="resultVariable" value="r" /></zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`, id, url))
}

// TestRESTConnectorEndToEnd runs REST connector tasks through the real
// server with no worker: secrets from the environment and a secrets file
// reach the called service, and appear in no API answer, log line or
// database file.
func TestRESTConnectorEndToEnd(t *testing.T) {
	t.Parallel()
	const token, key = "tok-e2e-7Hq2", "key-e2e-91xv"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r.Header.Get("Authorization") + " " + r.Header.Get("X-Key") + " " + r.URL.Query().Get("key")
		if r.URL.Path == "/fail" {
			http.Error(w, "refused "+seen, http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"seen": seen})
	}))
	defer srv.Close()
	dir := t.TempDir()
	secrets := filepath.Join(dir, "secrets")
	if err := os.WriteFile(secrets, []byte("# test\nKEY="+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GOBPM_SECRET_TOKEN": token}
	db := filepath.Join(dir, "gobpm.db")
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", db, "--connector-allow-hosts", "127.0.0.1", "--secrets-file", secrets},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	m := NewMain(cfg, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			m.Close()
		}
	}()
	base := "http://" + m.Addr()
	var answers bytes.Buffer
	fetch := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answers.Write(b)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	runOne := func(id, url string) map[string]any {
		t.Helper()
		if code, dep := post(t, base+"/api/v1/deployments", "application/xml", restModel(id, url)); code != http.StatusCreated {
			t.Fatalf("deploy: %d %v", code, dep)
		}
		code, inst := post(t, base+"/api/v1/processes/"+id+"/instances", "application/json", []byte(`{}`))
		if code != http.StatusCreated {
			t.Fatalf("start: %d %v", code, inst)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			v := fetch(fmt.Sprintf("/api/v1/instances/%s", inst["id"]))
			if v["status"] != "running" {
				h := fetch(fmt.Sprintf("/api/v1/instances/%s/history", inst["id"]))
				// The history shows the call with its URL as written: the
				// placeholder, never the value (checked with the answers below).
				hb, _ := json.Marshal(h)
				if !bytes.Contains(hb, []byte(`"kind":"connector-call"`)) || !bytes.Contains(hb, []byte("key={{secrets.KEY}}")) {
					t.Fatalf("history without the call: %s", hb)
				}
				fetch(fmt.Sprintf("/api/v1/instances/%s/variables", inst["id"]))
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("instance still running: %v\nlog:\n%s", v, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ok := runOne("calls", srv.URL+"/ok")
	if ok["status"] != "completed" {
		t.Fatalf("instance = %v", ok)
	}
	r := ok["variables"].(map[string]any)["r"].(map[string]any)
	if seen := r["body"].(map[string]any)["seen"]; seen != "Bearer *** *** ***" {
		t.Fatalf("the service saw %q (as recorded)", seen)
	}
	failed := runOne("fails", srv.URL+"/fail")
	if failed["status"] != "failed" || !strings.Contains(fmt.Sprint(failed["incidents"]), "HTTP 403 Forbidden: refused Bearer *** *** ***") {
		t.Fatalf("instance = %v", failed)
	}
	m.Close()
	closed = true
	if !strings.Contains(logs.String(), `"msg":"http connector call"`) {
		t.Fatalf("no call in the log:\n%s", logs.String())
	}
	files, _ := filepath.Glob(db + "*")
	for _, secret := range []string{token, key} {
		if strings.Contains(answers.String(), secret) {
			t.Errorf("an API answer holds %q", secret)
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds %q", secret)
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s holds %q", filepath.Base(f), secret)
			}
		}
	}
}

func TestConnectorFlags(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--connector-allow-hosts", " 10.0.0.0/8, *.internal ,", "--connector-max-body", "2048"},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Connector.Enabled || fmt.Sprint(cfg.Connector.AllowHosts) != "[10.0.0.0/8 *.internal]" || cfg.Connector.MaxBody != 2048 {
		t.Fatalf("connector = %+v", cfg.Connector)
	}
	cfg, err = ParseConfig([]string{"--addr", "127.0.0.1:0"}, func(k string) string {
		return map[string]string{"GOBPM_HTTP_CONNECTOR": "false"}[k]
	}, io.Discard)
	if err != nil || cfg.Connector.Enabled {
		t.Fatalf("GOBPM_HTTP_CONNECTOR=false: %+v, %v", cfg.Connector, err)
	}
	if _, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--connector-max-body", "0"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("--connector-max-body 0 was accepted")
	}
}

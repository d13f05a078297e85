package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

func TestParseSecrets(t *testing.T) {
	t.Parallel()
	got, err := ParseSecrets([]byte("# comment\n\nTOKEN=abc=def\n  API_KEY = \"quoted value\" \nweb.hook-1='x'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got["TOKEN"] != "abc=def" || got["API_KEY"] != "quoted value" || got["web.hook-1"] != "x" || len(got) != 3 {
		t.Fatalf("secrets = %v", got)
	}
	_, err = ParseSecrets([]byte("GOOD=1\nno equals sign here-supersecret\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "supersecret") {
		t.Fatalf("err = %v", err)
	}
	s := NewSecrets(func(k string) string {
		if k == "GOBPM_SECRET_TOKEN" {
			return "from-env"
		}
		return ""
	}, got)
	if v, _ := s.lookup("TOKEN"); v != "from-env" {
		t.Errorf("the environment does not win: %q", v)
	}
	if v, _ := s.lookup("API_KEY"); v != "quoted value" {
		t.Errorf("API_KEY = %q", v)
	}
}

// TestSecretsRedacted calls with secrets in the URL, a header and the
// authentication against a server that echoes them back, and once more
// against one that fails quoting them: the secret values appear nowhere
// gobpm records anything — variables, incidents, the history's connector
// calls, the log, the database.
func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	const token, key = "tok-Zq81-secret", "key/with spaces"
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", echo)
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad credentials: "+r.Header.Get("Authorization")+" "+r.URL.RawQuery, http.StatusForbidden)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	file, err := ParseSecrets([]byte("QKEY=" + key + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "GOBPM_SECRET_TOKEN" {
			return token
		}
		return ""
	}
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"}, Secrets: NewSecrets(env, file)})
	inputs := func(path string) [][2]string {
		return [][2]string{{"POST", "method"}, {srv.URL + path + "?k={{secrets.QKEY}}", "url"},
			{"bearer", "authentication.type"}, {"{{secrets.TOKEN}}", "authentication.token"},
			{`={"X-Test": "{{secrets.TOKEN}}"}`, "headers"}, {`={"sent": "{{ secrets.TOKEN }}"}`, "body"}}
	}
	v := b.run(t, task{retries: 1, inputs: inputs("/echo"), headers: [][2]string{{"resultVariable", "r"},
		{"resultExpression", `={auth: body.authorization}`}}}, nil)
	completed(t, v)
	e := body(t, v, "r")
	if e["authorization"] != "Bearer ***" || e["header"] != "***" {
		t.Fatalf("echo = %v", e)
	}
	if v.Variables["auth"] != "Bearer ***" {
		t.Fatalf("auth = %v", v.Variables["auth"])
	}
	f := b.run(t, task{retries: 1, inputs: inputs("/fail")}, nil)
	msg := incident(t, f)
	if !strings.Contains(msg, "HTTP 403") || !strings.Contains(msg, "Bearer ***") {
		t.Fatalf("incident = %q", msg)
	}
	missing := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL + "/echo", "url"},
		{"bearer", "authentication.type"}, {"{{secrets.NOPE}}", "authentication.token"}}}, nil)
	if msg := incident(t, missing); !strings.Contains(msg, "secret NOPE is not set") {
		t.Fatalf("incident = %q", msg)
	}
	var history []any
	for _, id := range []runtime.InstanceID{v.ID, f.ID, missing.ID} {
		facts, err := b.rt.History(context.Background(), id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, fact := range facts {
			history = append(history, fact.Kind, string(fact.Detail))
		}
	}
	if calls := append(b.callFacts(t, v.ID), b.callFacts(t, f.ID)...); len(calls) != 2 ||
		!strings.Contains(fmt.Sprint(calls[0]["url"]), "?k={{secrets.QKEY}}") || !strings.Contains(fmt.Sprint(calls[1]["url"]), "?k={{secrets.QKEY}}") {
		t.Fatalf("connector calls in the history = %v", calls)
	}
	vars, _ := json.Marshal([]any{v.Variables, f.Variables, msg, history})
	logs := b.log.String()
	if !strings.Contains(logs, "http connector call") || !strings.Contains(logs, "{{secrets.QKEY}}") {
		t.Fatalf("log has no call lines with the URL as written:\n%s", logs)
	}
	b.rt.Close()
	b.w.Stop()
	dbFiles, _ := filepath.Glob(filepath.Join(b.dir, "gobpm.db*"))
	for _, secret := range []string{token, key, "key%2Fwith"} {
		if bytes.Contains(vars, []byte(secret)) {
			t.Errorf("variables or incidents hold %q", secret)
		}
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q", secret)
		}
		for _, p := range dbFiles {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s holds %q", filepath.Base(p), secret)
			}
		}
	}
	if len(dbFiles) == 0 {
		t.Fatal("no database files")
	}
}

package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gobpm/gobpm/client"
)

// An export answer cut before its last line is ErrExportCut with the
// cursor of the last complete fact line; a whole one returns its last
// line, and its fact lines reach the writer as sent.
func TestExportHistoryCut(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"whole": `{"id":"a-1","cursor":"c1"}` + "\n" + `{"id":"a-2","cursor":"c2"}` + "\n" + `{"cursor":"c2","more":true}` + "\n",
		"cut":   `{"id":"a-1","cursor":"c1"}` + "\n" + `{"id":"a-2","cur`,
		"ce":    `{"specversion":"1.0","id":"a-1","gobpmcursor":"c1"}` + "\n",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write([]byte(bodies[r.URL.Query().Get("cursor")]))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out bytes.Buffer
	end, err := c.ExportHistory(ctx, client.ExportFilter{Cursor: "whole"}, &out)
	if err != nil || end != (client.ExportEnd{Cursor: "c2", More: true}) || out.String() != `{"id":"a-1","cursor":"c1"}`+"\n"+`{"id":"a-2","cursor":"c2"}`+"\n" {
		t.Fatalf("whole: %+v %v %q", end, err, out.String())
	}
	out.Reset()
	end, err = c.ExportHistory(ctx, client.ExportFilter{Cursor: "cut"}, &out)
	if !errors.Is(err, client.ErrExportCut) || end.Cursor != "c1" || out.String() != `{"id":"a-1","cursor":"c1"}`+"\n" {
		t.Fatalf("cut: %+v %v %q", end, err, out.String())
	}
	end, err = c.ExportHistory(ctx, client.ExportFilter{Cursor: "ce"}, &out)
	if !errors.Is(err, client.ErrExportCut) || end.Cursor != "c1" {
		t.Fatalf("cloudevents cut after a line: %+v %v", end, err)
	}
}

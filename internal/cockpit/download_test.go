package cockpit_test

import (
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"
)

// The process page offers its version's XML as a download: an attachment
// named by the key and version, the deployed XML as it was deployed; the
// modeler names its download of the edited model after them too. A bad
// download parameter is a clear 400.
func TestProcessXMLDownload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	link := b.mustGet("/processes/review").testid("download-xml")
	if link.AttrOr("href", "") != "/processes/review/versions/1/xml?download=1" || link.AttrOr("download", "") != "review-v1.bpmn" || strings.TrimSpace(link.Text()) != "Download XML" {
		t.Fatalf("the process page's download link: %v", link.Nodes)
	}
	res, err := b.client.Get(b.srv.URL + "/processes/review/versions/1/xml?download=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("download: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if kind, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err != nil || kind != "attachment" || params["filename"] != "review-v1.bpmn" {
		t.Errorf("Content-Disposition %q: %s %v %v", res.Header.Get("Content-Disposition"), kind, params, err)
	}
	if string(body) != string(fixture(t, "review.bpmn")) {
		t.Errorf("the download is the deployed XML:\n%s", body)
	}
	if shown := b.mustGet("/processes/review/versions/1/xml"); shown.body != string(body) {
		t.Errorf("the XML link still shows the same XML")
	}
	plain, err := b.client.Get(b.srv.URL + "/processes/review/versions/1/xml")
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	if cd := plain.Header.Get("Content-Disposition"); cd != "" {
		t.Errorf("the XML link is no attachment: %q", cd)
	}
	if p := b.get("/processes/review/versions/1/xml?download=yes"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "download must be 1") {
		t.Errorf("bad download parameter: %d\n%s", p.status, p.body)
	}
	if p := b.get("/processes/review/versions/9/xml?download=1"); p.status != http.StatusNotFound {
		t.Errorf("unknown version: %d", p.status)
	}
	m := b.mustGet("/processes/review/edit")
	if m.testid("modeler").AttrOr("data-filename", "") != "review-v1-edited.bpmn" || m.testid("modeler-download").Length() != 1 {
		t.Errorf("the modeler names its download: %s", m.body)
	}
}

// A key with letters beyond ASCII keeps them in the file name.
func TestProcessXMLDownloadName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	model := strings.ReplaceAll(string(fixture(t, "review.bpmn")), `"review"`, `"läufer"`)
	if p := b.upload(map[string][]byte{"läufer.bpmn": []byte(model)}); p.status != http.StatusOK {
		t.Fatalf("deploy: %d\n%s", p.status, p.body)
	}
	res, err := b.client.Get(b.srv.URL + "/processes/l%C3%A4ufer/versions/1/xml?download=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err != nil || params["filename"] != "läufer-v1.bpmn" {
		t.Errorf("Content-Disposition %q: %v %v", res.Header.Get("Content-Disposition"), params, err)
	}
}

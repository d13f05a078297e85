package api

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// The history export (GET /api/v1/history/export, docs/history-export.md):
// facts of every instance the caller may read, in commit order, as NDJSON
// (one JSON object a line), read from the store a page at a time and
// flushed after each page, so a response of any length holds one page in
// memory. The last line is {"cursor": …, "more": …}; a response without it
// was cut off (an error, the server stopping), and each fact's own cursor
// tells where to resume.

// Limits of the history export.
const (
	// defaultExportLimit and maxExportLimit bound the facts of one
	// response (limit).
	defaultExportLimit = 100_000
	maxExportLimit     = 1_000_000
	// exportPage is how many facts one store read returns.
	exportPage = 1_000
	// ndjsonType is the media type of the export.
	ndjsonType = "application/x-ndjson"
)

// Formats of the export's lines.
const (
	exportNDJSON      = "ndjson"
	exportCloudEvents = "cloudevents"
)

// historyExporter is what the export needs of the service; *runtime.Runtime
// implements it.
type historyExporter interface {
	HistoryExport(ctx context.Context, f runtime.ExportFilter) ([]runtime.ExportedFact, error)
}

// ExportedFact is one line of the export in its ndjson format: the fact as
// the instance history renders it, with its instance, process and cursor.
type ExportedFact struct {
	// ID names the fact for good: "<instance id>-<seq>".
	ID string `json:"id"`
	// Cursor resumes the export after this fact.
	Cursor         string `json:"cursor"`
	InstanceID     string `json:"instanceId"`
	ProcessKey     string `json:"processKey"`
	ProcessVersion int    `json:"processVersion"`
	Fact
}

// CloudEvent is one line of the export in its cloudevents format: a
// CloudEvents 1.0 event in the structured JSON form.
type CloudEvent struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Time            string `json:"time"`
	Subject         string `json:"subject"`
	DataContentType string `json:"datacontenttype"`
	// Cursor is the extension attribute gobpmcursor: it resumes the
	// export after this event.
	Cursor string         `json:"gobpmcursor"`
	Data   CloudEventData `json:"data"`
}

// CloudEventData is a CloudEvent's data: the fact without what the
// event's own attributes carry.
type CloudEventData struct {
	InstanceID     string          `json:"instanceId"`
	ProcessKey     string          `json:"processKey"`
	ProcessVersion int             `json:"processVersion"`
	Seq            int64           `json:"seq"`
	Kind           string          `json:"kind"`
	NodeID         *string         `json:"nodeId"`
	ScopePath      string          `json:"scopePath"`
	Detail         json.RawMessage `json:"detail"`
}

// ExportEnd is the export's last line.
type ExportEnd struct {
	// Cursor resumes the export after the last fact of the response (the
	// cursor asked for, or the start, when it had none).
	Cursor string `json:"cursor"`
	// More says whether facts after the cursor matched when the response
	// ended: ask again with the cursor (false: the export is up to date;
	// new facts may come later).
	More bool `json:"more"`
}

// exportRequest is a parsed export request.
type exportRequest struct {
	filter runtime.ExportFilter
	limit  int
	format string
}

// parseExport reads the export's query parameters; a bad one is a 400
// naming it.
func parseExport(r *http.Request) (exportRequest, error) {
	var req exportRequest
	q := r.URL.Query()
	var err error
	if req.filter.From, err = queryTime(r, "from"); err != nil {
		return req, err
	}
	if req.filter.To, err = queryTime(r, "to"); err != nil {
		return req, err
	}
	if !req.filter.From.IsZero() && !req.filter.To.IsZero() && !req.filter.To.After(req.filter.From) {
		return req, errorf(kindInvalidRequest, "to", "query parameter to must be after from")
	}
	if s := q.Get("cursor"); s != "" {
		if req.filter.After, err = decodeExportCursor(s); err != nil {
			return req, errorf(kindInvalidRequest, "cursor", "query parameter cursor is not a cursor this export returned")
		}
	}
	limit, err := queryInt(r, "limit", defaultExportLimit, 1, maxExportLimit)
	if err != nil {
		return req, err
	}
	req.limit = int(limit)
	for _, v := range q["process"] {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k == "" {
				return req, errorf(kindInvalidRequest, "process", "query parameter process must name process keys (comma-separated or repeated), not "+strconv.Quote(v))
			}
			req.filter.ProcessKeys = append(req.filter.ProcessKeys, k)
		}
	}
	switch req.format = q.Get("format"); req.format {
	case "":
		req.format = exportNDJSON
	case exportNDJSON, exportCloudEvents:
	default:
		return req, errorf(kindInvalidRequest, "format", "query parameter format must be ndjson or cloudevents, not "+strconv.Quote(req.format))
	}
	return req, nil
}

// exportCursorPrefix starts every cursor (its format's version).
const exportCursorPrefix = "h1."

// encodeExportCursor returns the opaque cursor of a position.
func encodeExportCursor(p runtime.ExportPosition) string {
	return exportCursorPrefix + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d", p.Major, p.Minor))
}

// decodeExportCursor reads a cursor encodeExportCursor wrote.
func decodeExportCursor(s string) (runtime.ExportPosition, error) {
	rest, ok := strings.CutPrefix(s, exportCursorPrefix)
	if !ok {
		return runtime.ExportPosition{}, errors.New("unknown cursor format")
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return runtime.ExportPosition{}, err
	}
	major, minor, ok := strings.Cut(string(b), ".")
	if !ok {
		return runtime.ExportPosition{}, errors.New("malformed cursor")
	}
	var p runtime.ExportPosition
	if p.Major, err = strconv.ParseInt(major, 10, 64); err != nil || p.Major < 0 {
		return runtime.ExportPosition{}, errors.New("malformed cursor")
	}
	if p.Minor, err = strconv.ParseInt(minor, 10, 64); err != nil || p.Minor < 0 {
		return runtime.ExportPosition{}, errors.New("malformed cursor")
	}
	return p, nil
}

// historyExport handles GET /api/v1/history/export?from=&to=&cursor=&limit=&process=&format=.
// The caller gets the facts of the processes it may read only: the read
// filters them in the store (readPatterns), so no other fact is read out
// of it. The rows go out a page at a time; a client that goes away ends the
// read at the next page.
func (s *server) historyExport(w http.ResponseWriter, r *http.Request) error {
	req, err := parseExport(r)
	if err != nil {
		return err
	}
	exp, ok := s.svc.(historyExporter)
	if !ok {
		return errors.New("api: the service has no history export")
	}
	req.filter.ProcessKeyPatterns = readPatterns(r, auth.KindProcess)
	ctx := r.Context()
	f := req.filter
	f.Limit = min(exportPage, req.limit)
	page, err := exp.HistoryExport(ctx, f)
	if err != nil {
		return err // nothing sent yet: a problem+json answer
	}
	w.Header().Set("Content-Type", ndjsonType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bw := bufio.NewWriterSize(w, 32<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	sent := 0
	for {
		for _, e := range page {
			if err := enc.Encode(exportLine(e, req.format)); err != nil {
				return s.exportCut(r, err)
			}
		}
		sent += len(page)
		if len(page) > 0 {
			f.After = page[len(page)-1].Position
		}
		if err := bw.Flush(); err != nil {
			return s.exportCut(r, err)
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return s.exportCut(r, err)
		}
		if len(page) < f.Limit {
			break // the store had no more
		}
		if sent >= req.limit {
			break
		}
		f.Limit = min(exportPage, req.limit-sent)
		if page, err = exp.HistoryExport(ctx, f); err != nil {
			return s.exportCut(r, err)
		}
	}
	more := false
	if sent >= req.limit {
		// Full: whether anything follows takes one more fact's read.
		probe := f
		probe.Limit = 1
		next, err := exp.HistoryExport(ctx, probe)
		if err != nil {
			return s.exportCut(r, err)
		}
		more = len(next) > 0
	}
	if err := enc.Encode(ExportEnd{Cursor: encodeExportCursor(f.After), More: more}); err != nil {
		return s.exportCut(r, err)
	}
	if err := bw.Flush(); err != nil {
		return s.exportCut(r, err)
	}
	return nil
}

// exportCut ends an export whose answer has begun: it can no longer become
// a problem, so the response ends without its last line (which tells the
// client it is incomplete) and the error is logged here, unless the client
// went away.
func (s *server) exportCut(r *http.Request, err error) error {
	if r.Context().Err() == nil {
		s.log.ErrorContext(r.Context(), "history export cut off", keyError, err, keyRequestID, RequestID(r.Context()))
	}
	return nil
}

// exportLine renders one fact in the export's format.
func exportLine(e runtime.ExportedFact, format string) any {
	id := fmt.Sprintf("%s-%d", e.InstanceID, e.Fact.Seq)
	fact := toFact(e.Fact)
	cursor := encodeExportCursor(e.Position)
	if format == exportCloudEvents {
		return CloudEvent{
			SpecVersion: "1.0", ID: id, Source: "/gobpm/processes/" + e.ProcessKey, Type: "io.gobpm.history." + e.Fact.Kind,
			Time: fact.At, Subject: string(e.InstanceID), DataContentType: "application/json", Cursor: cursor,
			Data: CloudEventData{
				InstanceID: string(e.InstanceID), ProcessKey: e.ProcessKey, ProcessVersion: e.ProcessVersion,
				Seq: fact.Seq, Kind: fact.Kind, NodeID: fact.NodeID, ScopePath: fact.ScopePath, Detail: fact.Detail,
			},
		}
	}
	return ExportedFact{ID: id, Cursor: cursor, InstanceID: string(e.InstanceID), ProcessKey: e.ProcessKey, ProcessVersion: e.ProcessVersion, Fact: fact}
}

package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ExportFilter selects the history facts ExportHistory streams (GET
// /api/v1/history/export; see docs/history-export.md).
type ExportFilter struct {
	// From and To bound the facts' times, [From, To); zero: unbounded.
	From, To time.Time
	// Processes keeps the facts of these process keys' instances only.
	Processes []string
	// Cursor continues after a previous answer ("": from the first fact).
	Cursor string
	// Limit caps the facts of one answer (0: the server's default).
	Limit int
	// CloudEvents asks for CloudEvents 1.0 lines instead of gobpm's.
	CloudEvents bool
}

// ExportEnd is the last line of an export answer.
type ExportEnd struct {
	// Cursor continues after the last fact sent.
	Cursor string `json:"cursor"`
	// More says the server holds more facts now.
	More bool `json:"more"`
}

// ErrExportCut is an export answer that ended before its last line (the
// connection broke): ExportHistory's ExportEnd then holds the cursor of
// the last complete fact line, which resumes after it.
var ErrExportCut = errors.New("client: the history export ended before its last line")

// ExportHistory streams one answer of the history export: every fact line
// goes to w as the server sent it (one JSON object per line), and the last
// line is returned. A pull of everything calls it again with the returned
// cursor while More holds.
func (c *Client) ExportHistory(ctx context.Context, f ExportFilter, w io.Writer) (ExportEnd, error) {
	q := url.Values{}
	if !f.From.IsZero() {
		q.Set("from", f.From.Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.Format(time.RFC3339Nano))
	}
	for _, p := range f.Processes {
		q.Add("process", p)
	}
	if f.Cursor != "" {
		q.Set("cursor", f.Cursor)
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.CloudEvents {
		q.Set("format", "cloudevents")
	}
	req := request{method: http.MethodGet, path: "/history/export"}
	u := c.base + "/api/v1" + req.path + "?" + q.Encode()
	hr, err := c.httpRequest(ctx, req, u, nil, "")
	if err != nil {
		return ExportEnd{}, err
	}
	hr.Header.Set("Accept", "application/x-ndjson, application/problem+json")
	resp, err := c.hc.Do(hr)
	if err != nil {
		return ExportEnd{}, fmt.Errorf("client: GET %s: %w", req.path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return ExportEnd{}, problemOf(resp.StatusCode, data)
	}
	last := ExportEnd{Cursor: f.Cursor}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 && (err == nil || err == io.EOF) {
			var l struct {
				ID          string `json:"id"`
				Cursor      string `json:"cursor"`
				GobpmCursor string `json:"gobpmcursor"`
				More        *bool  `json:"more"`
			}
			if jerr := json.Unmarshal(line, &l); jerr != nil {
				if err == io.EOF { // a last line cut in the middle
					return last, ErrExportCut
				}
				return last, fmt.Errorf("client: GET %s: a line that is not JSON: %w", req.path, jerr)
			}
			if l.ID == "" && l.More != nil {
				return ExportEnd{Cursor: l.Cursor, More: *l.More}, nil
			}
			if _, werr := w.Write(bytes.TrimRight(line, "\n")); werr != nil {
				return last, werr
			}
			if _, werr := w.Write([]byte{'\n'}); werr != nil {
				return last, werr
			}
			if l.GobpmCursor != "" {
				last.Cursor = l.GobpmCursor
			} else {
				last.Cursor = l.Cursor
			}
		}
		switch {
		case err == io.EOF:
			return last, ErrExportCut
		case err != nil:
			return last, fmt.Errorf("%w: %w", ErrExportCut, err)
		}
	}
}

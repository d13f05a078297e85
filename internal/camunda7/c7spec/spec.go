// Package c7spec checks engine-rest exchanges against the OpenAPI document
// Camunda publishes for Camunda 7's REST API: the part gobpm serves, kept
// beside this file with its licence (see README.md). Only tests import it.
//
// A request that succeeded must be one Camunda 7 documents, and the answer
// must have a status, content type and body shape Camunda 7 documents for
// the operation. Where Camunda documents no such error status (gobpm's 401,
// 403, 429 and 500 of the authentication and limits every route shares),
// the body must still be Camunda 7's ExceptionDto. Dates must be in
// Camunda 7's format, yyyy-MM-dd'T'HH:mm:ss.SSSZ, the one the Java client
// parses.
package c7spec

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// File names the document, for messages.
const File = "internal/camunda7/c7spec/engine-rest-7.14.json"

//go:embed engine-rest-7.14.json
var document []byte

// DateLayout is Camunda 7's date format in Go's notation.
const DateLayout = "2006-01-02T15:04:05.000-0700"

// Spec is the loaded document. Its methods are safe for concurrent use.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
	mu     sync.Mutex
	seen   map[string]bool
}

// Load parses and validates the document, read as Camunda 7 serves it
// (asServed).
func Load() (*Spec, error) {
	doc, err := openapi3.NewLoader().LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	doc.SetStringFormatValidator("date-time", openapi3.NewCallbackValidator(func(s string) error {
		if _, err := time.Parse(DateLayout, s); err != nil {
			return fmt.Errorf("%q is not in Camunda 7's date format yyyy-MM-dd'T'HH:mm:ss.SSSZ", s)
		}
		return nil
	}))
	asServed(doc)
	// Camunda's examples are not all valid against its own schemas; the
	// schemas are what is checked.
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	return &Spec{doc: doc, router: router, seen: map[string]bool{}}, nil
}

// asServed corrects the three places where Camunda 7's document departs
// from what Camunda 7 itself sends and takes, each as the document's own
// text or Camunda's behaviour says:
//   - Camunda 7 answers null for a field it has no value for (Jackson's
//     default), which the document does not mark nullable: every schema is
//     taken as nullable, and a non-null value must still match it.
//   - VariableValueDto.value is typed "object", but its description says
//     it "differs depending on the variable's type" (a String is a JSON
//     string, an Integer a number): it takes any JSON value.
//   - MultiFormDeploymentDto names one part "data", but its description
//     says the resources may come in parts of other names (the Modeler
//     names each by its file name): other parts are allowed.
func asServed(doc *openapi3.T) {
	done := map[*openapi3.Schema]bool{}
	for _, ref := range doc.Components.Schemas {
		allowNull(ref, done)
	}
	if v := doc.Components.Schemas["VariableValueDto"]; v != nil {
		v.Value.Properties["value"].Value.Type = nil
	}
	if d := doc.Components.Schemas["MultiFormDeploymentDto"]; d != nil {
		yes := true
		d.Value.AdditionalProperties = openapi3.AdditionalProperties{Has: &yes}
	}
}

// allowNull marks a schema and every schema in it nullable.
func allowNull(ref *openapi3.SchemaRef, done map[*openapi3.Schema]bool) {
	if ref == nil || ref.Value == nil || done[ref.Value] {
		return
	}
	s := ref.Value
	done[s] = true
	s.Nullable = true
	for _, p := range s.Properties {
		allowNull(p, done)
	}
	allowNull(s.Items, done)
	allowNull(s.AdditionalProperties.Schema, done)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, r := range group {
			allowNull(r, done)
		}
	}
}

// Documents reports whether the document describes the operation (path
// relative to /engine-rest, in the document's {param} notation).
func (s *Spec) Documents(method, path string) bool {
	item := s.doc.Paths.Find(path)
	return item != nil && item.GetOperation(method) != nil
}

// Check checks one exchange: req (its URL path under /engine-rest, its
// body readable; Check restores it), and the answer's status, header and
// body. It returns what departs from the document.
func (s *Spec) Check(req *http.Request, status int, header http.Header, body []byte) []error {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
		defer func() { req.Body = io.NopCloser(bytes.NewReader(reqBody)) }()
	}
	where := req.Method + " " + req.URL.String()
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			return []error{fmt.Errorf("%s: finding the route in Camunda 7's document: %w", where, err)}
		}
		// Not an operation Camunda 7 has: gobpm must not serve it.
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return []error{fmt.Errorf("%s is no Camunda 7 operation but answered %d", where, status)}
		}
		return nil
	}
	s.mu.Lock()
	s.seen[route.Method+" "+route.Path] = true
	s.mu.Unlock()

	var problems []error
	opts := s.options()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			problems = append(problems, fmt.Errorf("%s: answered %d to a request Camunda 7 does not document: %w", where, status, err))
		}
	}
	if route.Operation.Responses.Status(status) == nil {
		if status < 400 {
			return append(problems, fmt.Errorf("%s: status %d is not one Camunda 7 documents (body %s)", where, status, body))
		}
		return append(problems, s.checkException(where, status, header, body)...)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header, Options: opts}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		problems = append(problems, fmt.Errorf("%s: answer %d departs from Camunda 7's document: %w\nbody: %s", where, status, err, body))
	}
	return problems
}

func (s *Spec) options() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus:   true,
		MultiError:              true,
		SkipSettingDefaults:     true,
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: s.doc.GetSchemaValidationOptions(),
	}
}

// checkException checks an error answer Camunda 7 does not document for
// the operation: Camunda 7's ExceptionDto as application/json.
func (s *Spec) checkException(where string, status int, header http.Header, body []byte) []error {
	if ct := header.Get("Content-Type"); ct != "application/json" {
		return []error{fmt.Errorf("%s: %d with Content-Type %q, want application/json", where, status, ct)}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []error{fmt.Errorf("%s: %d body is no JSON: %s", where, status, body)}
	}
	if err := s.doc.Components.Schemas["ExceptionDto"].Value.VisitJSON(v, s.doc.GetSchemaValidationOptions()...); err != nil {
		return []error{fmt.Errorf("%s: %d body is no Camunda 7 ExceptionDto: %w", where, status, err)}
	}
	if m, _ := v.(map[string]any); m["type"] == nil || m["message"] == nil {
		return []error{fmt.Errorf("%s: %d body %s lacks type or message", where, status, body)}
	}
	return nil
}

// Unchecked returns the operations of served ("METHOD /path" relative to
// /engine-rest) that no exchange Check saw has reached.
func (s *Spec) Unchecked(served []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range served {
		if !s.seen[r] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// Relative turns a mounted route pattern ("/engine-rest/task/{id}") into
// the document's path ("/task/{id}"), or reports that it is none.
func Relative(route string) (string, bool) {
	rest, ok := strings.CutPrefix(route, "/engine-rest/")
	if !ok {
		return "", false
	}
	return "/" + rest, true
}

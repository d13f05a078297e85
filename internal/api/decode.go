package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// contentTypeJSON is the media type of every successful JSON answer.
const contentTypeJSON = "application/json"

// writeJSON answers v as JSON with status. v is encoded before anything is
// written, so an encoding failure still becomes a clean 500 problem.
func (s *server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("encode response: %w", err))
		return
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readJSONObject reads a size-capped JSON request body that must be one JSON
// object, and returns its members undecoded so each field can be type-checked
// on its own (and reported by name). Unknown members are ignored; an empty
// body is an empty object. Numbers stay exact: decode members with
// decodeNumbers.
func (s *server) readJSONObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, error) {
	return s.readJSONObjectUpTo(w, r, s.opts.MaxJSONBytes)
}

// readJSONObjectUpTo is readJSONObject with a cap of limit bytes.
func (s *server) readJSONObjectUpTo(w http.ResponseWriter, r *http.Request, limit int64) (map[string]json.RawMessage, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != contentTypeJSON && !strings.HasSuffix(mt, "+json")) {
			return nil, errorf(kindUnsupportedMediaType, "", fmt.Sprintf("Content-Type %q is not supported; send application/json", ct))
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, bodyReadError(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if !utf8.Valid(body) {
		// encoding/json would replace the bad bytes with U+FFFD: the
		// variables stored would not be the ones sent.
		return nil, errorf(kindMalformedJSON, "", fmt.Sprintf("the body is not valid UTF-8 (first bad byte at offset %d)", firstInvalidUTF8(body)))
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); trimmed[0] != '{' {
		// Not an object: say whether it is JSON at all.
		var v any
		if err := decodeNumbers(body, &v); err != nil {
			return nil, malformed(err)
		}
		return nil, errorf(kindInvalidRequest, "", "the request body must be a JSON object")
	}
	// Unmarshal checks the whole body (trailing data included), so the
	// members' raw values are valid JSON (memberValue relies on it).
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, malformed(err)
	}
	if err := refuseHugeNumbers(body); err != nil {
		return nil, err
	}
	return members, nil
}

// refuseHugeNumbers refuses a body holding a number beyond the range of a
// float64 (±1.8e308) anywhere, variables included, with a 400 naming its
// field: such a number has no value in a model's expressions and a client
// that reads it back as a float64 gets ±Inf or the float maximum, never
// what it sent. Numbers within range stay exact (json.Number), large
// integers too. A scan of the raw bytes finds them; only a body that has
// one is decoded again, to name the field.
func refuseHugeNumbers(body []byte) error {
	tok, found := firstHugeNumber(body)
	if !found {
		return nil
	}
	var v any
	field := ""
	if decodeNumbers(body, &v) == nil {
		field = hugeNumberPath(v, "")
	}
	shown := tok
	if len(shown) > 40 {
		shown = shown[:20] + "…" + shown[len(shown)-10:]
	}
	what := "a number"
	if field != "" {
		what = field
	}
	return errorf(kindInvalidRequest, field, fmt.Sprintf("%s is %s, beyond the range of a 64-bit floating-point number (±1.8e308): send a smaller number, or the value as a string", what, shown))
}

// firstHugeNumber scans JSON text for the first number token (outside
// strings) beyond float64's range.
func firstHugeNumber(body []byte) (string, bool) {
	inString, escaped := false, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || ('0' <= c && c <= '9'):
			j := i
			for j < len(body) && strings.IndexByte("0123456789+-.eE", body[j]) >= 0 {
				j++
			}
			if tok := string(body[i:j]); hugeNumber(tok) {
				return tok, true
			}
			i = j - 1
		}
	}
	return "", false
}

// hugeNumber reports whether a JSON number is beyond float64's range. One
// without an exponent needs more than 309 digits to be.
func hugeNumber(tok string) bool {
	if len(tok) <= 309 && !strings.ContainsAny(tok, "eE") {
		return false
	}
	f, err := strconv.ParseFloat(tok, 64)
	return err != nil && math.IsInf(f, 0)
}

// hugeNumberPath returns the path ("variables.items[2].price") of a
// number beyond float64's range in a decoded value below path, "" if none;
// object members are visited in name order, so the answer is stable.
func hugeNumberPath(v any, path string) string {
	switch v := v.(type) {
	case json.Number:
		if hugeNumber(string(v)) {
			return path
		}
	case []any:
		for i, e := range v {
			if p := hugeNumberPath(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if p := hugeNumberPath(v[k], sub); p != "" {
				return p
			}
		}
	}
	return ""
}

// firstInvalidUTF8 returns the offset of the first byte of b that does not
// start a valid UTF-8 sequence (len(b) when there is none).
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// decodeNumbers decodes exactly one JSON value from data into v, keeping
// numbers as json.Number; trailing data is an error.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// memberValue decodes the raw value of a member of a checked object as
// decodeNumbers would, without a decoder for the common scalars: a string,
// a number (as json.Number) or a boolean.
func memberValue(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 {
		switch c := raw[0]; {
		case c == '"':
			var s string
			err := json.Unmarshal(raw, &s)
			return s, err
		case c == '-' || ('0' <= c && c <= '9'):
			if json.Valid(raw) {
				return json.Number(raw), nil
			}
		case string(raw) == "true":
			return true, nil
		case string(raw) == "false":
			return false, nil
		}
	}
	var v any
	err := decodeNumbers(raw, &v)
	return v, err
}

func malformed(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errorf(kindMalformedJSON, "", fmt.Sprintf("the request body is not valid JSON: %v (at byte %d)", se, se.Offset))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errorf(kindMalformedJSON, "", "the request body is not valid JSON: unexpected end of input")
	}
	return errorf(kindMalformedJSON, "", "the request body is not valid JSON: "+err.Error())
}

// bodyReadError classifies a failure to read a request body: over the size
// cap → 413, anything else (client went away, bad chunking) → 400.
func bodyReadError(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return me
	}
	return errorf(kindInvalidRequest, "", "reading the request body failed: "+err.Error())
}

// isNull reports whether a member is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// objectField decodes an optional member that must be a JSON object.
func objectField(members map[string]json.RawMessage, name string) (map[string]any, error) {
	raw := members[name]
	if isNull(raw) {
		return map[string]any{}, nil
	}
	var v any
	if err := decodeNumbers(raw, &v); err != nil {
		return nil, malformed(err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a JSON object, not %s", name, jsonKind(v)))
	}
	return m, nil
}

// stringField decodes an optional member that must be a string.
func stringField(members map[string]json.RawMessage, name string) (string, error) {
	raw := members[name]
	if isNull(raw) {
		return "", nil
	}
	v, err := memberValue(raw)
	if err != nil {
		return "", malformed(err)
	}
	str, ok := v.(string)
	if !ok {
		return "", errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a string, not %s", name, jsonKind(v)))
	}
	return str, nil
}

// positiveIntField decodes an optional member that must be an integer ≥ 1;
// absent or null gives 0.
func positiveIntField(members map[string]json.RawMessage, name string) (int, error) {
	raw := members[name]
	if isNull(raw) {
		return 0, nil
	}
	v, err := memberValue(raw)
	if err != nil {
		return 0, malformed(err)
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a positive integer, not %s", name, jsonKind(v)))
	}
	n, err := strconv.Atoi(num.String())
	if err != nil || n < 1 {
		return 0, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a positive integer, not %s", name, num))
	}
	return n, nil
}

// jsonKind names the JSON type of a decoded value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// queryInt parses an optional integer query parameter within [lo, hi]; def if absent.
func queryInt(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, errorf(kindInvalidRequest, name, fmt.Sprintf("query parameter %s must be an integer from %d to %d, not %q", name, lo, hi, s))
	}
	return n, nil
}

// queryBool parses an optional boolean query parameter; def if absent.
func queryBool(r *http.Request, name string, def bool) (bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errorf(kindInvalidRequest, name, fmt.Sprintf("query parameter %s must be true or false, not %q", name, s))
	}
	return b, nil
}

// formatBytes renders a byte count for humans (16 MiB, 1 MiB, 300 bytes).
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	default:
		return strconv.FormatInt(n, 10) + " bytes"
	}
}

// requiredStringField decodes a member that must be a non-blank string.
func requiredStringField(members map[string]json.RawMessage, name string) (string, error) {
	s, err := stringField(members, name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", errorf(kindInvalidRequest, name, name+" is required")
	}
	return s, nil
}

// intField decodes an optional member that must be an integer within
// [lo, hi]. It reports whether the member was present (absent or null is
// not).
func intField(members map[string]json.RawMessage, name string, lo, hi int64) (int64, bool, error) {
	raw := members[name]
	if isNull(raw) {
		return 0, false, nil
	}
	v, err := memberValue(raw)
	if err != nil {
		return 0, false, malformed(err)
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, false, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be an integer from %d to %d, not %s", name, lo, hi, jsonKind(v)))
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, false, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be an integer from %d to %d, not %s", name, lo, hi, num))
	}
	return n, true, nil
}

// requiredIntField is intField for a member that must be present.
func requiredIntField(members map[string]json.RawMessage, name string, lo, hi int64) (int64, error) {
	n, ok, err := intField(members, name, lo, hi)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errorf(kindInvalidRequest, name, fmt.Sprintf("%s is required (an integer from %d to %d)", name, lo, hi))
	}
	return n, nil
}

// millis converts a validated millisecond count to a duration.
func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// boolField decodes an optional member that must be a boolean; absent or
// null gives false.
func boolField(members map[string]json.RawMessage, name string) (bool, error) {
	raw := members[name]
	if isNull(raw) {
		return false, nil
	}
	v, err := memberValue(raw)
	if err != nil {
		return false, malformed(err)
	}
	b, ok := v.(bool)
	if !ok {
		return false, errorf(kindInvalidRequest, name, fmt.Sprintf("%s must be a boolean, not %s", name, jsonKind(v)))
	}
	return b, nil
}

package camunda7

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFromTypedMapMapsEveryType(t *testing.T) {
	t.Parallel()
	var in map[string]TypedValue
	body := `{
		"s": {"type":"String","value":"x"},
		"b": {"type":"Boolean","value":true},
		"i": {"type":"Integer","value":42},
		"l": {"type":"Long","value":9007199254740993},
		"d": {"type":"Double","value":1.5},
		"n": {"type":"Null","value":null},
		"dt": {"type":"Date","value":"2026-12-02T10:00:00.000+0100"},
		"j": {"type":"Json","value":"{\"a\":[1,2]}"},
		"o": {"type":"Object","value":"{\"k\":\"v\"}","valueInfo":{"objectTypeName":"java.util.HashMap","serializationDataFormat":"application/json"}},
		"u": {"value":"untyped"}
	}`
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	got, err := FromTypedMap(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"s": "x", "b": true, "i": json.Number("42"), "l": json.Number("9007199254740993"), "d": json.Number("1.5"), "n": nil,
		"dt": "2026-12-02T09:00:00.000+0000", "j": map[string]any{"a": []any{json.Number("1"), json.Number("2")}},
		"o": map[string]any{"k": "v"}, "u": "untyped",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestFromTypedMapRefusesNamingTheVariable(t *testing.T) {
	t.Parallel()
	for name, tv := range map[string]TypedValue{
		"file":    {Type: "File", Value: json.RawMessage(`"x"`)},
		"big":     {Type: "Integer", Value: json.RawMessage(`3000000000`)},
		"frac":    {Type: "Long", Value: json.RawMessage(`1.5`)},
		"javaObj": {Type: "Object", Value: json.RawMessage(`"rO0AB"`), ValueInfo: map[string]any{"serializationDataFormat": "application/x-java-serialized-object"}},
		"badJson": {Type: "Json", Value: json.RawMessage(`"{nope"`)},
		"badDate": {Type: "Date", Value: json.RawMessage(`"yesterday"`)},
	} {
		_, err := FromTypedMap(map[string]TypedValue{name: tv})
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Type != TypeInvalidRequest || !strings.Contains(e.Msg, "'"+name+"'") {
			t.Errorf("%s: got %v, want a 400 InvalidRequestException naming it", name, err)
		}
	}
}

func TestToTypedMapRendersCamundaTypes(t *testing.T) {
	t.Parallel()
	got, err := ToTypedMap(map[string]any{
		"s": "x", "b": false, "i": json.Number("7"), "l": json.Number("5000000000"), "d": json.Number("2.25"), "n": nil,
		"j": map[string]any{"a": json.Number("1")},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":{"type":"Boolean","value":false,"valueInfo":{}},"d":{"type":"Double","value":2.25,"valueInfo":{}},` +
		`"i":{"type":"Integer","value":7,"valueInfo":{}},"j":{"type":"Json","value":"{\"a\":1}","valueInfo":{}},` +
		`"l":{"type":"Long","value":5000000000,"valueInfo":{}},"n":{"type":"Null","value":null,"valueInfo":{}},` +
		`"s":{"type":"String","value":"x","valueInfo":{}}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestDatesRoundTripInCamundaFormat(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	if s := FormatDate(at); s != "2026-12-02T10:00:00.000+0000" {
		t.Errorf("FormatDate = %s", s)
	}
	for _, s := range []string{"2026-12-02T10:00:00.000+0000", "2026-12-02T11:00:00.000+0100", "2026-12-02T10:00:00Z"} {
		got, err := ParseDate(s)
		if err != nil || !got.Equal(at) {
			t.Errorf("ParseDate(%s) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseDate("02.12.2026"); err == nil {
		t.Error("ParseDate accepted 02.12.2026")
	}
}

func TestWriteErrorAnswersCamundaBodyAsPlainJSON(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	WriteError(rec, invalid("bad"))
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want exactly application/json", ct)
	}
	if rec.status != http.StatusBadRequest || strings.TrimSpace(rec.body.String()) != `{"type":"InvalidRequestException","message":"bad"}` {
		t.Errorf("got %d %s", rec.status, rec.body.String())
	}
}

func TestFromTypedReadsTypeNamesInAnyCase(t *testing.T) {
	t.Parallel()
	for _, tv := range []TypedValue{
		{Type: "string", Value: json.RawMessage(`"x"`)},
		{Type: "JSON", Value: json.RawMessage(`"{\"a\":1}"`)},
		{Type: "date", Value: json.RawMessage(`"2026-01-02T03:04:05.000+0000"`)},
		{Type: "long", Value: json.RawMessage(`5`)},
	} {
		if _, err := FromTyped(tv); err != nil {
			t.Errorf("FromTyped(%s) = %v", tv.Type, err)
		}
	}
}

package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzDecode checks one decoder: it never panics, every error is a
// FieldError or a body-too-large error, and what it accepts is valid and
// survives encoding and decoding again unchanged.
func fuzzDecode[T any, P interface {
	*T
	validator
}](t *testing.T, data []byte) {
	var v T
	err := Decode(bytes.NewReader(data), P(&v))
	if err != nil {
		var fe *FieldError
		var mbe *http.MaxBytesError
		if !errors.As(err, &fe) && !errors.As(err, &mbe) {
			t.Fatalf("error %T %v: want a *FieldError", err, err)
		}
		if len(err.Error()) > 2*MaxName+200 {
			t.Fatalf("error message of %d bytes: errors must be bounded", len(err.Error()))
		}
		return
	}
	if err := P(&v).Validate(); err != nil {
		t.Fatalf("accepted but invalid: %v", err)
	}
	faithful(t, data, &v)
	b, err := json.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	var w T
	if err := Decode(bytes.NewReader(b), P(&w)); err != nil {
		t.Fatalf("re-decoding %s: %v", b, err)
	}
	if !reflect.DeepEqual(normal(v), normal(w)) {
		t.Fatalf("round trip changed %+v into %+v", v, w)
	}
}

// faithful checks what an accepted body held is what was read: valid
// UTF-8, and each key exactly a field's name (encoding/json alone takes
// "Src" for "src").
func faithful(t *testing.T, data []byte, v any) {
	if !utf8.Valid(data) {
		t.Fatalf("accepted a body of invalid UTF-8: %q", data)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("accepted a body that is not one object: %v", err)
	}
	names := fieldNames(v)
	for k := range m {
		if !names[k] {
			t.Fatalf("accepted key %q, not a field's exact name", k)
		}
	}
}

// normal makes nil and empty lists and time zones compare equal.
func normal(v any) string { b, _ := json.Marshal(v); return string(b) }

func seeds(f *testing.F, s ...string) {
	for _, x := range s {
		f.Add([]byte(x))
	}
}

func FuzzDecodeRegistration(f *testing.F) {
	seeds(f, `{"name":"a","address":"a:1","groups":["local"],"version":"1","capabilities":["bandwidth"],"ttl_s":30}`,
		`{"name":"a","groups":null}`, `[]`, `{"ttl_s":1e400}`, `{"name":"\u0000"}`,
		`{"NAME":"a","address":"a:1","groups":["local"],"version":"1"}`, `{"name":"a\u200b","address":"a:1","groups":["local"],"version":"1"}`,
		`{"name":"a\ud800","address":"a:1","groups":["local"],"version":"1"}`, "{\"name\":\"a\xff\",\"address\":\"a:1\",\"groups\":[\"local\"],\"version\":\"1\"}",
		`{"name":"a","name":"b","address":"a:1","groups":["local"],"version":"1"}]`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode[Registration](t, data) })
}

func FuzzDecodeResult(f *testing.F) {
	seeds(f, `{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1e6,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}`,
		`{"src":"a","dst":"b","kind":"latency","latency_p50_ms":1,"latency_p90_ms":2,"latency_p99_ms":3,"test_time_s":5,"measured_at":"2026-03-01T00:00:00.5+02:00","busy":1}`,
		`{"measured_at":"0000-01-01T00:00:00Z"}`, `{"busy":-1}`, `{"busy":1e30}`,
		`{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1e308,"test_time_s":1e308,"measured_at":"9999-12-31T00:00:00Z"}`,
		`{"Src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1e6,"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z"}}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode[Result](t, data) })
}

func FuzzDecodeForecast(f *testing.F) {
	seeds(f, `{"src":"a","dst":"b","kind":"bandwidth","value":1e6,"error":1e4,"method":"adaptive","made_at":"2026-03-01T00:00:00Z"}`,
		`{"value":"x"}`, `{"made_at":12}`,
		`{"src":"a","dst":"b","kind":"latency","value":1e308,"error":1e308,"method":"m","made_at":"2262-04-12T00:00:00Z"}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode[Forecast](t, data) })
}

// FuzzParseQuery: the query decoder never panics, and what it accepts
// comes back the same from Values.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"src=a&dst=b&kind=bandwidth&latest=true&limit=5", "since=2026-03-01T00:00:00Z&until=2026-03-02T00:00:00.5Z", "limit=-1", "kind=x&src=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseQuery(v)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v: want a *FieldError naming the parameter", err)
			}
			return
		}
		q2, err := ParseQuery(q.Values())
		if err != nil || !q2.Since.Equal(q.Since) || !q2.Until.Equal(q.Until) ||
			strings.Join([]string{q2.Src, q2.Dst, q2.Kind}, "|") != strings.Join([]string{q.Src, q.Dst, q.Kind}, "|") ||
			q2.Latest != q.Latest || q2.Limit != q.Limit {
			t.Fatalf("round trip %+v → %+v, %v", q, q2, err)
		}
	})
}

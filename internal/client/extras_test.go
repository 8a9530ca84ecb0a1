package client

import (
	"context"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

func TestParseReplyLine(t *testing.T) {
	t.Parallel()
	x := func(kv ...any) []sample.Extra {
		var out []sample.Extra
		for i := 0; i < len(kv); i += 2 {
			out = append(out, sample.Extra{Key: kv[i].(string), Value: kv[i+1].(float64)})
		}
		return out
	}
	tests := []struct {
		line    string
		status  sample.Status
		errHas  string
		bytes   int64
		extras  []sample.Extra
		garbage bool
	}{
		{line: "ok", status: sample.OK},
		{line: "ok\r", status: sample.OK},
		{line: "ok mb=0.5 files=3", status: sample.OK, extras: x("mb", 0.5, "files", 3.0)},
		{line: "ok | mb=0.5", status: sample.OK, extras: x("mb", 0.5)},
		{line: "ok bytes=120 t_ms=1e3", status: sample.OK, bytes: 120, extras: x("t_ms", 1000.0)},
		{line: "ok  \tmb=1   ", status: sample.OK, extras: x("mb", 1.0)},
		{line: "fail", status: sample.Failed, errHas: "reported a failure"},
		{line: "fail connection refused", status: sample.Failed, errHas: "connection refused"},
		{line: "fail timeout to backend | ms=12", status: sample.Failed, errHas: "timeout to backend", extras: x("ms", 12.0)},
		{line: "fail a | b | ms=1", status: sample.Failed, errHas: "a | b", extras: x("ms", 1.0)},
		{line: "fail a|b", status: sample.Failed, errHas: "a|b"},
		{line: "fail a | b |", status: sample.Failed, errHas: "a | b"},
		{line: "fail | ms=2", status: sample.Failed, errHas: "reported a failure", extras: x("ms", 2.0)},
		// bad pairs are dropped and noted; the status stands
		{line: "ok mb=x files=2", status: sample.OK, errHas: `"mb=x": value is not a finite number`, extras: x("files", 2.0)},
		{line: "ok Mb=1", status: sample.OK, errHas: "key must be"},
		{line: "ok mb", status: sample.OK, errHas: "not key=value"},
		{line: "ok mb=inf a=NaN", status: sample.OK, errHas: "finite"},
		{line: "ok a=1 a=2", status: sample.OK, errHas: "repeated", extras: x("a", 1.0)},
		{line: "ok bytes=1.5", status: sample.OK, errHas: "whole number"},
		{line: "ok bytes=-1", status: sample.OK, errHas: "whole number"},
		{line: "fail boom | x=", status: sample.Failed, errHas: "boom (extras dropped"},
		// not the protocol
		{line: "", garbage: true},
		{line: "OK", garbage: true},
		{line: "okay", garbage: true},
		{line: "ready", garbage: true},
		{line: " ok", garbage: true},
		{line: "hello world", garbage: true},
	}
	for _, tt := range tests {
		r, err := parseReplyLine(tt.line)
		if tt.garbage {
			if err == nil {
				t.Errorf("%q: parsed as %+v, want an error", tt.line, r)
			}
			continue
		}
		if err != nil || r.Status != tt.status || !strings.Contains(r.Err, tt.errHas) ||
			r.Bytes != tt.bytes || !reflect.DeepEqual(r.Extras, tt.extras) {
			t.Errorf("%q: got %+v, %v; want %v err~%q bytes %d extras %v", tt.line, r, err, tt.status, tt.errHas, tt.bytes, tt.extras)
		}
		if tt.status == sample.OK && tt.errHas == "" && r.Err != "" {
			t.Errorf("%q: an ok call with nothing dropped has Err %q", tt.line, r.Err)
		}
	}
}

func TestParseExtrasBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < sample.MaxExtras+2; i++ {
		b.WriteString(" k" + string(rune('a'+i)) + "=1")
	}
	x := parseExtras(b.String() + " bytes=7")
	if len(x.extras) != sample.MaxExtras || x.bytes != 7 || !strings.Contains(x.dropped, "over 16 extras") {
		t.Fatalf("got %d extras, bytes %d, %q", len(x.extras), x.bytes, x.dropped)
	}
	long := strings.Repeat("k", sample.MaxExtraKey+1) + "=1"
	if x := parseExtras(long); len(x.extras) != 0 || x.dropped == "" {
		t.Fatalf("a %d-byte key was taken: %+v", sample.MaxExtraKey+1, x)
	}
}

func FuzzParseReplyLine(f *testing.F) {
	for _, s := range []string{"ok", "ok a=1 bytes=3", "fail x | a=2", "fail | |", "garbage", "ok a=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseReplyLine(line)
		if err != nil {
			if r.Status != 0 || r.Extras != nil {
				t.Fatalf("an error with a reply: %+v", r)
			}
			return
		}
		if r.Status != sample.OK && r.Status != sample.Failed {
			t.Fatalf("status %v", r.Status)
		}
		if r.Status == sample.Failed && r.Err == "" {
			t.Fatal("a failed call without an error text")
		}
		if len(r.Extras) > sample.MaxExtras || r.Bytes < 0 {
			t.Fatalf("%d extras, bytes %d", len(r.Extras), r.Bytes)
		}
		seen := map[string]bool{}
		for _, e := range r.Extras {
			if !sample.ValidExtraKey(e.Key) || e.Key == BytesKey || seen[e.Key] || math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
				t.Fatalf("bad extra %+v in %q", e, line)
			}
			seen[e.Key] = true
		}
	})
}

// TestExecExtrasOnFD3: an exec client's key=value lines on fd 3 become its
// reply's extras (bytes= its Bytes), on success and on failure alike.
func TestExecExtrasOnFD3(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		status sample.Status
		bytes  int64
		extras []sample.Extra
		errHas string
	}{
		{`echo "mb=12.5 files=3" >&3; [ "$DIPERF_EXTRAS_FD" = 3 ] && echo "bytes=100" >&3`, sample.OK, 100,
			[]sample.Extra{{Key: "mb", Value: 12.5}, {Key: "files", Value: 3}}, ""},
		{`echo "ms=4 bad" >&3; exit 2`, sample.Failed, 0, []sample.Extra{{Key: "ms", Value: 4}}, `exit status 2 (extras dropped: "bad"`},
		{`head -c 5000 /dev/zero | tr '\0' 'a' >&3`, sample.OK, 0, nil, "over 4096 bytes"},
		{`true`, sample.OK, 0, nil, ""},
		// a descendant that keeps fd 3 open does not hold the call
		{`echo "a=1" >&3; setsid sleep 3 & exit 0`, sample.OK, 0, []sample.Extra{{Key: "a", Value: 1}}, ""},
	}
	for _, tt := range tests {
		start := time.Now()
		r := NewExec([]string{"sh", "-c", tt.script}, os.Environ(), 10*time.Second).Call(context.Background())
		if r.Status != tt.status || r.Bytes != tt.bytes || !reflect.DeepEqual(r.Extras, tt.extras) ||
			!strings.Contains(r.Err, tt.errHas) || (tt.errHas == "" && r.Err != "") {
			t.Errorf("%s: got %+v", tt.script, r)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: the call took %v", tt.script, el)
		}
	}
}

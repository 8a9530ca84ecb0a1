package peers

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// capture reads a real output captured from the tool (testdata/).
func capture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func checkResult(t *testing.T, got, want Result) {
	t.Helper()
	if got.Tool != want.Tool || got.Requests != want.Requests || got.Errors != want.Errors ||
		!near(got.RequestsPerS, want.RequestsPerS) || !near(got.P50Ms, want.P50Ms) || !near(got.P99Ms, want.P99Ms) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// The figures below are read off the captured reports by eye.

func TestParseWrk(t *testing.T) {
	got, err := ParseWrk(capture(t, "wrk.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, got, Result{Tool: "wrk", Requests: 35680, RequestsPerS: 35680 / 3.043197, P50Ms: 3.918, P99Ms: 17.005})
}

func TestParseHey(t *testing.T) {
	got, err := ParseHey(capture(t, "hey.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, got, Result{Tool: "hey", Requests: 13449, RequestsPerS: 4451.0224, P50Ms: 9.6, P99Ms: 39.1})
}

func TestParseK6(t *testing.T) {
	got, err := ParseK6(capture(t, "k6_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, got, Result{Tool: "k6", Requests: 13849, RequestsPerS: 4602.39619149997, P50Ms: 8.739926, P99Ms: 41.27551008000001})
}

func TestParseOha(t *testing.T) {
	got, err := ParseOha(capture(t, "oha.json"))
	if err != nil {
		t.Fatal(err)
	}
	// 50 requests "aborted due to deadline" at the end of -z are not errors.
	checkResult(t, got, Result{Tool: "oha", Requests: 103199, RequestsPerS: 34369.07417226184, P50Ms: 1.193389, P99Ms: 5.633772})
}

func TestParseLocust(t *testing.T) {
	got, err := ParseLocust(capture(t, "locust.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Computed from the same file by a few lines of Python.
	checkResult(t, got, Result{Tool: "locust", Requests: 4924, RequestsPerS: 1947.7641465455183, P50Ms: 13, P99Ms: 70})
}

func TestParseRejectsTruncated(t *testing.T) {
	for name, parse := range parsers() {
		b := capture(t, captures[name])
		if _, err := parse(b[:len(b)/3]); err == nil {
			t.Errorf("%s: a report cut to a third parsed without error", name)
		}
		if _, err := parse(nil); err == nil {
			t.Errorf("%s: an empty report parsed without error", name)
		}
	}
}

// captures names each parser's captured report.
var captures = map[string]string{
	"wrk": "wrk.txt", "hey": "hey.txt", "locust": "locust.json", "k6": "k6_summary.json", "oha": "oha.json",
}

func parsers() map[string]func([]byte) (Result, error) {
	return map[string]func([]byte) (Result, error){
		"wrk": ParseWrk, "hey": ParseHey, "locust": ParseLocust, "k6": ParseK6, "oha": ParseOha,
	}
}

func fuzzParser(f *testing.F, name string) {
	f.Add(capture(f, captures[name]))
	parse := parsers()[name]
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parse(b)
		if err != nil {
			return
		}
		if r.Tool != name {
			t.Fatalf("tool %q", r.Tool)
		}
		if _, err := valid(r); err != nil {
			t.Fatalf("accepted an invalid result: %v", err)
		}
	})
}

func FuzzParseWrk(f *testing.F)    { fuzzParser(f, "wrk") }
func FuzzParseHey(f *testing.F)    { fuzzParser(f, "hey") }
func FuzzParseLocust(f *testing.F) { fuzzParser(f, "locust") }
func FuzzParseK6(f *testing.F)     { fuzzParser(f, "k6") }
func FuzzParseOha(f *testing.F)    { fuzzParser(f, "oha") }

func TestParseDiperf(t *testing.T) {
	got, err := ParseDiperf(capture(t, "diperf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, got, Result{Tool: "diperf", Requests: 22211, RequestsPerS: 22206.92736055671, P50Ms: 0.131, P99Ms: 1.569})
	if _, err := ParseDiperf([]byte(`{"p50_ms":1}`)); err == nil {
		t.Error("a line without requests was accepted")
	}
}

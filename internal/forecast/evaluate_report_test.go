package forecast

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeTraceFile writes text as a trace file in a test directory.
func writeTraceFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvaluateFile evaluates a trace with two test times and checks the
// tables for people, the JSON and the files WriteFiles writes.
func TestEvaluateFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var trace strings.Builder
	trace.WriteString("time,test_time,value\n")
	for i := range 40 { // test time 1: ramp 0, 1, 2 …; test time 10: constant 7
		trace.WriteString(strings.Join([]string{strconv.Itoa(2 * i), "1", strconv.Itoa(i)}, ",") + "\n")
		trace.WriteString(strings.Join([]string{strconv.Itoa(2*i + 1), "10", "7"}, ",") + "\n")
	}
	r, err := EvaluateFile(writeTraceFile(t, dir, "trace.csv", trace.String()), Options{MaxPeriod: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.WriteTables(&out)
	for _, want := range []string{"by test time (MAE", "test time 1: 40 measurements", "test time 10: 40 measurements", "     3          6 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
	if err := r.WriteFiles(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"full.csv", "periods.csv", "mae-by-period-1.svg", "mse-by-period-10.svg", "mae-by-test-time.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("WriteFiles: %v", err)
		}
	}
	full, _ := os.ReadFile(filepath.Join(dir, "out", "full.csv"))
	// the ramp's last value misses by 1 each time; the constant is exact
	if !strings.Contains(string(full), "\n1,last,1,1,39\n") || !strings.Contains(string(full), "\n10,last,0,0,39\n") {
		t.Errorf("full.csv:\n%s", full)
	}
	b, err := json.Marshal(r)
	var back Report
	if err == nil {
		err = json.Unmarshal(b, &back)
	}
	if err != nil || !back.ByTestTime || len(back.Series) != 2 || back.Series[1].Full[0].MAE != 0 {
		t.Errorf("JSON: %v, %+v", err, back)
	}
}

// TestEvaluateFileRefuses: a trace that does not open, cannot be scored
// (a series of one measurement) or whose times or values overflow what
// the evaluation computes with is a *TraceError saying why.
func TestEvaluateFileRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tt := range []struct{ trace, want string }{
		{"time,value\n1,5\n", "the trace has 1 measurement"},
		{"time,test_time,value\n1,1,5\n2,1,6\n3,10,7\n", `test time "10" has 1 measurement`},
		{"time,value\n1,2\n2,lots\n", `trace line 3: value "lots"`},
		{"time,value\n1,1e200\n2,-1e200\n3,1e200\n", `value "1e200" is beyond`},
		{"time,value\n1,1e400\n2,3\n", `value "1e400" is not a finite number`},
		{"time,value\n1e300,1\n2e300,2\n", `time "1e300" is not a Unix time`},
		{"time,value\n-1e19,1\n0,2\n", `time "-1e19" is not a Unix time`},
		{"time,value\n1e400,1\n2e400,2\n", `time "1e400" is not a Unix time`},
		{"time,value\n2020-01-01T00:00:00Z,1\n9999-12-31T00:00:00Z,2\n", `time "9999-12-31T00:00:00Z" is not from`},
		{"time,value\n1700-01-01T00:00:00Z,1\n2200-01-01T00:00:00Z,2\n", "more than 292 years after"},
		{"", "open trace"},
	} {
		path := filepath.Join(dir, "missing.csv")
		if tt.trace != "" {
			path = writeTraceFile(t, dir, "t"+strconv.Itoa(i)+".csv", tt.trace)
		}
		_, err := EvaluateFile(path, Options{MaxPeriod: DefaultMaxPeriod})
		var te *TraceError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want a TraceError with %q", tt.trace, err, tt.want)
		}
	}
}

// TestEvaluateFileByteOrderMark: a trace saved with a UTF-8 byte-order
// mark (as spreadsheets do) is read like one without.
func TestEvaluateFileByteOrderMark(t *testing.T) {
	t.Parallel()
	for i, header := range []string{"time,value", `"time","value"`} {
		path := writeTraceFile(t, t.TempDir(), "bom"+strconv.Itoa(i)+".csv", "\ufeff"+header+"\n1,5\n2,6\n3,7\n")
		r, err := EvaluateFile(path, Options{MaxPeriod: DefaultMaxPeriod})
		if err != nil || len(r.Series) != 1 || r.Series[0].Points != 3 {
			t.Errorf("header %s: %v: %+v", header, err, r)
		}
	}
}

// TestEvaluateFileOddTestTimes: test times that are not finite numbers
// ("nan", "inf", "-1") are labels: every file WriteFiles writes and the
// JSON parse and hold no NaN or Inf (no MAE-by-test-time graph is drawn).
func TestEvaluateFileOddTestTimes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var trace strings.Builder
	trace.WriteString("time,test_time,value\n")
	for i := range 30 {
		for j, tt := range []string{"nan", "inf", "-1", "2"} {
			trace.WriteString(strconv.Itoa(4*i+j) + "," + tt + "," + strconv.Itoa(i%7) + "\n")
		}
	}
	r, err := EvaluateFile(writeTraceFile(t, dir, "trace.csv", trace.String()), Options{MaxPeriod: DefaultMaxPeriod})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err == nil {
		err = json.Unmarshal(b, new(Report))
	}
	if err != nil {
		t.Errorf("JSON: %v", err)
	}
	if err := r.WriteFiles(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out", "*.svg"))
	if len(files) != 8 {
		t.Errorf("%d SVG files, want the 2 by period of each of the 4 test times: %v", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if err := xml.Unmarshal(b, new(struct{})); err != nil || strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
			t.Errorf("%s: %v\n%s", filepath.Base(f), err, b)
		}
	}
}

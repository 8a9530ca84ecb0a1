package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensorEvaluateRefusesWhatOverflows: a trace that cannot be scored
// (a series of one measurement) or whose times or values overflow what
// the evaluation computes with is bad usage, exit 2, saying why.
func TestSensorEvaluateRefusesWhatOverflows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tt := range []struct{ trace, want string }{
		{"time,value\n1,5\n", "the trace has 1 measurement"},
		{"time,test_time,value\n1,1,5\n2,1,6\n3,10,7\n", `test time "10" has 1 measurement`},
		{"time,value\n1,1e200\n2,-1e200\n3,1e200\n", `value "1e200" is beyond`},
		{"time,value\n1,1e400\n2,3\n", `value "1e400" is not a finite number`},
		{"time,value\n1e300,1\n2e300,2\n", `time "1e300" is not a Unix time`},
		{"time,value\n-1e19,1\n0,2\n", `time "-1e19" is not a Unix time`},
		{"time,value\n1e400,1\n2e400,2\n", `time "1e400" is not a Unix time`},
		{"time,value\n2020-01-01T00:00:00Z,1\n9999-12-31T00:00:00Z,2\n", `time "9999-12-31T00:00:00Z" is not from`},
		{"time,value\n1700-01-01T00:00:00Z,1\n2200-01-01T00:00:00Z,2\n", "more than 292 years after"},
	} {
		path := filepath.Join(dir, "t"+itoa(i)+".csv")
		if err := os.WriteFile(path, []byte(tt.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := Main([]string{"sensor", "evaluate", "--json", path}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", tt.trace, code, errb.String(), tt.want)
		}
	}
}

// TestSensorEvaluateByteOrderMark: a trace saved with a UTF-8 byte-order
// mark (as spreadsheets do) is read like one without.
func TestSensorEvaluateByteOrderMark(t *testing.T) {
	t.Parallel()
	for i, header := range []string{"time,value", `"time","value"`} {
		path := filepath.Join(t.TempDir(), "bom"+itoa(i)+".csv")
		if err := os.WriteFile(path, []byte("\ufeff"+header+"\n1,5\n2,6\n3,7\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := Main([]string{"sensor", "evaluate", "--json", path}, &out, &errb); code != 0 {
			t.Fatalf("header %s: exit %d: %s", header, code, errb.String())
		}
		var ev evaluation
		if err := json.Unmarshal(out.Bytes(), &ev); err != nil || len(ev.Series) != 1 || ev.Series[0].Points != 3 {
			t.Errorf("header %s: %v: %s", header, err, out.String())
		}
	}
}

// TestSensorEvaluateOddTestTimes: test times that are not finite numbers
// ("nan", "inf", "-1") are labels: every file --out writes and the JSON parse
// and hold no NaN or Inf (no MAE-by-test-time graph is drawn).
func TestSensorEvaluateOddTestTimes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var trace strings.Builder
	trace.WriteString("time,test_time,value\n")
	for i := range 30 {
		for j, tt := range []string{"nan", "inf", "-1", "2"} {
			trace.WriteString(itoa(4*i+j) + "," + tt + "," + itoa(i%7) + "\n")
		}
	}
	path := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(path, []byte(trace.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"sensor", "evaluate", "--json", "--out", filepath.Join(dir, "out"), path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), new(evaluation)); err != nil {
		t.Errorf("JSON: %v", err)
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

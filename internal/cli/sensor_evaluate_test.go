package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/forecast"
)

// TestSensorEvaluate: the flags reach the evaluation (forecast.EvaluateFile
// tests what it computes): --max-period bounds the test periods, --out
// writes the files, --json prints one object, and without it the tables.
func TestSensorEvaluate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var trace strings.Builder
	trace.WriteString("time,test_time,value\n")
	for i := range 40 { // test time 1: ramp 0, 1, 2 …; test time 10: constant 7
		trace.WriteString(strings.Join([]string{itoa(2 * i), "1", itoa(i)}, ",") + "\n")
		trace.WriteString(strings.Join([]string{itoa(2*i + 1), "10", "7"}, ",") + "\n")
	}
	path := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(path, []byte(trace.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"sensor", "evaluate", path, "--out", filepath.Join(dir, "out"), "--max-period", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "test time 10: 40 measurements") || !strings.Contains(out.String(), "     3          6 ") ||
		strings.Contains(out.String(), "     4          8 ") {
		t.Errorf("tables with --max-period 3:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "full.csv")); err != nil {
		t.Errorf("--out: %v", err)
	}
	out.Reset()
	if code := Main([]string{"sensor", "evaluate", "--json", path}, &out, &errb); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	var ev forecast.Report
	if err := json.Unmarshal(out.Bytes(), &ev); err != nil || !ev.ByTestTime || len(ev.Series) != 2 || ev.Series[1].Full[0].MAE != 0 {
		t.Errorf("--json: %v, %+v", err, ev)
	}
}

// TestSensorEvaluateErrors: bad input is a usage error naming the line.
func TestSensorEvaluateErrors(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte("time,value\n1,2\n2,lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(filepath.Dir(path), "short.csv")
	if err := os.WriteFile(short, []byte("time,value\n1,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sensor"}, "diperf sensor evaluate [flags]"},
		{[]string{"sensor", "--period", "1m"}, "needs --directory"},
		{[]string{"sensor", "--directory", "http://d:1", "--period", "0s"}, "--period must be above 0"},
		{[]string{"sensor", "--directory", "http://d:1", "--period", "1m", "--test-time", "2m"}, "at most --period"},
		{[]string{"sensor", "--directory", "http://d:1", "--budget", "1.5"}, "--budget is a share of the time"},
		{[]string{"sensor", "--directory", "http://d:1", "--bytes-per-hour", "-5"}, "--bytes-per-hour must be 0"},
		{[]string{"sensor", "--directory", "http://d:1", "--groups", "local,"}, "none empty"},
		{[]string{"sensor", "evaluate", path}, `bad.csv: trace line 3: value "lots"`},
		{[]string{"sensor", "evaluate", "/nonexistent.csv"}, "open trace"},
		{[]string{"sensor", "evaluate", short}, "the trace has 1 measurement"},
		{[]string{"sensor", "evaluate", "--max-period", "0", path}, "--max-period must be at least 1"},
	} {
		var out, errb bytes.Buffer
		if code := Main(tt.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

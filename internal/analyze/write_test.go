package analyze

import (
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// sampleResult computes a small run with errors, two testers and a peak.
func sampleResult(t *testing.T) *Result {
	t.Helper()
	testers := []Tester{tester(0, 0, 3), tester(1, 1, 3)}
	testers[1].ID = "host,with,commas:1" // forces CSV quoting
	calls := []sample.Call{
		call(0, 0, 0.5, sample.OK), call(0, 0.5, 1.4, sample.Failed),
		call(1, 1, 1.2, sample.Timeout), call(1, 1.2, 2.2, sample.OK),
		call(0, 1.5, 2.9, sample.Cancelled),
	}
	return mustCompute(t, 500*time.Millisecond, testers, calls)
}

// writeFiles writes quanta.csv, clients.csv and summary.json of r into dir
// as the pipeline does: through the run directory's writer.
func writeFiles(t *testing.T, dir string, r *Result) {
	t.Helper()
	err := errors.Join(
		rundir.WriteFile(dir, rundir.Quanta, func(w io.Writer) error { return WriteQuanta(w, r.Quanta) }),
		rundir.WriteFile(dir, rundir.Clients, func(w io.Writer) error { return WriteClients(w, r.Clients) }),
		rundir.WriteJSON(dir, rundir.Summary, &r.Summary))
	if err != nil {
		t.Fatal(err)
	}
}

// readCSV parses a CSV file written by writeFiles.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestWriteQuantaClientsSummary(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	dir := t.TempDir()
	writeFiles(t, dir, r)
	tests := []struct {
		file   string
		header string
		rows   int
	}{
		// One row per quantum.
		{rundir.Quanta, "t_s,load,load_max,active,throughput,ok,failed,rt_min_ms,rt_median_ms,rt_mean_ms,rt_p90_ms,rt_p99_ms,rt_max_ms,errors,bytes,bytes_per_s,tester_bound", len(r.Quanta)},
		// One row per tester.
		{rundir.Clients, "index,id,host,start_s,end_s,failed,latency_ms,ok,failed_calls,utilization,mean_rt_ms,p99_rt_ms,avg_load,peak_ok,peak_failed,peak_utilization,peak_mean_rt_ms,fairness,median_rt_ms,peak_fairness,peak_median_rt_ms,peak_p99_rt_ms", len(r.Clients)},
	}
	for _, tc := range tests {
		recs := readCSV(t, filepath.Join(dir, tc.file))
		if got := strings.Join(recs[0], ","); got != tc.header {
			t.Errorf("%s header %q", tc.file, got)
		}
		if len(recs)-1 != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.file, len(recs)-1, tc.rows)
		}
	}
	clients := readCSV(t, filepath.Join(dir, rundir.Clients))
	if clients[2][1] != "host,with,commas:1" {
		t.Errorf("id %q", clients[2][1])
	}
	quanta := readCSV(t, filepath.Join(dir, rundir.Quanta))
	if got := quanta[3][13]; got != "failed=1;timeout=1" {
		t.Errorf("quantum 2 errors %q", got)
	}
	var s Summary
	if err := rundir.ReadJSON(dir, rundir.Summary, &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, r.Summary) {
		t.Errorf("summary round trip:\n got %+v\nwant %+v", s, r.Summary)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{rundir.Clients, rundir.Quanta, rundir.Summary}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
}

func TestSummaryJSONKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, sampleResult(t))
	data, err := os.ReadFile(filepath.Join(dir, rundir.Summary))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"samples"`, `"response_time_ms"`, `"p99"`, `"max_abs_offset_ms"`, `"cancelled": 1`, `"unit": "calls/s"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("summary.json lacks %s:\n%s", key, data)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{1.5, "1.5"},        // trailing zeros dropped
		{2, "2"},            // integral: no point
		{1.0 / 3, "0.3333"}, // four decimals
		{-0.00001, "0"},     // no negative zero
		{0.1 + 0.2, "0.3"},  // binary noise rounded away
	}
	for _, tc := range tests {
		if got := ff(tc.in); got != tc.want {
			t.Errorf("ff(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

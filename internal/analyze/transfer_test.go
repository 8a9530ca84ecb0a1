package analyze

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// sized returns a call of tester i over [from, to) s that reported n bytes.
func sized(i int32, from, to float64, n int64, st sample.Status) sample.Call {
	c := call(i, from, to, st)
	c.Bytes = n
	return c
}

// clientsCSV reads clients.csv of r by header: one map per row.
func clientsCSV(t *testing.T, r *Result) []map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteClients(&b, r.ClientRows()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// TestTransferPerClient has two testers over [0, 10] s: tester 0 moves
// 1 MB per second (10 calls), tester 1 half that (5 calls of 1 MB, and a
// failed call that moved 0.5 MB): clients.csv gives each its bytes and
// MB/s, and summary.json the aggregate MB/s and Jain's index over the
// clients' MB/s, which the call counts' index does not show.
func TestTransferPerClient(t *testing.T) {
	t.Parallel()
	testers := []Tester{tester(0, 0, 10), tester(1, 0, 10)}
	var calls []sample.Call
	for k := range 10 {
		calls = append(calls, sized(0, float64(k), float64(k)+1, 1e6, sample.OK))
	}
	for k := range 5 {
		calls = append(calls, sized(1, float64(2*k), float64(2*k)+1.5, 1e6, sample.OK))
	}
	calls = append(calls, sized(1, 9.5, 9.9, 5e5, sample.Failed))
	r := mustCompute(t, time.Second, testers, calls)
	rows := clientsCSV(t, r)
	want := []map[string]string{
		{"bytes": "10000000", "mb_per_s": "1", "peak_bytes": "10000000", "peak_mb_per_s": "1"},
		{"bytes": "5500000", "mb_per_s": "0.55", "peak_bytes": "5500000", "peak_mb_per_s": "0.55"},
	}
	for i, w := range want {
		for k, v := range w {
			if rows[i][k] != v {
				t.Errorf("clients.csv row %d %s = %q, want %q", i, k, rows[i][k], v)
			}
		}
	}
	tr := r.Summary.Transfer
	if tr == nil {
		t.Fatal("summary has no transfer figures")
	}
	// Jain over (1, 0.55): 1.55² / (2 × (1 + 0.3025)) = 0.92236...
	if tr.Bytes != 15_500_000 || tr.Clients != 2 || !near(tr.Jain, 1.55*1.55/(2*1.3025)) {
		t.Errorf("transfer %+v, want 15.5 MB, Jain %.5f over 2 clients", tr, 1.55*1.55/(2*1.3025))
	}
	if !near(tr.ClientMBPerS.Max, 1) || !near(tr.ClientMBPerS.Min, 0.55) || tr.MBPerS.Max < 2 {
		t.Errorf("transfer MB/s %+v, per client %+v", tr.MBPerS, tr.ClientMBPerS)
	}
	js, _ := json.Marshal(r.Summary)
	if !strings.Contains(string(js), `"transfer":{"bytes":15500000,`) {
		t.Errorf("summary.json lacks the transfer block: %s", js)
	}
}

// TestTransferAbsentWithoutBytes: a run whose calls reported no bytes has
// neither the bytes columns nor the transfer block.
func TestTransferAbsentWithoutBytes(t *testing.T) {
	t.Parallel()
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 2)}, []sample.Call{call(0, 0, 1, sample.OK)})
	if r.Summary.Transfer != nil {
		t.Errorf("transfer %+v, want none", r.Summary.Transfer)
	}
	if _, ok := clientsCSV(t, r)[0]["bytes"]; ok {
		t.Error("clients.csv has a bytes column")
	}
}

// TestTransferPerClientLoops: with several clients per tester, the
// figures are per client.
func TestTransferPerClientLoops(t *testing.T) {
	t.Parallel()
	var calls []sample.Call
	for j, n := range []int64{3e6, 1e6} {
		c := sized(0, 1, 2, n, sample.OK)
		c.Client = uint32(j)
		calls = append(calls, c)
	}
	r := computeClients(t, 2, 0, []Tester{tester(0, 0, 10)}, calls)
	rows := clientsCSV(t, r)
	if len(rows) != 2 || rows[0]["mb_per_s"] != "0.3" || rows[1]["mb_per_s"] != "0.1" {
		t.Errorf("clients.csv rows %v, want 0.3 and 0.1 MB/s", rows)
	}
	if tr := r.Summary.Transfer; tr == nil || tr.Clients != 2 || !near(tr.Jain, 0.8) {
		t.Errorf("transfer %+v, want Jain 0.8 over 2 clients", tr)
	}
}

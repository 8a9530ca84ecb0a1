package analyze

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// quantaCSV renders qs as quanta.csv and returns its header and rows.
func quantaCSV(t *testing.T, qs []Quantum) (map[string]int, [][]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteQuanta(&buf, qs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	return col, recs[1:]
}

// withExtras returns c reporting extras kv (key, value, key, value...).
func withExtras(c sample.Call, kv ...any) sample.Call {
	for i := 0; i < len(kv); i += 2 {
		c.Extras = append(c.Extras, sample.Extra{Key: kv[i].(string), Value: kv[i+1].(float64)})
	}
	return c
}

// TestExtrasSeries feeds the analysis a file-transfer-like run whose
// calls report the megabytes they moved (and some a file count): each
// key becomes a series per quantum (per second, mean per call) and a
// summary over the run, whatever the calls' status.
func TestExtrasSeries(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{
		withExtras(call(0, 0.1, 0.5, sample.OK), "mb", 10.0, "files", 2.0),
		withExtras(call(1, 0.2, 0.9, sample.OK), "mb", 30.0),
		call(0, 0.6, 0.8, sample.OK), // reported nothing
		withExtras(call(0, 1.1, 1.6, sample.Failed), "mb", 4.0),
		withExtras(call(1, 2.2, 3.5, sample.OK), "mb", 6.0, "files", 1.0),
	}
	r := mustCompute(t, 500*time.Millisecond, []Tester{tester(0, 0, 4), tester(1, 0, 4)}, calls)
	mb := r.Summary.Extras["mb"]
	if mb.Calls != 4 || mb.Sum != 50 || mb.Mean != 12.5 || mb.Min != 4 || mb.Max != 30 || !near(mb.PerS, 50/r.Summary.DurationS) {
		t.Errorf("summary mb: %+v (duration %v s); want 4 calls, sum 50, mean 12.5, min 4, max 30, 12.5/s", mb, r.Summary.DurationS)
	}
	if f := r.Summary.Extras["files"]; f.Calls != 2 || f.Sum != 3 || f.Min != 1 || f.Max != 2 {
		t.Errorf("summary files: %+v", f)
	}
	// Quanta of 0.5 s: calls end in quanta 1, 1, 1, 3 and 7.
	want := map[int]ExtraQuantum{1: {Calls: 2, Sum: 40, PerS: 80, Mean: 20}, 3: {Calls: 1, Sum: 4, PerS: 8, Mean: 4},
		7: {Calls: 1, Sum: 6, PerS: 12, Mean: 6}}
	for q := range r.Quanta {
		if got := r.Quanta[q].Extras["mb"]; got != want[q] {
			t.Errorf("quantum %d mb: %+v, want %+v", q, got, want[q])
		}
		if _, ok := r.Quanta[q].Extras["files"]; !ok {
			t.Errorf("quantum %d has no files series: every key of the run is in every quantum", q)
		}
	}
	col, rows := quantaCSV(t, r.Quanta)
	order := []string{"x_files_per_s", "x_files_mean", "x_mb_per_s", "x_mb_mean"}
	for i, h := range order {
		if c, ok := col[h]; !ok || i > 0 && c != col[order[i-1]]+1 {
			t.Fatalf("quanta.csv header %v: want %v in that order", col, order)
		}
	}
	if rows[1][col["x_mb_per_s"]] != "80" || rows[1][col["x_mb_mean"]] != "20" || rows[1][col["x_files_mean"]] != "2" ||
		rows[2][col["x_mb_per_s"]] != "0" || rows[2][col["x_mb_mean"]] != "0" {
		t.Errorf("quanta.csv rows 1 and 2: %v, %v", rows[1], rows[2])
	}
}

// TestExtrasKeysBounded checks that the analysis follows at most
// MaxExtraKeys keys, also when workers met different keys, and counts the
// values it left out.
func TestExtrasKeysBounded(t *testing.T) {
	t.Parallel()
	var calls []sample.Call
	for i := range MaxExtraKeys + 6 {
		calls = append(calls, withExtras(call(int32(i%2), 0.01*float64(i), 0.01*float64(i)+0.005, sample.OK),
			fmt.Sprintf("k%03d", i), 1.0))
	}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 1), tester(1, 0, 1)}, calls)
	if n, ig := len(r.Summary.Extras), r.Summary.ExtrasIgnored; n != MaxExtraKeys || ig != 6 {
		t.Errorf("%d keys followed, %d values ignored; want %d and 6", n, ig, MaxExtraKeys)
	}
	if _, ok := r.Summary.Extras[fmt.Sprintf("k%03d", MaxExtraKeys)]; ok {
		t.Errorf("key k%03d, the first past the bound, is followed", MaxExtraKeys)
	}
	p, err := NewParallel(Config{Name: "t", Quantum: time.Second, Testers: []Tester{tester(0, 0, 1), tester(1, 0, 1)}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Add(calls)
	pr, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	if n, ig := len(pr.Summary.Extras), pr.Summary.ExtrasIgnored; n != MaxExtraKeys || ig != 6 {
		t.Errorf("two workers: %d keys followed, %d values ignored; want %d and 6", n, ig, MaxExtraKeys)
	}
}

// TestHTTPPhases checks the phase summary over the calls that measured
// each phase, and the time to first byte per quantum.
func TestHTTPPhases(t *testing.T) {
	t.Parallel()
	ms := int64(time.Millisecond)
	ph := func(c sample.Call, p sample.Phases) sample.Call { c.Phases = p; return c }
	calls := []sample.Call{
		ph(call(0, 0.1, 0.2, sample.OK), sample.Phases{DNS: 1 * ms, Connect: 2 * ms, FirstByte: 10 * ms}),
		ph(call(0, 0.3, 0.4, sample.OK), sample.Phases{FirstByte: 20 * ms}), // reused connection
		ph(call(0, 1.3, 1.4, sample.Failed), sample.Phases{Connect: 4 * ms, FirstByte: 30 * ms}),
		call(0, 1.5, 1.6, sample.OK), // measured nothing
	}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 2)}, calls)
	p := r.Summary.HTTPPhases
	if p == nil {
		t.Fatal("no http_phases_ms")
	}
	if p.DNS.N != 1 || p.Connect.N != 2 || p.TLS.N != 0 || p.FirstByte.N != 3 {
		t.Errorf("phases measured by %d, %d, %d, %d calls; want 1, 2, 0, 3", p.DNS.N, p.Connect.N, p.TLS.N, p.FirstByte.N)
	}
	if fb := p.FirstByte; fb.Mean != 20 || fb.Max != 30 || fb.P50 < 19.8 || fb.P50 > 20.2 || p.Connect.Mean != 3 || p.TLS != (PhaseStats{}) {
		t.Errorf("first byte %+v (want mean 20, p50 20, max 30), connect %+v (mean 3), tls %+v (none)", fb, p.Connect, p.TLS)
	}
	if q0, q1 := r.Quanta[0].Phases, r.Quanta[1].Phases; q0.FirstByteN != 2 || q0.FirstByteMs != 15 || q1.FirstByteMs != 30 {
		t.Errorf("quanta 0 and 1: %+v, %+v; want 15 ms over 2 calls, 30 ms", *q0, *q1)
	}
	col, rows := quantaCSV(t, r.Quanta)
	if c, ok := col["first_byte_ms_mean"]; !ok || rows[0][c] != "15" || rows[1][c] != "30" {
		t.Errorf("quanta.csv: %v %v", col, rows)
	}
}

// TestNoExtrasNoPhases checks that a run whose calls report neither
// extras nor phases has nothing of them in summary.json or quanta.csv.
func TestNoExtrasNoPhases(t *testing.T) {
	t.Parallel()
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 2)}, []sample.Call{call(0, 0.1, 0.2, sample.OK)})
	js, err := json.Marshal(r.Summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"extras"`, `"extras_ignored"`, `"http_phases_ms"`} {
		if bytes.Contains(js, []byte(k)) {
			t.Errorf("summary.json has %s: %s", k, js)
		}
	}
	col, _ := quantaCSV(t, r.Quanta)
	if len(col) != len(quantaHeader) {
		t.Errorf("quanta.csv has %d columns, want the %d of quantaHeader", len(col), len(quantaHeader))
	}
}

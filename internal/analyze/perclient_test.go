package analyze

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// clientCalls returns n successful calls of client j of tester i, 100 ms
// each, ending at 1, 2, ... s (n at most 9).
func clientCalls(i int32, j uint32, n int) []sample.Call {
	out := make([]sample.Call, n)
	for k := range out {
		out[k] = call(i, float64(k)+0.9, float64(k)+1, sample.OK)
		out[k].Client = j
	}
	return out
}

// computeClients runs Compute over testers that ran cpt clients each,
// stagger apart.
func computeClients(t *testing.T, cpt int, stagger time.Duration, testers []Tester, calls []sample.Call) *Result {
	t.Helper()
	r, err := Compute(&Input{Name: "t", Quantum: time.Second, Planned: len(testers), Calls: calls, Testers: testers,
		ClientsPerTester: cpt, ClientStartInterval: stagger})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFairnessOverClients has two testers of three clients each, both
// testers served alike (9 calls each) but not their clients: Jain's index
// is over the six clients, not the two testers, and each client's
// utilization is its share of all completions.
func TestFairnessOverClients(t *testing.T) {
	t.Parallel()
	testers := []Tester{tester(0, 0, 10), tester(1, 0, 10)}
	var calls []sample.Call
	for j, n := range []int{9, 0, 0} {
		calls = append(calls, clientCalls(0, uint32(j), n)...)
	}
	for j := range 3 {
		calls = append(calls, clientCalls(1, uint32(j), 3)...)
	}
	r := computeClients(t, 3, 0, testers, calls)
	// Jain over (9, 0, 0, 3, 3, 3): 18² / (6 × 108) = 0.5.
	if f := r.Summary.Fairness; !near(f.Jain, 0.5) || f.Clients != 6 {
		t.Errorf("fairness %+v, want Jain 0.5 over 6 clients", f)
	}
	if p := r.Summary.Peak; p.Testers != 2 || p.Clients != 6 || p.StartS != 0 || p.EndS != 10 {
		t.Errorf("peak %+v, want [0, 10] with 2 testers and 6 clients", p)
	}
	if len(r.Clients) != 2 || r.Clients[0].Whole.OK != 9 || r.Clients[1].Whole.OK != 9 {
		t.Errorf("per-tester rows: %+v", r.Clients)
	}
	if len(r.PerClient) != 6 {
		t.Fatalf("%d per-client rows, want 6", len(r.PerClient))
	}
	wantOK := []int{9, 0, 0, 3, 3, 3}
	for u, c := range r.PerClient {
		if c.Index != u/3 || c.Client != u%3 || c.ID != testers[u/3].ID || c.Whole.OK != wantOK[u] || c.Peak.OK != wantOK[u] {
			t.Errorf("row %d: tester %d client %d %s, ok %d/%d; want tester %d client %d, ok %d",
				u, c.Index, c.Client, c.ID, c.Whole.OK, c.Peak.OK, u/3, u%3, wantOK[u])
		}
		// Its share of the 18 completions, over a fair share of 1/6.
		if share := float64(wantOK[u]) / 18; !near(c.Whole.Utilization, share) || !near(c.Whole.Fairness, 6*share) {
			t.Errorf("row %d: utilization %v fairness %v, want %v and %v", u, c.Whole.Utilization, c.Whole.Fairness, share, 6*share)
		}
	}
	if c := r.PerClient[0]; !near(c.Whole.MeanRTms, 100) || c.Whole.P99RTms < 94 || c.Whole.P99RTms > 100 {
		t.Errorf("client 0 response times: mean %v p99 %v, want 100 ms (p99 within the histogram's 6%%)", c.Whole.MeanRTms, c.Whole.P99RTms)
	}
}

// TestClientStartIntervalInAnalysis staggers 4 clients of one tester 2 s
// apart: each client's lifetime starts with it, the peak window is where
// all 4 ran, and a client's fairness is over the clients active while it
// was.
func TestClientStartIntervalInAnalysis(t *testing.T) {
	t.Parallel()
	testers := []Tester{tester(0, 0, 10)}
	var calls []sample.Call
	for j := range uint32(4) {
		for k := 2 * int(j); k < 10; k++ {
			c := call(0, float64(k)+0.5, float64(k)+0.6, sample.OK)
			c.Client = j
			calls = append(calls, c)
		}
	}
	r := computeClients(t, 4, 2*time.Second, testers, calls)
	if p := r.Summary.Peak; p.StartS != 6 || p.EndS != 10 || p.Clients != 4 || p.Testers != 1 {
		t.Errorf("peak %+v, want [6, 10] with 4 clients of 1 tester", p)
	}
	for j, c := range r.PerClient {
		if c.StartS != float64(2*j) || c.EndS != 10 || c.Whole.OK != 10-2*j || c.Peak.OK != 4 {
			t.Errorf("client %d: [%v, %v], %d calls, %d in the peak; want [%d, 10], %d and 4", j, c.StartS, c.EndS, c.Whole.OK, c.Peak.OK, 2*j, 10-2*j)
		}
	}
	if f := r.Summary.Fairness; !near(f.Jain, 1) || f.Clients != 4 {
		t.Errorf("fairness %+v, want 1 over 4 clients", f)
	}
	// Client 3 ran [6, 10] with the others all along: 4 of the 16
	// completions there, a fair share of 1/4.
	if c := r.PerClient[3]; !near(c.Whole.Utilization, 0.25) || !near(c.Whole.Fairness, 1) {
		t.Errorf("client 3: utilization %v fairness %v, want 0.25 and 1", c.Whole.Utilization, c.Whole.Fairness)
	}
}

// TestOneClientPerTesterIsUnchanged checks that saying one client per
// tester is the analysis without clients: no per-client rows, no client
// counts in the summary.
func TestOneClientPerTesterIsUnchanged(t *testing.T) {
	t.Parallel()
	testers := []Tester{tester(0, 0, 10), tester(1, 2, 10)}
	calls := append(clientCalls(0, 0, 9), clientCalls(1, 0, 5)...)
	plain := mustCompute(t, time.Second, testers, calls)
	one := computeClients(t, 1, time.Second, testers, calls)
	if d := firstDiff(one, plain, "result"); d != "" || one.PerClient != nil || one.Summary.Fairness.Clients != 0 {
		t.Errorf("clients_per_tester 1 differs at %q (per-client rows %d)", d, len(one.PerClient))
	}
}

// TestCallOfAnUnknownClient refuses a call whose client index is past
// the clients each tester ran.
func TestCallOfAnUnknownClient(t *testing.T) {
	t.Parallel()
	calls := clientCalls(0, 3, 1)
	_, err := Compute(&Input{Name: "t", Quantum: time.Second, Calls: calls, Testers: []Tester{tester(0, 0, 10)}, ClientsPerTester: 3})
	if err == nil || !strings.Contains(err.Error(), "client 3, but each tester ran 3 clients") {
		t.Errorf("got %v", err)
	}
}

// TestParallelPerClient checks that the parallel analysis of many
// clients per tester equals the serial one.
func TestParallelPerClient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var testers []Tester
	var calls []sample.Call
	for i := range 5 {
		testers = append(testers, tester(i, float64(i)/2, 8+float64(i)/3))
		for j := range uint32(7) {
			for s := float64(i)/2 + float64(j)*0.1; s < 8; {
				d := 0.01 + 0.3*rng.Float64()
				st := sample.OK
				if rng.IntN(8) == 0 {
					st = sample.Failed
				}
				c := call(int32(i), s, s+d, st)
				c.Client = j
				calls = append(calls, c)
				s += d + 0.05*rng.Float64()
			}
		}
	}
	cfg := Config{Name: "p", Quantum: 100 * time.Millisecond, Planned: 5, Testers: testers,
		ClientsPerTester: 7, ClientStartInterval: 100 * time.Millisecond}
	want, err := Compute(&Input{Name: "p", Quantum: cfg.Quantum, Planned: 5, Calls: calls, Testers: testers,
		ClientsPerTester: 7, ClientStartInterval: cfg.ClientStartInterval})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.PerClient) != 35 || want.Summary.Fairness.Clients == 0 {
		t.Fatalf("%d per-client rows, fairness over %d", len(want.PerClient), want.Summary.Fairness.Clients)
	}
	for _, workers := range []int{2, 3} {
		p, err := NewParallel(cfg, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(calls); i += 97 {
			_ = p.Add(calls[i:min(i+97, len(calls))])
		}
		got, err := p.Result()
		if err != nil {
			t.Fatal(err)
		}
		if d := firstDiff(got, want, "result"); d != "" {
			t.Errorf("%d workers: differs from the serial result at %s", workers, d)
		}
	}
}

// TestClientsCSVPerClient writes clients.csv of a run of 2 testers × 3
// clients: a row per client, a client column after the index, the other
// columns as for testers.
func TestClientsCSVPerClient(t *testing.T) {
	t.Parallel()
	testers := []Tester{tester(0, 0, 10), tester(1, 0, 10)}
	var calls []sample.Call
	for j := range uint32(3) {
		calls = append(calls, clientCalls(0, j, 2)...)
		calls = append(calls, clientCalls(1, j, 3)...)
	}
	r := computeClients(t, 3, 0, testers, calls)
	var b bytes.Buffer
	if err := WriteClients(&b, r.ClientRows()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"index", "client"}, clientsHeader[1:]...)
	if strings.Join(recs[0], ",") != strings.Join(want, ",") || len(recs) != 7 {
		t.Fatalf("header %v and %d rows, want %v and 6", recs[0], len(recs)-1, want)
	}
	for u, rec := range recs[1:] {
		ok := []string{"2", "3"}[u/3]
		if rec[0] != []string{"0", "1"}[u/3] || rec[1] != []string{"0", "1", "2"}[u%3] || rec[8] != ok {
			t.Errorf("row %d: %v, want tester %d client %d with %s calls", u, rec, u/3, u%3, ok)
		}
	}
	b.Reset()
	if err := WriteClients(&b, r.Clients); err != nil || !strings.HasPrefix(b.String(), strings.Join(clientsHeader, ",")+"\n") {
		t.Errorf("per-tester clients.csv: %q, %v", b.String(), err)
	}
}

package analyze

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// edgeRuns are the runs at the edges of what the analysis divides and
// takes logarithms of (issue 8, build 7).
func edgeRuns() map[string]*Input {
	in := func(testers []Tester, calls ...sample.Call) *Input {
		return &Input{Name: "edge", Quantum: time.Second, Planned: max(len(testers), 1), Calls: calls, Testers: testers}
	}
	one := []Tester{tester(0, 0, 6)}
	two := []Tester{tester(0, 0, 6), tester(1, 1, 6)}
	var equal, failed []sample.Call
	for k := range 12 {
		s := 0.5 * float64(k)
		equal = append(equal, call(0, s, s+0.2, sample.OK))
		failed = append(failed, call(0, s, s+0.01, sample.Failed), call(1, s+1, s+1.01, sample.Timeout))
	}
	return map[string]*Input{
		"no successful call":            in(two, failed...),
		"every call failed to start":    in(one, call(0, 1, 1, sample.FailedToStart), call(0, 2, 2, sample.FailedToStart)),
		"only cancelled calls":          in(one, call(0, 1, 6, sample.Cancelled)),
		"single tester, equal times":    in(one, equal...),
		"single quantum":                in([]Tester{tester(0, 0, 0.3)}, call(0, 0, 0.1, sample.OK), call(0, 0.1, 0.2, sample.OK)),
		"single call":                   in(one, call(0, 1, 1.2, sample.OK)),
		"zero-duration call":            in(one, call(0, 1, 1, sample.OK)),
		"zero-lifetime tester":          in([]Tester{tester(0, 2, 2)}, call(0, 2, 2, sample.OK)),
		"zero-lifetime tester, no call": in([]Tester{tester(0, 2, 2)}),
		"zero load: testers, no calls":  in(two),
		"no testers, one call":          in(nil, call(0, 1, 1.5, sample.OK)),
		"calls of an unknown tester":    in(one, call(7, 1, 1.5, sample.OK), call(7, 2, 2.5, sample.Failed)),
		"call before the origin":        in([]Tester{tester(0, 3, 6)}, call(0, 0, 4, sample.OK)),
	}
}

func TestEdgeRunsWriteFiniteFiles(t *testing.T) {
	t.Parallel()
	for name, in := range edgeRuns() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeFiles(t, dir, r)
			checkFiniteFiles(t, dir)
			if len(r.Quanta) == 0 {
				t.Error("no quanta")
			}
		})
	}
}

func TestEdgeRunFigures(t *testing.T) {
	t.Parallel()
	runs := edgeRuns()
	r, err := Compute(runs["no successful call"])
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	// nothing succeeded: no response time, throughput 0, and Jain's index
	// of nobody served is 0; every tester's share is 0
	if s.Samples.OK != 0 || s.Samples.Failed != 24 || s.ResponseTimeMs != (RTSummary{}) || s.Throughput.Max != 0 || s.Fairness.Jain != 0 {
		t.Errorf("no successful call: %+v", s)
	}
	for _, c := range r.Clients {
		if c.Whole.Utilization != 0 || c.Whole.Fairness != 0 || c.Whole.MeanRTms != 0 {
			t.Errorf("no successful call: client %+v", c.Whole)
		}
	}
	r, err = Compute(runs["single tester, equal times"])
	if err != nil {
		t.Fatal(err)
	}
	// one tester: it had every call and a fair share; equal times: no spread
	if c := r.Clients[0].Whole; c.Utilization != 1 || c.Fairness != 1 || r.Summary.Fairness.Jain != 1 || r.Summary.ResponseTimeMs.StdDev != 0 || !near(r.Summary.ResponseTimeMs.Mean, 200) {
		t.Errorf("single tester: client %+v, summary %+v", c, r.Summary)
	}
	r, err = Compute(runs["zero-lifetime tester"])
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Clients[0].Whole.AvgLoad; l != 0 {
		t.Errorf("a tester of no lifetime had a mean load of %g, want 0", l)
	}
}

func TestRandomRunsHaveFiniteFigures(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		in := randomRun(rand.New(rand.NewPCG(seed, 8)))
		r, err := Compute(in)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("seed %d: the result does not encode: %v", seed, err)
		}
		var rows strings.Builder
		if err := WriteQuanta(&rows, r.Quanta); err != nil {
			t.Fatal(err)
		}
		if err := WriteClients(&rows, r.Clients); err != nil {
			t.Fatal(err)
		}
		if bad := nonFiniteCSV(rows.String()); bad != "" {
			t.Fatalf("seed %d: %q in the CSV (%s)", seed, bad, b)
		}
	}
}

// randomRun is a small run of 0 to 3 testers of random, possibly zero,
// lifetimes, and 0 to 20 calls of random classes and (possibly zero)
// durations, a few of an unknown tester.
func randomRun(rng *rand.Rand) *Input {
	in := &Input{Name: "random", Quantum: time.Duration(10+rng.IntN(1000)) * time.Millisecond, Planned: 3}
	sec := func() float64 { return math.Round(rng.Float64()*40) / 10 } // 0 to 4 s, on 100 ms steps
	for i := range rng.IntN(4) {
		a, b := sec(), sec()
		in.Testers = append(in.Testers, tester(i, min(a, b), max(a, b)))
	}
	for range rng.IntN(21) {
		a, b := sec(), sec()
		in.Calls = append(in.Calls, call(int32(rng.IntN(5)), min(a, b), max(a, b), sample.Status(rng.IntN(5))))
	}
	if len(in.Calls) == 0 && len(in.Testers) == 0 {
		in.Testers = []Tester{tester(0, 1, 1)}
	}
	return in
}

// checkFiniteFiles fails t if a JSON or CSV file of dir holds a value
// that is not a finite number: NaN or ±Inf, in any spelling.
func checkFiniteFiles(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{rundir.Quanta, rundir.Clients, rundir.Summary} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".json") {
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if bad := nonFiniteCSV(string(b)); bad != "" {
			t.Errorf("%s holds %q", name, bad)
		}
	}
}

// nonFiniteCSV returns the first field (split at commas, quotes, colons,
// brackets and white space) that parses as a non-finite float, or "".
func nonFiniteCSV(text string) string {
	fields := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(",\":[]{} \n\r\t;=", r) })
	for _, f := range fields {
		if v, err := strconv.ParseFloat(f, 64); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return f
		}
	}
	return ""
}

func TestNonFiniteCSVFindsEverySpelling(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"1,NaN,2", "x,+Inf", `{"a":-Inf}`, "inf", "t;-infinity"} {
		if nonFiniteCSV(text) == "" {
			t.Errorf("%q: nothing found", text)
		}
	}
	if bad := nonFiniteCSV("index,id,host\n0,h:info,infra,1e308,-0.5"); bad != "" {
		t.Errorf("finite text: found %q", bad)
	}
}

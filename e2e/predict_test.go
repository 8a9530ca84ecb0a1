package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/rundir"
)

// TestPredictOnDemo reads the README's demo (C = 8 workers × S = 400 ms:
// 20 calls/s; run once, shared with TestDemoFindsTheKnownCapacity) and asks `diperf
// predict` for the throughput at a load of C: it must be within 5% of
// what C testers can drive, inside its own interval, and agree with what
// the run measured. C testers, never queueing, each make a call per
// light-load response time R0 = S + o, o being what a call adds to the
// service time (starting the client process: about 15 ms here, more on a
// busy machine): C/R0 calls/s, which is C/S (the Must-show) when o
// is nothing. Beyond the knee the target serves C/S whatever o is.
func TestPredictOnDemo(t *testing.T) {
	const c, capacity = 8, 20.0
	start := time.Now()
	out, r := readmeDemo(t)
	if r.code != 0 {
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("demo took %v (shared)", time.Since(start).Round(time.Second))
	m := readModel(t, out)
	r = diperf(t, 30*time.Second, "predict", out, "--load", strconv.Itoa(c), "--json")
	if r.code != 0 {
		t.Fatalf("predict: exit %d\n%s", r.code, r.stderr)
	}
	var p model.Prediction
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("predict --json: %v\n%s", err, r.stdout)
	}
	x := p.Throughput
	t.Logf("predict --load %d: %s", c, r.stdout)
	r0 := lightResponseMs(t, out, c/2)
	if atC := c / (r0 / 1000); r0 < 400 || math.Abs(x.Value-atC) > 0.05*atC {
		t.Errorf("throughput at load %d: %.2f calls/s, want C/R0 = %.2f ± 5%% (R0 = %.1f ms: 400 ms of service "+
			"plus what starting the client adds; C/S = %.0f); the model's light-load response time is %s ms, "+
			"the knee at %s", c, x.Value, atC, r0, capacity, describe(m.Bounds, "r0"), describe(m.Bounds, "knee"))
	}
	if sat := m.Throughput(2.5 * c); math.Abs(sat-capacity) > 0.05*capacity {
		t.Errorf("throughput at load %g (saturated): %.2f calls/s, want %.0f ± 5%%", 2.5*c, sat, capacity)
	}
	if !(x.Low <= x.Value && x.Value <= x.High) || !(p.ResponseTimeMs.Low <= p.ResponseTimeMs.Value && p.ResponseTimeMs.Value <= p.ResponseTimeMs.High) {
		t.Errorf("intervals do not hold their values: %+v", p)
	}
	if p.Model != m.Predictor() {
		t.Errorf("predict used the %q model, model.json chose %q", p.Model, m.Predictor())
	}
	checkAgainstQuanta(t, out, m, c)
}

// readModel reads and checks the run's model.json.
func readModel(t *testing.T, dir string) *model.Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rundir.Model))
	if err != nil {
		t.Fatal(err)
	}
	var m model.Model
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", rundir.Model, err)
	}
	if m.Chosen == "" || m.USL.Points < 5 || m.Bootstrap.Resamples == 0 || m.Selection.Reason == "" {
		t.Errorf("%s lacks a chosen model, the USL fit, the bootstrap or the reason:\n%s", rundir.Model, data)
	}
	t.Logf("model %s (%s); USL λ %.3g σ %.3g κ %.3g", m.Chosen, m.Selection.Reason, m.USL.Lambda, m.USL.Sigma, m.USL.Kappa)
	return &m
}

// describe is a figure of the bounds fit b for a message: "r0" or "knee".
func describe(b *model.Bounds, what string) string {
	if b == nil {
		return "unknown (no bounds fit)"
	}
	v := b.R0Ms
	if what == "knee" {
		v = b.KneeLoad
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// checkAgainstQuanta compares the model's throughput with the measured one
// of the quanta below the capacity c (loads c/2 to c, on the rising line)
// and well above it (the plateau): within 5% in sum, each part.
func checkAgainstQuanta(t *testing.T, dir string, m *model.Model, c float64) {
	t.Helper()
	var measured, predicted [2]float64
	for _, q := range readQuanta(t, dir) {
		part := -1
		switch {
		case q.load >= c/2 && q.load <= c:
			part = 0
		case q.load >= 1.5*c:
			part = 1
		}
		if part >= 0 {
			measured[part] += q.throughput
			predicted[part] += m.Throughput(q.load)
		}
	}
	for i, name := range []string{"rising", "plateau"} {
		t.Logf("%s quanta: measured %.1f calls, model %.1f", name, measured[i], predicted[i])
		if measured[i] == 0 || math.Abs(predicted[i]-measured[i]) > 0.05*measured[i] {
			t.Errorf("%s quanta: model %.1f calls, measured %.1f", name, predicted[i], measured[i])
		}
	}
}

// quantum is the load and throughput of one quantum of quanta.csv.
type quantum struct{ load, throughput float64 }

// readQuanta returns the quanta of quanta.csv in which a tester was
// active.
func readQuanta(t *testing.T, dir string) []quantum {
	t.Helper()
	tab := readCSV(t, filepath.Join(dir, "quanta.csv"), "load", "throughput", "active")
	if len(tab.rows) == 0 {
		t.Fatal("quanta.csv has no rows")
	}
	var out []quantum
	for _, r := range tab.rows {
		if r.int(t, "active") > 0 {
			out = append(out, quantum{load: r.float(t, "load"), throughput: r.float(t, "throughput")})
		}
	}
	return out
}

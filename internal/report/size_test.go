package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

// syntheticRun is a run of nq quanta of 0.1 s and nc testers, shaped like
// a DiPerF test: testers start one after another, each runs for half the
// run, the load climbs past a service's capacity of 40 calls in flight,
// holds and falls; throughput follows the USL with noise, response time
// Little's law. Each tester has 3 clock syncs. The generator is seeded.
func syntheticRun(nq, nc int) *analyze.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	p := syntheticModel().USL.Params()
	dur := float64(nq) / 10
	r := &analyze.Result{Name: "synthetic", Summary: analyze.Summary{QuantumS: 0.1, DurationS: dur,
		Saturation: analyze.Saturation{Saturated: true, Load: 40, Throughput: p.Throughput(40)},
		Peak:       analyze.Peak{StartS: dur / 2, EndS: dur / 2, Testers: nc}}}
	r.Quanta = make([]analyze.Quantum, nq)
	for i := range r.Quanta {
		t := float64(i) / 10
		load := 80 * math.Sin(math.Pi*t/dur) * (1 + 0.1*rng.NormFloat64())
		thr := p.Throughput(max(load, 0.01)) * (1 + 0.05*rng.NormFloat64())
		r.Quanta[i] = analyze.Quantum{T: t, Load: load, Active: nc, Throughput: thr,
			RT: analyze.RTStats{N: 10, Mean: 1000 * load / thr}}
	}
	r.Clients = make([]analyze.Client, nc)
	for i := range r.Clients {
		start := dur / 2 * float64(i) / float64(nc)
		lat := 1 + 200*rng.Float64()
		ok := int(500 / (1 + lat/100) * (1 + 0.1*rng.NormFloat64()))
		share := analyze.Share{OK: ok, Failed: i % 7, Utilization: 1 / float64(nc), Fairness: 0.8 + 0.4*rng.Float64(),
			MeanRTms: 2000 + 10*lat, AvgLoad: 40 + 30*math.Sin(math.Pi*float64(i)/float64(nc))}
		r.Clients[i] = analyze.Client{Index: i, ID: "h" + itoa(i) + ":1", Host: "h" + itoa(i), StartS: start,
			EndS: start + dur/2, Failed: i%101 == 0, LatencyMs: lat, Whole: share, Peak: share,
			Clock: analyze.TesterClock{Syncs: syncs(i, 3, dur/6)}}
	}
	r.Percentiles = percentiles(900, 9000)
	return r
}

// syntheticModel is the model syntheticRun draws its throughput from.
func syntheticModel() *model.Model {
	return &model.Model{USL: model.USL{Lambda: 20, Sigma: 0.02, Kappa: 0.0002, PeakLoad: 70, PeakThroughput: 418,
		R2: 0.95, MinLoad: 0.01, MaxLoad: 100}}
}

// TestPageSizeLarge renders a run of 10,000 testers and 100,000 quanta: the
// page stays under 5 MB, shows every graph, and the per-tester graphs are
// aggregated to their limits.
func TestPageSizeLarge(t *testing.T) {
	t.Parallel()
	r := syntheticRun(100_000, 10_000)
	page := renderModel(t, r, syntheticModel())
	t.Logf("page: %d bytes for %d quanta, %d testers", len(page), len(r.Quanta), len(r.Clients))
	if len(page) >= 5<<20 {
		t.Errorf("page is %d bytes, want < 5 MB", len(page))
	}
	svgs := map[string]string{}
	for _, s := range svgRE.FindAllString(page, -1) {
		checkXML(t, s)
		svgs[s[len(`<svg id="`):strings.Index(s, `" class`)]] = s
	}
	for _, id := range GraphIDs() {
		if svgs[id] == "" {
			t.Errorf("page lacks graph %q", id)
		}
	}
	for _, id := range []string{idLoadBubbles, idLatencyBubbles} {
		if n := strings.Count(svgs[id], "<circle") - 2; n > maxBubbles { // two are the legend's
			t.Errorf("%s draws %d bubbles, want at most %d", id, n, maxBubbles)
		}
		if !strings.Contains(svgs[id], "each bubble is the mean of 5 testers") {
			t.Errorf("%s does not say it aggregates", id)
		}
	}
	if n := strings.Count(svgs[idTesters], "<rect x=") - 1; n > maxBars { // one is the clip path's
		t.Errorf("utilization graph draws %d bars, want at most %d", n, maxBars)
	}
}

// TestPageSizeHuge renders the largest run the size bound is promised
// for, 1,000,000 quanta and 100,000 testers, of an open-model run whose
// clients reported extras and measured their HTTP phases, so that every
// interactive chart carries its most data: the page stays at most 5 MB,
// and each chart spec is bounded to maxSpecPoints rows whatever the run's
// length.
func TestPageSizeHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a run of a million quanta")
	}
	r := syntheticRun(1_000_000, 100_000)
	for i := range r.Quanta {
		q := &r.Quanta[i]
		q.RT.Median, q.RT.P90, q.RT.P99 = 0.9*q.RT.Mean, 1.5*q.RT.Mean, 3*q.RT.Mean
		q.Open = &analyze.OpenQuantum{OfferedPS: 400, AchievedPS: q.Throughput, Late: i % 13, Dropped: i % 29}
		q.Phases = &analyze.PhaseQuantum{FirstByteN: 1, FirstByteMs: 0.8 * q.RT.Mean}
		q.Extras = map[string]analyze.ExtraQuantum{"MB": {PerS: q.Throughput / 10}, "rows": {PerS: 7 * q.Throughput}}
	}
	page := renderModel(t, r, syntheticModel())
	t.Logf("page: %d bytes for %d quanta, %d testers", len(page), len(r.Quanta), len(r.Clients))
	if len(page) > 5<<20 {
		t.Errorf("page is %d bytes, want at most 5 MB", len(page))
	}
	specs := pageSpecs(t, page)
	for _, id := range append(slices.Clone(interactiveIDs), idOpenRate, idExtras) {
		s, ok := specs[id]
		if !ok {
			t.Errorf("page lacks the interactive chart %s", id)
			continue
		}
		// Graph (e) has the model's curves besides the quanta, graph (f)
		// the run's few percentiles.
		if len(s.X) > maxSpecPoints+3*curveSamples+1 || (len(s.X) < 100 && id != idPercentiles) {
			t.Errorf("chart %s has %d rows, want 100 to about %d", id, len(s.X), maxSpecPoints)
		}
	}
	if tl := specs[idTimeline]; len(tl.Series) < 7 {
		t.Errorf("timeline has %d series, want load, throughput, 4 response times and first byte", len(tl.Series))
	}
}

package analyze

import (
	"cmp"
	"slices"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// Result computes every metric from the calls added so far.
func (a *Accumulator) Result() (*Result, error) {
	if a.calls == 0 && len(a.testers) == 0 {
		return nil, errNoData
	}
	g := newGrid(a.origin, a.maxEnd, a.qn)
	v := a.cells.view(g.n)
	quanta := a.buildQuanta(g, v)
	tb := markTesterBound(quanta, a.cfg.Health, a.testers, g.origin, g.qn, a.cpt)
	all, allHist := a.quanta.merged()
	act := newActivity(lifetimes(a.testers))
	clients := a.buildClients(g, v, act)
	s := a.summarize(g, quanta, rtStats(all, allHist))
	s.Peak = Peak{Testers: a.most}
	if a.most > 0 || a.pc != nil && a.pc.most > 0 {
		s.Peak.StartS, s.Peak.EndS = g.seconds(a.peak.start), g.seconds(a.peak.end)
	}
	s.Fairness = Fairness{Jain: jain(peakCounts(clients, a.testers, a.peak))}
	s.OriginNs = g.origin
	s.Open = a.open.fill(quanta, float64(g.qn)/1e9)
	s.Saturation = JudgeSaturation(quanta, len(a.testers) == 0)
	s.Extras, s.ExtrasIgnored = a.extras.fill(quanta, float64(g.qn)/1e9, s.DurationS), a.extras.ignored
	s.HTTPPhases = a.phases.fill(quanta)
	s.Refused = a.refused()
	s.Testers.HealthQuanta, s.Testers.BoundQuanta = tb.known, tb.bound
	s.Testers.HealthRefused, s.Testers.HealthRefusedReason = tb.refused, tb.refusedReason
	r := &Result{Name: a.cfg.Name, Origin: g.origin, Summary: s, Quanta: quanta,
		Clients: clients, Percentiles: percentiles(all, allHist), rt: a.quanta.keep(g.n), health: tb.health}
	if a.pc != nil {
		a.pc.finish(r, a, g, v)
	}
	r.Summary.Transfer = a.transfer(r, quanta)
	r.Hosts, r.Sites, r.Summary.Hosts = a.hostFigures(g)
	return r, nil
}

// buildQuanta assembles the per-quantum time series.
func (a *Accumulator) buildQuanta(g grid, v loadView) []Quantum {
	qa := &a.quanta
	qa.grow(g.n - 1)
	active := activeTesters(a.testers, g)
	qs := make([]Quantum, g.n)
	qsec := float64(g.qn) / 1e9
	for q := range qs {
		qs[q] = Quantum{
			T:          float64(int64(q)*g.qn) / 1e9,
			Load:       v.area[q] / float64(g.qn),
			LoadMax:    v.max[q],
			Active:     active[q],
			Throughput: float64(qa.ok[q]) / qsec,
			OK:         qa.ok[q],
			Failed:     qa.failed[q],
			RT:         rtStats(qa.mom[q], qa.hists.peek(q)),
			Errors:     qa.errorMap(q),
			Bytes:      qa.bytes[q],
			BytesPerS:  float64(qa.bytes[q]) / qsec,
		}
	}
	return qs
}

// errorMap returns the non-zero class counts of quantum q, or nil.
func (qa *quantaAcc) errorMap(q int) map[string]int {
	var m map[string]int
	for k, n := range qa.errs[q*numClasses : (q+1)*numClasses] {
		if n > 0 {
			if m == nil {
				m = make(map[string]int)
			}
			m[sample.Status(k).String()] = n
		}
	}
	return m
}

// merged returns the moments and histogram of every quantum together: the
// whole run's successful calls.
func (qa *quantaAcc) merged() (stats.Moments, *hdr.Histogram) {
	var all stats.Moments
	h := newHist()
	for q := range qa.mom {
		if qa.mom[q].N == 0 {
			continue
		}
		all.Merge(qa.mom[q])
		h.Merge(qa.hists.peek(q))
	}
	return all, h
}

// percentiles returns the response-time distribution of the run's
// successful calls, of moments all and histogram h.
func percentiles(all stats.Moments, h *hdr.Histogram) []PercentilePoint {
	if all.N == 0 {
		return nil
	}
	out := make([]PercentilePoint, len(PercentileRanks))
	for i, p := range PercentileRanks {
		ms := all.PercentileOf(h, p)
		switch p {
		case 0:
			ms = all.MinMs()
		case 100:
			ms = all.MaxMs()
		}
		out[i] = PercentilePoint{P: p, Ms: ms}
	}
	return out
}

// buildClients computes every tester's Whole and Peak shares. A tester gets
// a Peak share only if it was active over the whole peak window.
func (a *Accumulator) buildClients(g grid, v loadView, act activity) []Client {
	peakLoad := avgLoad(g, v, a.peak)
	peakOK := v.okIn(a.peak.start, a.peak.end)
	out := make([]Client, len(a.testers))
	for i, t := range a.testers {
		w := window{t.Start, t.End}
		out[i] = Client{
			Index:     t.Index,
			ID:        t.ID,
			Host:      t.Host,
			StartS:    g.seconds(t.Start),
			EndS:      g.seconds(t.End),
			Failed:    t.Failed,
			LatencyMs: t.LatencyMs,
			Whole:     a.whole.share(i, v.okIn(w.start, w.end), avgLoad(g, v, w), act.mean(w)),
			Peak:      a.inPeak.share(i, peakOK, peakLoad, float64(a.most)),
			Clock:     testerClock(t, g),
			Site:      t.Site,
		}
	}
	return out
}

// avgLoad is the time-weighted mean offered load over window w; 0 for an
// empty window.
func avgLoad(g grid, v loadView, w window) float64 {
	s, e := g.clamp(w.start), g.clamp(w.end)
	if e <= s {
		return 0
	}
	return (v.integral(e) - v.integral(s)) / float64(e-s)
}

// share returns tester t's Share: okAll is the number of successful calls
// of every tester ending in its window, load the mean offered load there
// and testers the mean number of testers active there.
func (ta *testerAcc) share(t, okAll int, load, testers float64) Share {
	if !ta.use[t] {
		return Share{}
	}
	m := &ta.mom[t]
	rt := rtStats(*m, ta.hists[t])
	s := Share{OK: ta.ok[t], Failed: ta.failed[t], MeanRTms: rt.Mean, MedianRTms: rt.Median,
		P99RTms: rt.P99, AvgLoad: load}
	s.Bytes, s.MBPerS = ta.rate(t)
	if okAll > 0 {
		s.Utilization = min(float64(ta.ok[t])/float64(okAll), 1)
		s.Fairness = s.Utilization * testers
	}
	return s
}

// activity is the number of testers active against time, as prefix
// integrals at its change points, to give the mean over any window.
type activity struct {
	t   []int64   // change points, ascending
	n   []int     // testers active from t[i] to t[i+1]
	cum []float64 // ∫ active dt from t[0] to t[i], tester·ns
}

// newActivity builds the activity of testers (or clients) over their
// lifetimes.
func newActivity(lives []window) activity {
	type ev struct {
		t int64
		d int
	}
	evs := make([]ev, 0, 2*len(lives))
	for _, t := range lives {
		evs = append(evs, ev{t.start, 1}, ev{t.end, -1})
	}
	slices.SortFunc(evs, func(x, y ev) int { return cmp.Compare(x.t, y.t) })
	var a activity
	run := 0
	for i := 0; i < len(evs); {
		t, c := evs[i].t, 0.0
		if k := len(a.t) - 1; k >= 0 {
			c = a.cum[k] + float64(run)*float64(t-a.t[k])
		}
		for ; i < len(evs) && evs[i].t == t; i++ {
			run += evs[i].d
		}
		a.t, a.n, a.cum = append(a.t, t), append(a.n, run), append(a.cum, c)
	}
	return a
}

// integral returns ∫ active dt from the first change point to t.
func (a activity) integral(t int64) float64 {
	i := sort.Search(len(a.t), func(i int) bool { return a.t[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return a.cum[i] + float64(a.n[i])*float64(t-a.t[i])
}

// mean returns the mean number of testers active over w (for an empty
// window, those active at its instant).
func (a activity) mean(w window) float64 {
	if w.end <= w.start {
		return a.integral(w.start+1) - a.integral(w.start)
	}
	return (a.integral(w.end) - a.integral(w.start)) / float64(w.end-w.start)
}

package analyze

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// maxClientsPerTester bounds Config.ClientsPerTester (as the experiment
// and the protocol do), which sizes per-client tables.
const maxClientsPerTester = 100_000

// Per-client response times go into histograms of 1 significant digit
// (percentiles within about 6%, clamped to the exact minimum and maximum)
// rather than the 2 of the per-tester ones: a tenth of the memory, for
// runs of 10,000s of clients.
const perClientHistDigits = 1

// newClientHist returns an empty per-client response-time histogram.
func newClientHist() *hdr.Histogram {
	return hdr.New(stats.RTLowestUs, stats.RTHighestUs, perClientHistDigits)
}

// perClient is the analysis of a run whose testers ran several client
// loops each: a client is a (tester, client index) pair, numbered tester
// position × cpt + client index ("unit").
type perClient struct {
	cpt           int
	lives         []window // per unit: when the client ran
	peak          window   // where the most clients ran at once
	most          int      // clients that ran over the whole peak window
	whole, inPeak *testerAcc
}

// newPerClient prepares the per-client analysis of testers (sorted by
// Index) that ran cpt clients each, client j starting j × stagger after
// its tester (and never after its tester's end).
func newPerClient(testers []Tester, cpt int, stagger time.Duration) *perClient {
	n := len(testers) * cpt
	pc := &perClient{cpt: cpt, lives: make([]window, n),
		whole: newShareAcc(n, newClientHist), inPeak: newShareAcc(n, newClientHist)}
	for i, t := range testers {
		for j := range cpt {
			start := t.End
			if off := int64(j) * int64(stagger); off < t.End-t.Start {
				start = t.Start + off
			}
			pc.lives[i*cpt+j] = window{start, t.End}
		}
	}
	pc.peak, pc.most = peakWindow(pc.lives)
	for u, w := range pc.lives {
		pc.whole.win[u], pc.whole.use[u] = w, true
		pc.inPeak.win[u], pc.inPeak.use[u] = pc.peak, pc.peak.within(w.start, w.end)
	}
	return pc
}

// testersIn returns how many testers ran over the whole peak window.
func (pc *perClient) testersIn(testers []Tester) int {
	n := 0
	for _, t := range testers {
		if pc.peak.within(t.Start, t.End) {
			n++
		}
	}
	return n
}

// finish adds the per-client rows to r, and makes Jain's index and the
// peak's count of clients theirs.
func (pc *perClient) finish(r *Result, a *Accumulator, g grid, v loadView) {
	act := newActivity(pc.lives)
	peakLoad := avgLoad(g, v, pc.peak)
	peakOK := v.okIn(pc.peak.start, pc.peak.end)
	r.PerClient = make([]Client, len(pc.lives))
	var xs []int
	for u, w := range pc.lives {
		t := &r.Clients[u/pc.cpt]
		c := Client{Index: t.Index, Client: u % pc.cpt, ID: t.ID, Host: t.Host,
			StartS: g.seconds(w.start), EndS: g.seconds(w.end), Failed: t.Failed, LatencyMs: t.LatencyMs,
			Whole: pc.whole.share(u, v.okIn(w.start, w.end), avgLoad(g, v, w), act.mean(w)),
			Peak:  pc.inPeak.share(u, peakOK, peakLoad, float64(pc.most)),
			Clock: t.Clock, Site: t.Site}
		if pc.inPeak.use[u] {
			xs = append(xs, c.Peak.OK)
		}
		r.PerClient[u] = c
	}
	r.Summary.Fairness = Fairness{Jain: jain(xs), Clients: len(xs)}
	r.Summary.Peak.Clients = pc.most
}

package analyze

import (
	"errors"
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// Config describes a run to an Accumulator: everything but its calls.
type Config struct {
	Name    string        // experiment name
	Quantum time.Duration // aggregation quantum, at least MinQuantum
	Planned int           // testers the experiment asked for
	Lost    int           // samples known to be lost
	// UDP, when the samples came as datagrams (controller.transport:
	// udp), are the run's datagram counts, summed over its testers.
	UDP     *UDPCounts
	Testers []Tester // every tester that started, any order
	// Origin is the global Unix ns of the run's start when there are no
	// testers (the earliest call start); with testers it is their earliest
	// start. Either way it is rounded down to a multiple of the quantum.
	Origin int64
	// ClientsPerTester is how many client loops each tester ran (0 is
	// one). With more, the analysis takes a client as (tester, client):
	// Result.PerClient has a row for each, Jain's index is over them and
	// the peak window is where the most clients ran.
	ClientsPerTester int
	// ClientStartInterval staggers a tester's clients: client j started
	// j × this after its tester (0: together).
	ClientStartInterval time.Duration
	// Span bounds the run on the global timeline (zero: unbounded): see
	// Span.
	Span Span
	// Refused lists what the controller refused of each tester at ingest
	// (testers.csv), for Summary.Refused.
	Refused []TesterRefusal
	// Health is the testers' self-health per second (health.csv; nil:
	// unknown), from which the analysis marks the tester-bound quanta
	// (Quantum.TesterBound, testerbound.go).
	Health []sample.Health
}

// Accumulator folds the calls of a run, in batches and in any order, into
// every metric of Compute in one pass and in memory that grows with the
// run's duration and testers, not with its calls. Calls of one tester are
// best given in time order (as samples.parquet holds them): see LoadMax.
type Accumulator struct {
	cfg      Config
	testers  []Tester // by Index
	slots    testerSlots
	origin   int64
	qn       int64
	peak     window
	most     int
	cells    *cells
	quanta   quantaAcc
	open     openAcc // the open model's figures (schedule.rate)
	extras   extrasAcc
	phases   phasesAcc
	whole    *testerAcc
	inPeak   *testerAcc
	pc       *perClient // nil when every tester ran one client
	cpt      int        // clients per tester, at least 1
	lastBusy []int      // per client (tester × cpt + client): last cell its latest-ending call was counted busy in
	lastEnd  []int64    // per client: end of its latest-ending call so far
	byClass  []int
	calls    int
	maxEnd   int64
	testEnd  int64      // latest tester end
	outside  outsideAcc // calls refused: outside cfg.Span
	cut      int        // testers whose lifetime was cut to cfg.Span
}

// NewAccumulator prepares the analysis of a run described by cfg.
func NewAccumulator(cfg Config) (*Accumulator, error) {
	if cfg.Quantum < MinQuantum {
		return nil, fmt.Errorf("analyze: quantum %v is below %v", cfg.Quantum, MinQuantum)
	}
	testers, slots, err := sortTesters(cfg.Testers)
	if err != nil {
		return nil, err
	}
	a := &Accumulator{cfg: cfg, testers: testers, slots: slots, qn: int64(cfg.Quantum),
		byClass: make([]int, numClasses), outside: outsideAcc{perTester: make([]uint64, len(testers))}}
	a.cut = cfg.Span.cutTesters(testers)
	a.origin = cfg.Span.clamp(cfg.Origin)
	if len(testers) > 0 {
		a.origin, a.testEnd = testers[0].Start, testers[0].End
		for _, t := range testers {
			a.origin, a.testEnd = min(a.origin, t.Start), max(a.testEnd, t.End)
		}
	}
	// Quanta start on multiples of the quantum in Unix time, so that they
	// line up with other per-second views of the same run (a server's own
	// counters, Prometheus) and with the quanta of other runs.
	a.origin -= ((a.origin % a.qn) + a.qn) % a.qn
	a.maxEnd = a.testEnd
	a.cells = newCells(a.origin, a.qn, cellsFor(a.qn, a.testEnd-a.origin))
	a.quanta.hists = newHistStore(maxLiveHists)
	a.cpt = max(cfg.ClientsPerTester, 1)
	if a.cpt > maxClientsPerTester {
		return nil, fmt.Errorf("analyze: %d clients per tester (at most %d)", a.cpt, maxClientsPerTester)
	}
	a.peak, a.most = peakWindow(lifetimes(testers))
	if a.cpt > 1 {
		a.pc = newPerClient(testers, a.cpt, cfg.ClientStartInterval)
		a.peak, a.most = a.pc.peak, a.pc.testersIn(testers)
	}
	a.whole, a.inPeak = newTesterAcc(len(testers)), newTesterAcc(len(testers))
	a.lastBusy, a.lastEnd = make([]int, len(testers)*a.cpt), make([]int64, len(testers)*a.cpt)
	for u := range a.lastBusy {
		a.lastBusy[u], a.lastEnd[u] = -1, math.MinInt64
	}
	for i, t := range testers {
		a.whole.win[i], a.whole.use[i] = window{t.Start, t.End}, true
		a.inPeak.win[i], a.inPeak.use[i] = a.peak, a.peak.within(t.Start, t.End)
	}
	return a, nil
}

// Add folds calls into the analysis. A call that ends before it starts or
// has an unknown status is an error, and nothing of its batch after it is
// counted.
func (a *Accumulator) Add(calls []sample.Call) error {
	for i := range calls {
		c := &calls[i]
		if c.End < c.Start {
			return fmt.Errorf("analyze: call of tester %d ends before it starts", c.Tester)
		}
		if !c.Status.Valid() {
			return fmt.Errorf("analyze: call of tester %d: unknown status %v", c.Tester, c.Status)
		}
		if int64(c.Client) >= int64(a.cpt) {
			return fmt.Errorf("analyze: call of tester %d is of client %d, but each tester ran %d clients", c.Tester, c.Client, a.cpt)
		}
		if !a.cfg.Span.HoldsCall(c) {
			a.outside.add(a.slots.at(c.Tester))
			continue
		}
		a.add(c)
	}
	return nil
}

// add folds one valid call.
func (a *Accumulator) add(c *sample.Call) {
	slot := a.slots.at(c.Tester)
	unit := -1 // the client: tester × cpt + client
	if slot >= 0 {
		unit = slot*a.cpt + int(c.Client)
	}
	s, e := max(c.Start, a.origin), max(c.End, a.origin)
	if e > s {
		// A client's call that starts after its previous one ended shares
		// no instant with it: in the cell where one ends and the next
		// starts, the client counts once towards the most in flight.
		from := 0
		if unit >= 0 && s >= a.lastEnd[unit] {
			from = a.lastBusy[unit] + 1
		}
		last := a.cells.add(s, e, from)
		if unit >= 0 && e >= a.lastEnd[unit] {
			a.lastBusy[unit], a.lastEnd[unit] = last, e
		}
	}
	a.calls++
	a.byClass[c.Status]++
	a.maxEnd = max(a.maxEnd, c.End)
	q := int((e - a.origin) / a.qn)
	d := c.End - c.Start
	if c.Intended != 0 {
		// The open model: the response time is measured from the
		// intended start, so that a call that waited for a client (a
		// stalled service) shows the wait (no coordinated omission).
		d = c.End - min(c.Intended, c.Start)
		a.open.add(c, a.quantumOf)
	}
	a.quanta.add(q, c, d)
	if len(c.Extras) > 0 {
		a.extras.add(q, c)
	}
	if !c.Phases.Zero() {
		a.phases.add(q, c)
	}
	if c.Status == sample.OK {
		a.cells.complete(e)
	}
	if slot >= 0 {
		a.whole.count(slot, c, d)
		a.inPeak.count(slot, c, d)
		if a.pc != nil {
			a.pc.whole.count(unit, c, d)
			a.pc.inPeak.count(unit, c, d)
		}
	}
}

// quantumOf returns the quantum of global time t (times before the
// origin are in quantum 0).
func (a *Accumulator) quantumOf(t int64) int { return int((max(t, a.origin) - a.origin) / a.qn) }

// quantaAcc accumulates the per-quantum figures.
type quantaAcc struct {
	ok, failed []int
	errs       []int // per quantum × class
	bytes      []int64
	mom        []stats.Moments
	hists      *histStore
}

// add counts call c, of duration d, ending in quantum q.
func (qa *quantaAcc) add(q int, c *sample.Call, d int64) {
	qa.grow(q)
	qa.bytes[q] += c.Bytes
	switch c.Status {
	case sample.OK:
		qa.ok[q]++
		qa.mom[q].Add(d)
		record(qa.hists.get(q), d)
	case sample.Cancelled:
		qa.errs[q*numClasses+int(c.Status)]++
	default:
		qa.failed[q]++
		qa.errs[q*numClasses+int(c.Status)]++
	}
}

// grow makes room for quantum q.
func (qa *quantaAcc) grow(q int) {
	if q < len(qa.ok) {
		return
	}
	n := max(q+1, 2*len(qa.ok), 64)
	qa.ok = append(qa.ok, make([]int, n-len(qa.ok))...)
	qa.failed = append(qa.failed, make([]int, n-len(qa.failed))...)
	qa.errs = append(qa.errs, make([]int, n*numClasses-len(qa.errs))...)
	qa.bytes = append(qa.bytes, make([]int64, n-len(qa.bytes))...)
	qa.mom = append(qa.mom, make([]stats.Moments, n-len(qa.mom))...)
}

// testerAcc accumulates one Share per tester (or client), each over its
// own window.
type testerAcc struct {
	win     []window // per tester
	use     []bool   // per tester: whether it has a window at all
	ok      []int
	failed  []int
	mom     []stats.Moments
	hists   []*hdr.Histogram // per tester, made at its first successful call
	newHist func() *hdr.Histogram
	bytes   []int64 // per tester: bytes its calls reported, whatever their status
}

// newTesterAcc prepares the accumulator of n testers.
func newTesterAcc(n int) *testerAcc {
	return newShareAcc(n, newHist)
}

// newShareAcc prepares the accumulator of n shares whose response times
// go to histograms made by mk.
func newShareAcc(n int, mk func() *hdr.Histogram) *testerAcc {
	return &testerAcc{win: make([]window, n), use: make([]bool, n), ok: make([]int, n),
		failed: make([]int, n), mom: make([]stats.Moments, n), hists: make([]*hdr.Histogram, n), newHist: mk,
		bytes: make([]int64, n)}
}

// count tallies call c, of duration d, of tester t if it ends in t's window.
func (ta *testerAcc) count(t int, c *sample.Call, d int64) {
	if !ta.use[t] || !ta.win[t].contains(c.End) {
		return
	}
	ta.bytes[t] += c.Bytes
	switch c.Status {
	case sample.OK:
		ta.ok[t]++
		ta.mom[t].Add(d)
		if ta.hists[t] == nil {
			ta.hists[t] = ta.newHist()
		}
		record(ta.hists[t], d)
	case sample.Cancelled:
	default:
		ta.failed[t]++
	}
}

// errNoData is returned by Result for a run with no calls and no testers.
var errNoData = errors.New("analyze: no calls and no testers")

package analyze

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// PhaseStats summarises one HTTP phase over the calls that measured it,
// ms.
type PhaseStats struct {
	N    int     `json:"n"` // calls that measured the phase
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// HTTPPhases summarises the HTTP phases of a run's calls (summary.json
// "http_phases_ms"), each over the calls, whatever their status, that
// measured it (a phase of 0 was not measured: no lookup for an address,
// no connect or handshake on a reused connection).
type HTTPPhases struct {
	DNS       PhaseStats `json:"dns"`
	Connect   PhaseStats `json:"connect"`
	TLS       PhaseStats `json:"tls"`
	FirstByte PhaseStats `json:"first_byte"`
}

// PhaseQuantum is one quantum's HTTP phase figures.
type PhaseQuantum struct {
	FirstByteN  int     // calls completed in the quantum that measured their first byte
	FirstByteMs float64 // their mean time to first byte, ms (0 when none)
}

// numPhases is the number of phases of sample.Phases.
const numPhases = 4

// phasesAcc accumulates the HTTP phases over the run, and the time to
// first byte per quantum.
type phasesAcc struct {
	any  bool
	mom  [numPhases]stats.Moments
	hist [numPhases]*hdr.Histogram
	fb   sumSeries // per quantum: calls that measured the first byte, its sum in ns
}

// add counts the phases of call c, completed in quantum q; c measured
// at least one.
func (pa *phasesAcc) add(q int, c *sample.Call) {
	p := &c.Phases
	pa.start()
	for i, d := range [numPhases]int64{p.DNS, p.Connect, p.TLS, p.FirstByte} {
		if d > 0 {
			pa.mom[i].Add(d)
			record(pa.hist[i], d)
		}
	}
	if p.FirstByte > 0 {
		pa.fb.add(q, float64(p.FirstByte))
	}
}

// start makes the histograms at the first phase.
func (pa *phasesAcc) start() {
	if !pa.any {
		pa.any = true
		for i := range pa.hist {
			pa.hist[i] = newHist()
		}
	}
}

// merge adds the phases of b to pa.
func (pa *phasesAcc) merge(b *phasesAcc) {
	if !b.any {
		return
	}
	pa.start()
	for i := range pa.mom {
		pa.mom[i].Merge(b.mom[i])
		pa.hist[i].Merge(b.hist[i])
	}
	pa.fb.merge(&b.fb)
}

// fill sets the phase figures of the quanta and returns the run's, or
// nil when no call measured any phase.
func (pa *phasesAcc) fill(qs []Quantum) *HTTPPhases {
	if !pa.any {
		return nil
	}
	pa.fb.grow(len(qs) - 1)
	for q := range qs {
		p := &PhaseQuantum{FirstByteN: pa.fb.n[q]}
		if p.FirstByteN > 0 {
			p.FirstByteMs = pa.fb.sum[q] / float64(p.FirstByteN) / nsPerMs
		}
		qs[q].Phases = p
	}
	var st [numPhases]PhaseStats
	for i := range st {
		rt := rtStats(pa.mom[i], pa.hist[i])
		st[i] = PhaseStats{N: rt.N, Mean: rt.Mean, P50: rt.Median, P99: rt.P99, Max: rt.Max}
	}
	return &HTTPPhases{DNS: st[0], Connect: st[1], TLS: st[2], FirstByte: st[3]}
}

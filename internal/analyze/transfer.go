package analyze

import (
	"fmt"
	"strconv"
)

// Transfer is the data a run's calls moved (thesis §5.2, Table 5): the
// aggregate MB/s and, per client, the MB/s each got in the peak window
// and Jain's index over them. MB is 10^6 bytes.
type Transfer struct {
	Bytes int64 `json:"bytes"` // reported by every call of the run, whatever its status
	// MBPerS is the aggregate MB/s per quantum, over the quanta in which a
	// tester was active (as the throughput row).
	MBPerS Stats `json:"mb_per_s"`
	// ClientMBPerS is the MB/s of each client that ran over the whole
	// peak window, there (clients.csv peak_mb_per_s).
	ClientMBPerS Stats `json:"client_mb_per_s"`
	// Jain is Jain's fairness index over those clients' MB/s: 1 when all
	// got the same, 1/n when one got everything.
	Jain    float64 `json:"jain"`
	Clients int     `json:"clients"` // clients the index is over
}

// mb is a megabyte, the unit of the transfer figures.
const mb = 1e6

// rate returns the bytes share t's calls reported and that over its
// window, in MB/s (0 for an empty window).
func (ta *testerAcc) rate(t int) (int64, float64) {
	w := ta.win[t]
	if w.end <= w.start {
		return ta.bytes[t], 0
	}
	return ta.bytes[t], float64(ta.bytes[t]) / mb / (float64(w.end-w.start) / 1e9)
}

// transfer returns the run's Transfer, nil when no call reported bytes.
func (a *Accumulator) transfer(r *Result, quanta []Quantum) *Transfer {
	var total int64
	for _, b := range a.quanta.bytes { // every call's, the quanta's and any ending past the last
		total += b
	}
	var agg []float64
	for _, q := range quanta {
		if q.Active > 0 || len(a.testers) == 0 {
			agg = append(agg, q.BytesPerS/mb)
		}
	}
	if total == 0 {
		return nil
	}
	inPeak, rows := a.inPeak, r.Clients
	if a.pc != nil {
		inPeak, rows = a.pc.inPeak, r.PerClient
	}
	var xs []float64
	for u, c := range rows {
		if inPeak.use[u] {
			xs = append(xs, c.Peak.MBPerS)
		}
	}
	return &Transfer{Bytes: total, MBPerS: floatStats(agg, "MB/s"), ClientMBPerS: floatStats(xs, "MB/s"),
		Jain: jainOf(xs), Clients: len(xs)}
}

// jainOf is Jain's fairness index of xs, (Σx)² / (n Σx²): 0 for none or
// all zero, 1 for one.
func jainOf(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	switch {
	case len(xs) == 1:
		return 1
	case sq == 0:
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// bytesHeader is the part of clients.csv's header a run whose calls
// reported bytes has: each client's bytes and MB/s over its run and over
// the peak window.
var bytesHeader = []string{"bytes", "mb_per_s", "peak_bytes", "peak_mb_per_s"}

// hasBytes reports whether any row of cs reported bytes.
func hasBytes(cs []Client) bool {
	for _, c := range cs {
		if c.Whole.Bytes != 0 || c.Peak.Bytes != 0 {
			return true
		}
	}
	return false
}

// bytesCells renders c's transfer figures as clients.csv's bytes cells.
func bytesCells(c Client) []string {
	return []string{strconv.FormatInt(c.Whole.Bytes, 10), ff(c.Whole.MBPerS),
		strconv.FormatInt(c.Peak.Bytes, 10), ff(c.Peak.MBPerS)}
}

// Text is t in words, as the printed summary and the report say it.
func (t *Transfer) Text() string {
	return fmt.Sprintf("%s MB in all; aggregate MB/s min %s, median %s, mean %s, max %s; per client in the peak "+
		"window (%d clients) min %s, median %s, max %s MB/s, Jain %.3f", f3(float64(t.Bytes)/mb),
		f3(t.MBPerS.Min), f3(t.MBPerS.Median), f3(t.MBPerS.Mean), f3(t.MBPerS.Max), t.Clients,
		f3(t.ClientMBPerS.Min), f3(t.ClientMBPerS.Median), f3(t.ClientMBPerS.Max), t.Jain)
}

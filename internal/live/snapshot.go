package live

import (
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"

	"github.com/diperf/diperf/internal/sample"
)

// Snapshot is what r knows now, as the dashboard shows it.
type Snapshot struct {
	Name     string         `json:"name"`
	State    string         `json:"state"`  // running, ended
	Report   string         `json:"report"` // the report's path once written
	NowNs    int64          `json:"now_ns"`
	Planned  int            `json:"planned"`
	Seconds  []Second       `json:"seconds"`
	Totals   Totals         `json:"totals"`
	States   map[string]int `json:"states"`  // testers by state
	Testers  []Tester       `json:"testers"` // at most MaxTesterRows: failed ones first, then by index
	Omitted  int            `json:"omitted"` // testers not in Testers
	Errors   []ErrorClass   `json:"errors"`
	ClockMax ClockMax       `json:"clock"`
}

// Totals are the run's counts so far.
type Totals struct {
	ByClass  map[string]uint64 `json:"by_class"` // calls by outcome class
	Received uint64            `json:"received"` // samples received
	Pending  uint64            `json:"pending"`  // samples the testers made that have not arrived (lost or in flight)
	P50Ms    float64           `json:"p50_ms"`   // whole-run response-time percentiles of successful calls
	P90Ms    float64           `json:"p90_ms"`
	P99Ms    float64           `json:"p99_ms"`
}

// ClockMax is the worst clock figures over the testers' latest syncs.
type ClockMax struct {
	AbsOffsetMs float64 `json:"max_abs_offset_ms"`
	BoundMs     float64 `json:"max_bound_ms"`
}

// MaxTesterRows bounds the testers a snapshot lists.
const MaxTesterRows = 1000

// Snapshot returns the seconds from since (Unix s; everything when 0 or
// earlier than the run) and the rest of r's state. Provisional seconds are
// included with their figures so far.
func (r *Run) Snapshot(since int64) Snapshot {
	if r == nil {
		return Snapshot{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Snapshot{Name: r.name, State: r.state, Report: r.report, NowNs: r.now().UnixNano(), Planned: r.planned,
		States: map[string]int{}}
	s.Seconds = r.seconds(since)
	s.Totals = r.totals()
	s.Testers, s.Omitted, s.ClockMax = r.testerRows(s.States)
	s.Errors = r.errorClasses()
	return s
}

// seconds copies the rows from since, filling the provisional ones.
func (r *Run) seconds(since int64) []Second {
	i := min(max(since-r.t0, 0), int64(len(r.rows)))
	out := append([]Second(nil), r.rows[i:]...)
	for k := range out {
		out[k].show()
		out[k].rt = stats.Bucket{}
	}
	return out
}

func (r *Run) totals() Totals {
	t := Totals{ByClass: map[string]uint64{}, Received: r.recv}
	for i, n := range r.classes {
		if n > 0 {
			t.ByClass[sample.Status(i).String()] = n
		}
	}
	for _, x := range r.testers {
		if x.Produced > x.Received {
			t.Pending += x.Produced - x.Received
		}
	}
	t.P50Ms, t.P90Ms, t.P99Ms = r.whole.Percentile(50), r.whole.Percentile(90), r.whole.Percentile(99)
	return t
}

// testerRows lists at most MaxTesterRows testers, failed ones first,
// counting every tester by state into states.
func (r *Run) testerRows(states map[string]int) ([]Tester, int, ClockMax) {
	var cm ClockMax
	var failed, rest []Tester
	for _, t := range r.testers {
		states[t.State]++
		cm.AbsOffsetMs = max(cm.AbsOffsetMs, abs(t.OffsetMs))
		cm.BoundMs = max(cm.BoundMs, t.BoundMs)
		row := *t
		row.MeanMs = t.rt.Mean()
		if t.State == StateFailed {
			failed = append(failed, row)
		} else if len(rest) < MaxTesterRows {
			rest = append(rest, row)
		}
	}
	out := append(failed, rest...)
	if len(out) > MaxTesterRows {
		out = out[:MaxTesterRows]
	}
	return out, len(r.testers) - len(out), cm
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func (r *Run) errorClasses() []ErrorClass {
	var out []ErrorClass
	for i, e := range r.errs {
		if e.count > 0 {
			out = append(out, ErrorClass{Class: sample.Status(i).String(), Count: e.count, Recent: append([]string(nil), e.recent...)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// Recent returns calls ok and failed so far, and the throughput (calls/s)
// and mean response time (ms) over the two complete seconds before the
// last one, for the progress line.
func (r *Run) Recent() (ok, failed uint64, tput, rtMs float64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ok = r.classes[sample.OK]
	for i, n := range r.classes {
		if s := sample.Status(i); s != sample.OK && s != sample.Cancelled {
			failed += n
		}
	}
	cur := r.now().Unix()
	var two stats.Bucket // the two seconds, without histogram
	for t := cur - 3; t < cur-1; t++ {
		if i := t - r.t0; i >= 0 && i < int64(len(r.rows)) {
			two.OK += r.rows[i].rt.OK
			two.Moments.Merge(r.rows[i].rt.Moments)
		}
	}
	return ok, failed, float64(two.OK) / 2, two.Mean()
}

// Whole returns a copy of the whole run's response-time histogram (µs) of
// successful calls and the exact sum of their response times (ms), for
// the Prometheus histogram.
func (r *Run) Whole() (*hdr.Histogram, float64) {
	if r == nil {
		return stats.NewRTHist(), 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return hdr.Import(r.whole.Hist.Export()), r.whole.Sum / 1e6
}

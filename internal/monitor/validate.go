package monitor

import (
	"fmt"
	"math"
	"sort"
)

// End is one successful call's end as its client stamped it (Unix ns on
// the global timeline, the controller's clock) with how far the server's
// count of it may lie from that stamp: up to Early before it (the
// tester's clock error bound plus the time from the server's count to
// the client's stamp) and up to Late after it (the clock error bound).
type End struct {
	Ns, Early, Late int64
}

// Read is one scrape instant (a boundary of the intervals) with half the
// scrape's duration: the counter was read within HalfNs of AtNs.
type Read struct {
	AtNs, HalfNs int64
}

// Interval is one row of a validation: the clients' successful calls that
// ended in [FromNs, ToNs) against a server counter's increase between the
// scrapes at FromNs and ToNs; a window merges consecutive scrape
// intervals until it holds MinCalls calls.
type Interval struct {
	FromNs, ToNs int64
	Scrapes      int     // scrape intervals merged into it
	Clients      int     // successful calls that ended in the interval
	Server       float64 // the counter's increase, less what the scrapes themselves added
	Diff         float64 // Server - Clients
	Pct          float64 // |Diff| / Server, in % (0 when both are 0)
	// NearFrom and NearTo are the calls that ended near its first and
	// last boundary (see Near): calls either view may count on the
	// other side.
	NearFrom, NearTo int
	Allowed          float64 // NearFrom + NearTo + tolerance % of Server
	Checked          bool    // held to Allowed (at least MinCalls calls)
	Cum              Gap     // the cumulative gap at ToNs
}

// Validation is a client view held against a server counter.
type Validation struct {
	Intervals []Interval // the windows, in time order
	Scrapes   int        // scrape intervals in all
	Checked   int        // windows held to their allowance
	MaxPct    float64    // largest |difference| % of a checked window
	MedianPct float64    // median |difference| % of the checked windows
	Beyond    int        // checked windows past their allowance
	Cum       GapSummary // the cumulative gap over the run
	Calls     int        // successful calls in the scrape intervals
	Refused   int        // scrape durations refused (negative, NaN, or longer than the scrape interval)
}

// Check is what Validate compares.
type Check struct {
	Ends      []End      // the clients' successful calls, any order
	Incs      []Increase // the counter's increases between successful scrapes
	Reads     []Read     // each scrape's instant and half duration (missing: 0)
	PerScrape float64    // what each scrape adds to the counter itself (1 for stub_status)
	MinCalls  int        // the fewest calls a window is held to its allowance with
	Tolerance float64    // % of the server's count allowed beyond the calls near the boundaries
}

// Validate holds the clients' successful calls against a counter's
// increases: consecutive scrape intervals are merged into windows of at
// least MinCalls calls (on either side; a last window short of it joins
// the one before), and each window's |Server - Clients| is held to its
// allowance: the calls that ended near either of its two boundaries (the
// two views may count them on either side) plus Tolerance % of Server.
// The cumulative gap is held to the same rule at each window's end.
func Validate(c Check) Validation {
	ends := append([]End(nil), c.Ends...)
	sort.Slice(ends, func(i, j int) bool { return ends[i].Ns < ends[j].Ns })
	nb := newNear(ends, c.Reads, c.Incs)
	ivs := scrapeIntervals(ends, c.Incs, c.PerScrape)
	v := Validation{Scrapes: len(ivs), Refused: nb.refused}
	for _, iv := range ivs {
		v.Calls += iv.Clients
	}
	v.Intervals = merge(ivs, c.MinCalls)
	var pcts []float64
	for i := range v.Intervals {
		iv := &v.Intervals[i]
		iv.NearFrom, iv.NearTo = nb.count(iv.FromNs), nb.count(iv.ToNs)
		iv.Allowed = float64(iv.NearFrom+iv.NearTo) + c.Tolerance/100*iv.Server
		if !iv.Checked {
			continue
		}
		v.Checked++
		pcts = append(pcts, iv.Pct)
		v.MaxPct = math.Max(v.MaxPct, iv.Pct)
		if math.Abs(iv.Diff) > iv.Allowed {
			v.Beyond++
		}
	}
	v.MedianPct = median(pcts)
	v.Cum = cumulate(v.Intervals, c.Tolerance)
	return v
}

// scrapeIntervals counts the calls that ended in each increase's
// interval.
func scrapeIntervals(ends []End, incs []Increase, perScrape float64) []Interval {
	out := make([]Interval, 0, len(incs))
	for _, in := range incs {
		lo := sort.Search(len(ends), func(i int) bool { return ends[i].Ns >= in.FromNs })
		hi := sort.Search(len(ends), func(i int) bool { return ends[i].Ns >= in.ToNs })
		out = append(out, Interval{FromNs: in.FromNs, ToNs: in.ToNs, Scrapes: 1, Clients: hi - lo,
			Server: math.Max(0, in.Value-perScrape)})
	}
	return out
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MaxTolerance is the largest tolerance Validate holds intervals to, in
// %: a difference as large as the server's count itself.
const MaxTolerance = 100

// CheckTolerance refuses a tolerance Validate cannot hold intervals to:
// not a number, negative, or above MaxTolerance (no interval would ever
// be found beyond a NaN or an infinite one).
func CheckTolerance(pct float64) error {
	if math.IsNaN(pct) || pct < 0 || pct > MaxTolerance {
		return fmt.Errorf("tolerance %g%% is not from 0%% to %d%%", pct, MaxTolerance)
	}
	return nil
}

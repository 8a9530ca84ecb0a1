package monitor

import (
	"fmt"
	"math"
	"sort"
)

// Interval is one row of a validation: the clients' successful calls that
// ended in [FromNs, ToNs) against a server counter's increase between the
// scrapes at FromNs and ToNs.
type Interval struct {
	FromNs, ToNs int64
	Clients      int     // successful calls that ended in the interval
	Server       float64 // the counter's increase, less what the scrapes themselves added
	Diff         float64 // Server - Clients
	Pct          float64 // |Diff| / Server, in % (0 when both are 0)
	Checked      bool    // at least MinCalls calls: held to the tolerance
}

// Validation is a client view held against a server counter.
type Validation struct {
	Intervals []Interval
	Checked   int     // intervals held to the tolerance
	MaxPct    float64 // largest |difference| % of a checked interval
	MedianPct float64 // median |difference| % of the checked intervals
	Beyond    int     // checked intervals past the tolerance
}

// Validate holds the end instants of the clients' successful calls (Unix
// ns on the same clock as incs, any order) against a counter's increases.
// perScrape is subtracted from each increase: what each scrape adds to
// the counter itself (1 for nginx's stub_status, which counts its own
// request). Intervals with fewer than minCalls calls on either side are
// shown but not checked; tolerance is in %.
func Validate(ends []int64, incs []Increase, perScrape float64, minCalls int, tolerance float64) Validation {
	sorted := append([]int64(nil), ends...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var v Validation
	var pcts []float64
	for _, in := range incs {
		lo := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= in.FromNs })
		hi := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= in.ToNs })
		iv := Interval{FromNs: in.FromNs, ToNs: in.ToNs, Clients: hi - lo, Server: math.Max(0, in.Value-perScrape)}
		iv.Diff = iv.Server - float64(iv.Clients)
		if iv.Server > 0 {
			iv.Pct = math.Abs(iv.Diff) / iv.Server * 100
		} else if iv.Clients > 0 {
			iv.Pct = 100
		}
		iv.Checked = iv.Clients >= minCalls || iv.Server >= float64(minCalls)
		if iv.Checked {
			v.Checked++
			pcts = append(pcts, iv.Pct)
			v.MaxPct = math.Max(v.MaxPct, iv.Pct)
			if iv.Pct > tolerance {
				v.Beyond++
			}
		}
		v.Intervals = append(v.Intervals, iv)
	}
	v.MedianPct = median(pcts)
	return v
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

package monitor

import (
	"math"
	"testing"
)

const sec = int64(1e9)

// evenRun is n scrape intervals of a second, perSec calls ending evenly
// spread in each (none on a boundary), each with the lag given, and the
// server's count per interval from server(i).
func evenRun(n, perSec int, early, late, half int64, server func(i int) float64) Check {
	var c Check
	for i := range n {
		for j := range perSec {
			at := int64(i)*sec + int64((float64(j)+0.5)/float64(perSec)*float64(sec))
			c.Ends = append(c.Ends, End{Ns: at, Early: early, Late: late})
		}
		c.Incs = append(c.Incs, Increase{FromNs: int64(i) * sec, ToNs: int64(i+1) * sec, Value: server(i)})
	}
	for i := range n + 1 {
		c.Reads = append(c.Reads, Read{AtNs: int64(i) * sec, HalfNs: half})
	}
	c.MinCalls, c.Tolerance = 100, 1
	return c
}

// ±2 calls moved across each boundary at 170 calls per interval (1.18%
// of an interval, the totals equal) is within the allowance: the calls
// that ended within the lag of the boundaries. The same counts with no
// lag measured are beyond it: the allowance comes from the data.
func TestValidateBoundaryJitterPasses(t *testing.T) {
	jitter := func(i int) float64 { return 170 + 2*float64(1-2*(i%2)) } // 172, 168, ...
	c := evenRun(10, 170, 3e6, 2e6, 2e6, jitter)
	v := Validate(c)
	if v.Checked != 10 || v.Beyond != 0 || v.Cum.Beyond != 0 {
		t.Fatalf("checked %d, beyond %d, cumulative beyond %d; want 10 checked, none beyond", v.Checked, v.Beyond, v.Cum.Beyond)
	}
	if v.MaxPct < 1.1 || v.Cum.Final.Calls != 0 || math.Abs(v.Cum.Max.Calls) != 2 {
		t.Errorf("max %.2f%%, cumulative final %v max %v; want each interval 1.18%% off and the gap 0 at the end, never past 2", v.MaxPct, v.Cum.Final.Calls, v.Cum.Max.Calls)
	}
	if iv := v.Intervals[3]; iv.NearFrom != 2 || iv.NearTo != 2 || math.Abs(iv.Allowed-(4+iv.Server/100)) > 1e-9 {
		t.Errorf("interval 3: near %d and %d, allowed %.2f; want the 2 calls 2.9 ms either side of each boundary, allowed 2+2+1%% of the server's", iv.NearFrom, iv.NearTo, iv.Allowed)
	}
	c = evenRun(10, 170, 0, 0, 0, jitter)
	if v = Validate(c); v.Beyond != 10 {
		t.Errorf("no lag measured: %d beyond; want all 10 (no call ended at a boundary)", v.Beyond)
	}
}

// A server that counted 5% fewer calls is found by the cumulative gap
// even where every window is within its allowance (a tester far from the
// clock server: 20 ms of clock error, 7 calls near each boundary).
func TestValidateDeficitFailsCumulative(t *testing.T) {
	c := evenRun(20, 170, 21e6, 20e6, 2e6, func(i int) float64 { return 161 + float64(i%2) })
	v := Validate(c)
	if v.Checked != 20 || v.Beyond != 0 {
		t.Fatalf("checked %d, beyond %d; want 20 checked, each within its allowance", v.Checked, v.Beyond)
	}
	if v.Cum.Beyond < 15 || !v.Intervals[19].Cum.Beyond {
		t.Errorf("cumulative beyond at %d window ends; want nearly all of 20", v.Cum.Beyond)
	}
	f := v.Cum.Final
	if f.Calls != -170 || math.Abs(f.Pct-170.0/3230*100) > 1e-9 || f.Server != 3230 || v.Cum.Max != f || v.Cum.Worst != f {
		t.Errorf("final gap %+v, max %+v; want -170 calls, 5.26%% of 3230, the largest at the end", f, v.Cum.Max)
	}
}

// Scrape intervals of 20 calls are merged into windows of 100 (a call
// moving across an inner boundary cancels), the short tail joins the
// last window; a run with fewer than --min-calls calls compares nothing.
func TestValidateMergesAndComparesNothing(t *testing.T) {
	server := func(i int) float64 { return 20 + float64(map[int]int{6: 1, 7: -1}[i]) }
	c := evenRun(12, 20, 0, 0, 0, server)
	v := Validate(c)
	if len(v.Intervals) != 2 || v.Checked != 2 || v.Intervals[0].Scrapes != 5 || v.Intervals[1].Scrapes != 7 {
		t.Fatalf("%+v; want 2 windows of 5 and 7 scrape intervals", v.Intervals)
	}
	if v.Beyond != 0 || v.Cum.Beyond != 0 || v.Intervals[1].Clients != 140 || v.Intervals[1].Diff != 0 {
		t.Errorf("%+v: want the +1 -1 inside window 2 to cancel", v.Intervals[1])
	}
	if v = Validate(evenRun(3, 20, 0, 0, 0, server)); v.Checked != 0 || v.Calls != 60 || v.Scrapes != 3 || len(v.Intervals) != 1 {
		t.Errorf("60 calls in 3 intervals: %+v; want one unchecked window, nothing compared", v)
	}
}

// A scrape duration that is negative or longer than its interval is
// refused and counted: it widens no boundary.
func TestValidateRefusesScrapeDurations(t *testing.T) {
	c := evenRun(3, 170, 0, 0, 0, func(int) float64 { return 170 })
	c.Reads[1].HalfNs, c.Reads[2].HalfNs = -1, sec
	if v := Validate(c); v.Refused != 2 || v.Intervals[0].NearTo != 0 {
		t.Errorf("refused %d, near %d; want 2 refused, no call near", v.Refused, v.Intervals[0].NearTo)
	}
}

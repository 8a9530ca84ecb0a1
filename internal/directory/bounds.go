package directory

import (
	"math"
	"time"
)

// Bounds of what a result or forecast can hold: what a sensor can measure,
// not what a float64 can. A figure outside them is refused (400), never
// stored.
const (
	// MaxBandwidthBps is 1 Tbit/s: above the fastest network interface
	// made (800 Gbit/s), so no test between two hosts can measure more.
	MaxBandwidthBps = 1e12
	// MaxTestTimeS is the longest a test can take, in seconds: a test of
	// at most netprobe.MaxTestTime (60 s) on a connection its server
	// closes 5 s after, with its connection and handshake, is well within
	// twice that. (The directory sits beside netprobe in the package map
	// and may not import it: cli's TestDirectoryBoundsFollowTheProtocol
	// holds the two together.)
	MaxTestTimeS = 120.0
	// MaxLatencyMs is a round trip no test can measure beyond: it would
	// outlast the longest test (MaxTestTimeS).
	MaxLatencyMs = MaxTestTimeS * 1000
	// MaxCounter bounds a sensor's busy and missed counters: 2^40 tests,
	// one every 100 ms for more than 3,000 years.
	MaxCounter = 1 << 40
	// MaxAhead is how far past the directory's clock a measured_at or
	// made_at may be (a sensor's clock a little ahead of the directory's);
	// a result from the future would stay the pair's latest for as long.
	MaxAhead = time.Hour
)

// The times the store can hold: Unix nanoseconds in an int64.
var (
	storeMin = time.Unix(0, math.MinInt64).UTC() // 1677-09-21
	storeMax = time.Unix(0, math.MaxInt64).UTC() // 2262-04-11
	// minMeasured is the earliest measured_at or made_at taken: diperf's
	// sensors did not exist before.
	minMeasured = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// atMost checks that each figure is finite, >= 0 and at most its bound.
func atMost(bound float64, unit string, fields []string, vals ...float64) error {
	if err := nonNeg(fields, vals...); err != nil {
		return err
	}
	for i, v := range vals {
		if v > bound {
			return fieldErr(fields[i], "is %g %s; no test measures above %g", v, unit, bound)
		}
	}
	return nil
}

// checkFigures bounds a result's figures by what a test can measure.
func (r *Result) checkFigures() error {
	if err := atMost(MaxBandwidthBps, "bit/s", []string{"bandwidth_bps", "bandwidth_after_slow_start_bps"},
		r.BandwidthBps, r.BandwidthAfterSlowStartBps); err != nil {
		return err
	}
	if err := atMost(MaxLatencyMs, "ms", []string{"latency_ms", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms"},
		r.LatencyMs, r.LatencyP50Ms, r.LatencyP90Ms, r.LatencyP99Ms); err != nil {
		return err
	}
	if err := atMost(MaxTestTimeS, "s", []string{"test_time_s"}, r.TestTimeS); err != nil {
		return err
	}
	if r.Busy > MaxCounter || r.Missed > MaxCounter {
		return fieldErr("busy", "busy and missed must be at most %d", int64(MaxCounter))
	}
	return nil
}

// checkFigures bounds a forecast's value and error by what a test of its
// kind can measure (an error between two such values is at most as much).
func (f *Forecast) checkFigures() error {
	bound, unit := MaxBandwidthBps, "bit/s"
	if f.Kind == KindLatency {
		bound, unit = MaxLatencyMs, "ms"
	}
	return atMost(bound, unit, []string{"value", "error"}, f.Value, f.Error)
}

// checkTime checks a measured_at or made_at: present, not before 2000 and
// within what the store holds (later than the directory's clock is the
// server's check, notAhead).
func checkTime(field string, t time.Time) error {
	if t.IsZero() {
		return fieldErr(field, "is missing")
	}
	if t.Before(minMeasured) || t.After(storeMax) {
		return fieldErr(field, "is %s; want a time from %s to %s", t.UTC().Format(time.RFC3339),
			minMeasured.Format(time.DateOnly), storeMax.Format(time.DateOnly))
	}
	return nil
}

// notAhead refuses a time more than MaxAhead past now.
func notAhead(field string, t, now time.Time) error {
	if d := t.Sub(now); d > MaxAhead {
		return fieldErr(field, "is %v ahead of the directory's clock (%s); at most %v",
			d.Round(time.Second), now.UTC().Format(time.RFC3339), MaxAhead)
	}
	return nil
}

// checkQueryTime checks a query's since or until: within what the store
// holds, else the comparison would wrap and select everything.
func checkQueryTime(field string, t time.Time) error {
	if t.Before(storeMin) || t.After(storeMax) {
		return fieldErr(field, "is %s; want a time from %s to %s", t.UTC().Format(time.RFC3339),
			storeMin.Format(time.DateOnly), storeMax.Format(time.DateOnly))
	}
	return nil
}

package sensor

import "time"

// Budget is a sensor's overhead limit: the share of time spent testing
// (Gloperf: a 5 s test every 5 min, 1.6%) and, optionally, the bytes its
// tests may send and receive an hour.
type Budget struct {
	Fraction     float64 // time testing / time running, at most (0: TestTime/Period)
	BytesPerHour float64 // bytes its tests send and receive an hour, at most (0: no cap)
}

// Ledger accounts for what a sensor spent since it started.
type Ledger struct {
	start time.Time
	spent time.Duration // time in tests
	bytes float64       // bytes its tests moved
	tests int           // tests run
}

// NewLedger starts accounting at start.
func NewLedger(start time.Time) *Ledger { return &Ledger{start: start} }

// Add records one test that took took and moved bytes.
func (l *Ledger) Add(took time.Duration, bytes float64) {
	l.spent += took
	l.bytes += bytes
	l.tests++
}

// Earliest is when a test of length testTime may start, at the soonest,
// so that the time spent testing stays within b.Fraction of the time
// since start once it is done, and the bytes within b.BytesPerHour (the
// next test is assumed to move as much as the average one so far).
func (l *Ledger) Earliest(b Budget, testTime time.Duration) time.Time {
	t := l.start
	if b.Fraction > 0 {
		// (spent + testTime) <= Fraction × (next + testTime − start)
		need := time.Duration(float64(l.spent+testTime)/b.Fraction) - testTime
		t = l.start.Add(need)
	}
	if b.BytesPerHour > 0 && l.tests > 0 {
		next := l.bytes + l.bytes/float64(l.tests)
		need := time.Duration(next/b.BytesPerHour*float64(time.Hour)) - testTime
		t = maxTime(t, l.start.Add(need))
	}
	return t
}

// Spent is what the sensor spent by now: the share of its time in tests
// and its bytes an hour.
func (l *Ledger) Spent(now time.Time) (fraction, bytesPerHour float64) {
	el := now.Sub(l.start)
	if el <= 0 {
		return 0, 0
	}
	return float64(l.spent) / float64(el), l.bytes / el.Hours()
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

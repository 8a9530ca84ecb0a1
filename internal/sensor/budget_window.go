package sensor

import (
	"math"
	"slices"
	"time"
)

// MaxBytesPerHour is the largest byte budget: 1e18 bytes an hour is
// 2.2 Pbit/s, past any link.
const MaxBytesPerHour = 1e18

// hourWindow holds the bytes of a sensor's own tests by the minute they
// started, over the last hour: what its byte budget still allows now.
type hourWindow struct {
	minute [61]int64 // the Unix minute each slot holds
	bytes  [61]float64
}

// add books bytes to the minute of at.
func (w *hourWindow) add(at time.Time, bytes float64) {
	m := at.Unix() / 60
	i := m % int64(len(w.minute))
	if w.minute[i] != m {
		w.minute[i], w.bytes[i] = m, 0
	}
	w.bytes[i] += bytes
}

// sum is the bytes of the hour up to now: the minutes after now's minute
// less 60.
func (w *hourWindow) sum(now time.Time) float64 {
	from := now.Unix()/60 - 60
	var s float64
	for i, m := range w.minute {
		if m > from {
			s += w.bytes[i]
		}
	}
	return s
}

// freeAt is when the bytes in the window are limit at most: the oldest
// minutes leave the window an hour after they began (zero time: already).
func (w *hourWindow) freeAt(limit float64) time.Time {
	order := make([]int, 0, len(w.minute))
	var total float64
	for i := range w.minute {
		if w.bytes[i] > 0 {
			order = append(order, i)
			total += w.bytes[i]
		}
	}
	slices.SortFunc(order, func(a, b int) int { return int(w.minute[a] - w.minute[b]) })
	var t time.Time
	for _, i := range order {
		if total <= limit {
			break
		}
		total -= w.bytes[i]
		t = time.Unix((w.minute[i]+60)*60, 0)
	}
	return t
}

// allowance is what a test starting at now may move, in bytes both ways,
// within b.BytesPerHour: the budget less the bytes of the last hour's
// tests (by the minute). capped is false when there is no byte budget.
func (w *hourWindow) allowance(b Budget, now time.Time) (bytes float64, capped bool) {
	if b.BytesPerHour <= 0 {
		return math.Inf(1), false
	}
	return max(0, b.BytesPerHour-w.sum(now)), true
}

// earliest is when the window leaves room for a test of avg bytes within
// b.BytesPerHour (zero time: now).
func (w *hourWindow) earliest(b Budget, avg float64) time.Time {
	if b.BytesPerHour <= 0 {
		return time.Time{}
	}
	return w.freeAt(b.BytesPerHour - avg)
}

// AddBytes records bytes moved by a test that did not run (its peer did
// not connect or answer): they count, its time is not testing.
func (l *Ledger) AddBytes(bytes float64) { l.bytes += bytes }

// Average is the bytes of the average test so far (0 before the first).
func (l *Ledger) Average() float64 {
	if l.tests == 0 {
		return 0
	}
	return l.bytes / float64(l.tests)
}

package tester

import "github.com/diperf/diperf/internal/sample"

// lagAcc sums the schedule lags of the calls queued since it was last
// taken: how late each started behind its intended start. Guarded by the
// outbox's mu; it allocates only when a client index it has not seen
// grows its due list.
type lagAcc struct {
	interval int64   // the closed loop's interval between starts, ns
	due      []int64 // per client loop: when its next call is due (local ns; 0: no call yet)
	sum, max int64   // lags since the last take, ns
	n        int
}

// add takes s's lag: open model, its start behind its intended start;
// closed model, behind when its loop's pace made it due (the previous
// call's intended start plus the interval, or that call's end when it
// took longer: back-to-back). A loop's first call is not late.
func (a *lagAcc) add(s *sample.Sample) {
	intended := s.Intended
	if intended == 0 {
		c := int(s.Client)
		if c >= len(a.due) {
			a.due = append(a.due, make([]int64, c+1-len(a.due))...)
		}
		intended = a.due[c]
		if intended == 0 {
			intended = s.Start
		}
		a.due[c] = max(intended+a.interval, s.End)
	}
	lag := max(s.Start-intended, 0) // an event loop may start a call a grain early
	a.sum += lag
	a.max = max(a.max, lag)
	a.n++
}

// take returns the mean and largest lag (ms) and the count since the
// last take, and starts over.
func (a *lagAcc) take() (meanMs, maxMs float64, n int) {
	if a.n > 0 {
		meanMs = float64(a.sum) / float64(a.n) / 1e6
		maxMs = float64(a.max) / 1e6
	}
	n = a.n
	a.sum, a.max, a.n = 0, 0, 0
	return meanMs, maxMs, n
}

// resumed starts client loop c's schedule over, as at its first call: it
// was parked (a steered run's gate), and the time parked is not lateness.
func (o *outbox) resumed(c uint32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if int(c) < len(o.lag.due) {
		o.lag.due[c] = 0
	}
}

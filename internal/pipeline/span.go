package pipeline

import (
	"fmt"
	"math"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// The run's span (analyze.Span): what the analysis reads is bounded by
// when the run can have happened, from the controller's own records (its
// testers' launch times) and the experiment, never from what testers
// said. Each bound is generous; together they keep the analysis' memory
// to the run's real span.
const (
	// spanSlack widens the span on both sides: the testers' clock errors
	// and the controller's scheduling.
	spanSlack = time.Minute
	// externalSkew widens it more when the testers synced with an external
	// time server (sync.server), whose clock may differ from the
	// controller's, which launched them.
	externalSkew = 10 * time.Minute
	// spanDriftPPM is the most a tester's clock may drift (oscillators,
	// and a test's injected drift).
	spanDriftPPM = experiment.MaxClockDriftPPM + clock.AssumedMaxDriftPPM
	// launchLate is how much later than planned the last tester may have
	// been launched beyond twice the plan (a slow testbed).
	launchLate = time.Hour
	// stopGrace is how long past its time a tester may go on: the
	// controller's Stop, kill and cleanup graces, and some.
	stopGrace = time.Minute
)

// plannedRamp is how long after the first tester's launch the last one
// can be due to start: the ramp-up at its pace (no faster than
// experiment.MaxLaunchRate), or a synchronized or batch start's lead.
func plannedRamp(e *experiment.Experiment) time.Duration {
	n := time.Duration(max(e.Schedule.Testers-1, 0))
	every := max(e.Schedule.TesterStartInterval.D(), time.Second/experiment.MaxLaunchRate)
	lead := 2*time.Second + (n+1)*60*time.Millisecond // the longest of the synchronized and batch starts' leads
	return n*every + lead
}

// testerLife is the longest a tester can live after it was due to start:
// joining (twice: the launch's and the budget's allowance), its duration,
// its last call's timeout, an open-model call's lateness, and stopGrace.
func testerLife(e *experiment.Experiment) time.Duration {
	join := max(e.Testbed.Wait.D(), experiment.DefaultJoinWait)
	life := 2*join + e.Schedule.TesterDuration.D() + e.Client.Timeout.D() + stopGrace
	if r := e.Schedule.Rate; r != nil {
		life += r.MaxLateness.D()
	}
	return life
}

// spanLength is the most the run can span from its first launch
// without its slack: a ramp-up at most twice the plan and launchLate
// late, then the ramp's lead and a tester's life.
func spanLength(e *experiment.Experiment) time.Duration {
	ramp := plannedRamp(e)
	return 3*ramp + launchLate + testerLife(e)
}

// slackOf is how far a span of length d is widened on each side: the
// testers' clocks' drift over it and spanSlack, and externalSkew with an
// external time server.
func slackOf(e *experiment.Experiment, d time.Duration) int64 {
	slack := spanSlack + time.Duration(float64(d)*spanDriftPPM/1e6)
	if e.Sync.Server != "" {
		slack += externalSkew
	}
	return int64(slack)
}

// RunSpan bounds the run whose testers are testers on the global
// timeline: from the first launch to the last one (at most twice the
// planned ramp-up and launchLate after the first), plus the ramp's lead
// and a tester's life, widened by the slack. ok is false when no tester
// has a launch time (a run directory written by hand): see spanAround.
func RunSpan(e *experiment.Experiment, testers []*rundir.TesterRecord) (s analyze.Span, ok bool) {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, t := range testers {
		if t.LaunchNs != 0 {
			first, last = min(first, t.LaunchNs), max(last, t.LaunchNs)
		}
	}
	if first > last {
		return analyze.Span{}, false
	}
	ramp, slack := plannedRamp(e), slackOf(e, spanLength(e))
	last = min(last, satAdd(first, int64(2*ramp+launchLate)))
	return analyze.Span{From: satAdd(first, -slack), To: satAdd(last, int64(ramp+testerLife(e))+slack)}, true
}

// boundedSpan is the run's span (RunSpan; zero when no tester has a
// launch time), with the testers' counts checked against it
// (checkCounts).
func boundedSpan(e *experiment.Experiment, testers []*rundir.TesterRecord) analyze.Span {
	span, ok := RunSpan(e, testers)
	if !ok {
		return analyze.Span{}
	}
	for _, t := range testers {
		checkCounts(e, span, t)
	}
	return span
}

// spanAround is the span of a run with no launch times, around t, the
// start of its first call in the file: spanLength on either side.
func spanAround(e *experiment.Experiment, t int64) analyze.Span {
	d := int64(spanLength(e)) + slackOf(e, spanLength(e))
	return analyze.Span{From: satAdd(t, -d), To: satAdd(t, d)}
}

// satAdd is a + b, saturated at the int64 limits.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// maxSamples is the most samples a tester of e can have produced over
// span: one a nanosecond per client loop (no call takes less).
func maxSamples(e *experiment.Experiment, span analyze.Span) uint64 {
	return uint64(max(span.To-span.From, 0)) * uint64(max(e.Schedule.ClientsPerTester, 1))
}

// checkCounts refuses the counts of t that no tester of e can have
// produced over span (a testers.csv written by hand, or by a diperf that
// took them): samples_sent is taken as samples_received, the datagram
// counts as 0, and the refusal is counted among its messages refused.
func checkCounts(e *experiment.Experiment, span analyze.Span, t *rundir.TesterRecord) {
	most := maxSamples(e, span)
	if !span.Bounded() || (t.Sent <= most && t.Received <= most && t.UDPLost <= most && t.UDPDatagrams <= most) {
		return
	}
	t.Refused.Add(rundir.Refusals{Messages: 1, Reason: fmt.Sprintf(
		"the analysis refused the counts of testers.csv (samples_sent %d, samples_received %d, udp_datagrams %d, udp_datagrams_lost %d): more than the run can have produced (%d)",
		t.Sent, t.Received, t.UDPDatagrams, t.UDPLost, most)})
	t.Sent, t.UDPLost, t.UDPDatagrams = min(t.Sent, t.Received, most), 0, 0
	t.Received = min(t.Received, most)
}

// refusals lists what the controller refused of each tester at ingest,
// and the analysis of their counts.
func refusals(testers []*rundir.TesterRecord) []analyze.TesterRefusal {
	var out []analyze.TesterRefusal
	for _, t := range testers {
		if r := t.Refused; r.Any() {
			out = append(out, analyze.TesterRefusal{Index: t.Slot, Duplicates: r.Duplicates, Time: r.Time,
				Count: r.Count, Messages: r.Messages, Reason: r.Reason})
		}
	}
	return out
}

// lostOf sums the testers' samples lost, saturated at math.MaxInt.
func lostOf(testers []*rundir.TesterRecord) int {
	var sum uint64
	for _, t := range testers {
		sum += min(t.Lost(), math.MaxInt-sum)
	}
	return int(sum)
}

// wellFormed drops from calls, in place, those no run can have made,
// which the analyzer refuses to take (a file written by hand, or by a
// diperf that took them): a call that ends before it starts, or of a
// client index past the clients each tester ran. It counts them in *n.
func wellFormed(calls []sample.Call, clients int, n *uint64) []sample.Call {
	clients = max(clients, 1)
	out := calls[:0]
	for _, c := range calls {
		if c.End < c.Start || int64(c.Client) >= int64(clients) {
			*n++
			continue
		}
		out = append(out, c)
	}
	return out
}

// countMalformed adds the n malformed calls (wellFormed) to s's refusals.
func countMalformed(s *analyze.Summary, n uint64) {
	if n == 0 {
		return
	}
	if s.Refused == nil {
		s.Refused = &analyze.Refused{}
	}
	s.Refused.Malformed = n
}

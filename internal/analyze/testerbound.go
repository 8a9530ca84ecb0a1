package analyze

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/sample"
)

// When the testers limit the load (docs/design/018-tester-health.md).
//
// A tester is starved in a quantum when its own health over the quantum
// (health.csv, placed on the quanta as healthq.go says) shows that it
// could not generate the load it was asked for, for any of these reasons:
//
//   - its CPU: its process tree used ≥ starvedCPUPct of the CPU it may
//     use (its affinity cores, capped by a cgroup quota): it had no CPU
//     left to start, time and record more calls;
//   - its host's CPU: the CPUs it may run on were ≥ starvedBusyPct busy
//     while it used ≥ starvedBusyCPUPct of its own CPU (or its CPU is
//     unknown), or ≥ starvedStealPct stolen by the hypervisor: its calls
//     waited for a CPU, whoever held it. A tester pinned with taskset onto
//     a core that another process keeps busy gets half the core and shows
//     only ~50% of its own CPU, but its host CPU 100% busy. A tester that
//     needs little CPU (below starvedBusyCPUPct) is served at once on a
//     busy host, the kernel favouring tasks that wake from sleep; if it is
//     not, its schedule's lag says so (below);
//   - its CPU quota: its cgroup was throttled in ≥ starvedThrottled % of
//     its quota's periods: the CPU the quota grants the cgroup (shared by
//     every tester and client in it) was used up, and all of them waited
//     for the next period, whatever share each used;
//   - its schedule: its calls started late. Late time is dead time of a
//     client loop (closed model: the loop waits neither for the service
//     nor its think time; open model: calls fire after their instant), so
//     the share of the loop's time lost is Σ lag / (clients × the
//     quantum), that is L / (R + Z + L) for a closed loop of response time
//     R, think time Z and lag L. The tester is starved when that share is
//     ≥ starvedLateShare and the mean lag is ≥ starvedLagMs (below that,
//     lag is the ordinary cost of a call loop, not starvation);
//   - its descriptors: ≥ starvedFDShare of its limit were open: the next
//     connection may fail or wait.
//
// A saturated service queues the calls at the server: response times grow
// while the testers wait idle, so their CPU stays low, their host idle and
// their schedule on time, and none of them is starved.
//
// The quantum is tester-bound when the starved testers were asked for at
// least boundShare of its load. Every active tester of a run is asked for
// the same load (the same schedule and clients), so that share is starved
// testers / active testers (Quantum.Active, or the testers that reported
// health in the quantum if more). It is taken from the load asked, not the
// load carried, because a starved tester carries less than it was asked
// for, and its calls' times include its own delays: the share it carried
// understates what it took away. One starved tester of five (20%) leaves
// the quantum to the service; two of five (40%) do not. A tester that
// reported no health in the quantum counts as not starved.
//
// Quantum.TesterBound says why, one part per reason found, with the worst
// figure among the starved testers and which they were (by index, up to
// three; else how many of the active): "tester CPU 97% (tester 2)", "host
// CPU busy 100% (tester 0, 1)", "CPU quota throttled 92% (tester 0, 1)", "schedule late by 180 ms (3 of 5
// testers)", "descriptors 1019/1024 (tester 4)", parts joined by "; ".

// Tester-bound thresholds, see above.
const (
	starvedCPUPct     = 90   // % of the CPU the tester may use
	starvedBusyPct    = 95   // % busy of the host CPUs it may run on
	starvedBusyCPUPct = 25   // % of its own CPU it used, for a busy host to starve it
	starvedStealPct   = 10   // % stolen of the host CPUs it may run on
	starvedThrottled  = 50   // % of its cgroup's quota periods throttled
	starvedLateShare  = 0.1  // share of a client loop's time lost to lag
	starvedLagMs      = 2    // mean lag, ms, below which lag is no starvation
	starvedFDShare    = 0.95 // share of the descriptor limit open
	boundShare        = 0.25 // share of the quantum's load asked of starved testers
	boundListMax      = 3    // testers named in a reason; more are counted
)

// starvation is why one tester was starved in a quantum, by reason.
type starvation struct {
	cpu, busy, steal, lagMs float64 // NaN: not a reason
	throttled               float64 // NaN: not a reason
	fds, fdLimit            int     // fdLimit 0: not a reason
}

// starved returns why t was starved over a quantum, with cpt clients per
// tester, and whether it was. Its late share is over the time its rows
// cover in the quantum (all of it unless it started or ended there).
func (t *testerHealth) starved(cpt int) (starvation, bool) {
	nan := math.NaN()
	s := starvation{cpu: nan, busy: nan, steal: nan, lagMs: nan, throttled: nan}
	c := mean(t.cpu, t.cpuW)
	if c >= starvedCPUPct {
		s.cpu = c
	}
	if b := mean(t.busy, t.busyW); b >= starvedBusyPct && (math.IsNaN(c) || c >= starvedBusyCPUPct) {
		s.busy = b
	}
	if st := mean(t.steal, t.stW); st >= starvedStealPct {
		s.steal = st
	}
	if th := mean(t.thr, t.thrW); th >= starvedThrottled {
		s.throttled = th
	}
	if t.hasLag && t.starts > 0 && t.w > 0 {
		lag, share := t.late/t.starts, t.late/(msPerS*float64(max(cpt, 1))*t.w)
		if lag >= starvedLagMs && share >= starvedLateShare {
			s.lagMs = lag
		}
	}
	if t.fdLimit > 0 && float64(t.fds) >= starvedFDShare*float64(t.fdLimit) {
		s.fds, s.fdLimit = t.fds, t.fdLimit
	}
	return s, !math.IsNaN(s.cpu) || !math.IsNaN(s.busy) || !math.IsNaN(s.steal) || !math.IsNaN(s.throttled) ||
		!math.IsNaN(s.lagMs) || s.fdLimit > 0
}

// testerBound is what the testers' health says of a run's quanta.
type testerBound struct {
	known, bound  int            // quanta with some tester's health; of them, tester-bound
	refused       int            // health rows refused
	refusedReason string         // why the first was
	health        []TesterHealth // per quantum, the highest of its testers' figures
}

// markTesterBound sets TesterBound on every quantum of qs (of qn ns from
// origin) that the testers' health rows show tester-bound; cpt is the
// clients each tester ran.
func markTesterBound(qs []Quantum, rows []sample.Health, testers []Tester, origin, qn int64, cpt int) testerBound {
	hr := acceptHealth(rows, testers)
	tb := testerBound{refused: hr.refused, refusedReason: hr.reason, health: make([]TesterHealth, len(qs))}
	hr.eachQuantum(origin, qn, len(qs), func(i int, ts map[int]*testerHealth) {
		for _, t := range ts {
			tb.health[i].Merge(t.peak)
		}
		if qs[i].Active == 0 {
			return // no tester ran in it: a row's edge past its tester's end
		}
		tb.known++
		if qs[i].TesterBound = boundReason(ts, max(qs[i].Active, len(ts)), cpt); qs[i].TesterBound != "" {
			tb.bound++
		}
	})
	return tb
}

// boundReason is why the testers of one quantum (their health by index;
// active testers ran in it) limited its load; "" when they did not.
func boundReason(testers map[int]*testerHealth, active int, cpt int) string {
	idx := make([]int, 0, len(testers))
	for i := range testers {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var starved []int
	var why []starvation
	for _, i := range idx {
		if s, ok := testers[i].starved(cpt); ok {
			starved, why = append(starved, i), append(why, s)
		}
	}
	if len(starved) == 0 || float64(len(starved)) < boundShare*float64(active) {
		return ""
	}
	return reasonText(starved, why, active)
}

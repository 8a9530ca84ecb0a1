package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCaseJobs runs examples/cases/jobs shortened: 24 testers submitting
// `srun sleep 1` back to back to a private cluster of 4 slurmd × 2 CPUs
// on loopback, the load climbing to 24 jobs in flight, 3 times the 8
// slots.
//
// The knee. No CPU completes more than one job every S = 1 s, so the
// plateau throughput X* is at most slots/S = 8 jobs/s (+10% for the
// quanta's edges). Slurm adds its own time to every job: the step's
// launch and teardown while the job holds its CPU, then the release and
// a scheduler pass before the next job gets it (on a busy 2-core machine
// 0.7 to 0.9 s in all, so X* is 50-60% of slots/S). The script reads that
// time from slurmctld's own log, to the ms, for every job of the run
// (case/jobs.csv: hold_ms, gap_ms), so a saturated cluster must complete
// slots/(hold + gap) jobs/s: X* within 20% of it (the log is over every
// job, the knee over the plateau's quanta, 2 s each, holding about 9 jobs:
// one job across a quantum's edge is 11% of it, halved by the median).
// The load at the knee N* = X*·R0 (Little's law, R0 the response time at
// light load) is at least X*·S (no call is shorter than its job), less 20%
// for the fit; and it is slots·R0/(hold + gap), where a call alone (R0)
// outlasts its CPU's turnover only by srun's own start and exit: at most
// 1.25 × slots (measured: 3.5 to 7 for the 8 slots; before the analyzer
// took R0 from the rise, 15 to 22).
//
// The server's record. Each call is one job, and every job of the run is
// a call: slurmctld's count of completed jobs (sdiag, through the command
// monitor) must match the clients' successful calls per window of 2 s
// scrapes (at least 20 calls), in the cumulative gap, and in total.
func TestCaseJobs(t *testing.T) {
	t.Parallel()
	dir, out := runCase(t, "jobs")
	t.Logf("case output:\n%s", out)
	s := readSummary(t, dir)
	c := readCSV(t, filepath.Join(dir, "case", "jobs.csv"), "slots", "sleep_s", "hold_ms", "gap_ms")
	if len(c.rows) != 1 {
		t.Fatalf("case/jobs.csv: %d rows, want 1", len(c.rows))
	}
	num := func(col string) float64 {
		v, err := strconv.ParseFloat(c.rows[0].rec[c.need(t, col)], 64)
		if err != nil {
			t.Fatalf("case/jobs.csv %s: %v", col, err)
		}
		return v
	}
	slots, sleep := num("slots"), num("sleep_s")
	cycle := (num("hold_ms") + num("gap_ms")) / 1000
	ceiling, record := slots/sleep, slots/cycle
	sat := s.Saturation
	t.Logf("saturation %+v; ceiling %.2f jobs/s, Slurm's record %.2f jobs/s (%.2f s a job per CPU)", sat, ceiling, record, cycle)
	if !sat.Saturated {
		t.Fatalf("the cluster did not saturate: %s", sat.Evidence)
	}
	if cycle < sleep {
		t.Errorf("slurmctld's log says a CPU turns over every %.2f s, less than the %g s each job sleeps", cycle, sleep)
	}
	if sat.Throughput > 1.1*ceiling {
		t.Errorf("X* %.2f jobs/s above the configured ceiling %d slots / %g s = %.2f (+10%%)", sat.Throughput, int(slots), sleep, ceiling)
	}
	if sat.Throughput < 0.8*record || sat.Throughput > 1.2*record {
		t.Errorf("X* %.2f jobs/s not within 20%% of the %.2f jobs/s slurmctld's record allows", sat.Throughput, record)
	}
	if sat.Load < 0.8*sat.Throughput*sleep || sat.Load > min(1.25*slots, s.Load.Max) {
		t.Errorf("N* %.1f outside [0.8·X*·S = %.1f, min(1.25 × %.0f slots, the highest load %.1f)]", sat.Load, 0.8*sat.Throughput*sleep, slots, s.Load.Max)
	}
	v := caseValidate(t, dir, "slurm", "slurm_jobs_completed_total", 2, 20)
	var server float64
	for _, iv := range v.Intervals {
		server += iv.Server
	}
	if int(server) != s.Samples.OK || server != float64(int(server)) {
		t.Errorf("slurmctld completed %.0f jobs over the run, the clients saw %d successful calls", server, s.Samples.OK)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}
}

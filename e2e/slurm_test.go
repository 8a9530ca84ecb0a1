package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/test/slurmlab"
)

// slurmExperiment is a run of n testers on the slurm provider.
func slurmExperiment(t *testing.T, n int, duration, wait string) string {
	t.Helper()
	return writeExperiment(t, fmt.Sprintf(`name: slurm
client:
  exec: [sleep, "0.05"]
testbed:
  provider: slurm
  wait: %s
  time_limit: 10m
schedule:
  testers: %d
  tester_start_interval: 100ms
  tester_duration: %s
  client_interval: 200ms
`, wait, n, duration))
}

// slurmStart starts diperf (bin) in the background aimed at the lab,
// marked with mark.
func slurmStart(t *testing.T, lab *slurmlab.Cluster, mark, bin string, args ...string) *background {
	t.Helper()
	cmd := exec.Command(bin, args...)
	return startCmd(t, append(lab.Env(), markEnv+"="+mark), cmd)
}

// slurmBlock submits one job per node that holds cpus[i] CPUs of node
// i+1 until the test ends (or it is cancelled), waits until they run, and
// returns their job ids, to give scancel.
func slurmBlock(t *testing.T, lab *slurmlab.Cluster, cpus ...int) []string {
	t.Helper()
	var jobs []string
	for i, n := range cpus {
		jobs = append(jobs, strings.TrimSpace(lab.Run("sbatch", "--parsable", "--job-name=blocker", "--nodelist="+lab.Nodes[i],
			fmt.Sprintf("--ntasks=%d", n), "--output=/dev/null", "--wrap", "sleep 600")))
	}
	slurmWaitFor(t, 20*time.Second, "the blocker jobs running", func() bool {
		st := strings.Fields(lab.Run("squeue", "--noheader", "--jobs="+strings.Join(jobs, ","), "--format=%T"))
		return len(st) == len(jobs) && !slices.ContainsFunc(st, func(s string) bool { return s != "RUNNING" })
	})
	return jobs
}

func slurmWaitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slurmJob waits for the run to submit its array and returns its job id.
func slurmJob(t *testing.T, dir string) string {
	t.Helper()
	var job string
	slurmWaitFor(t, 30*time.Second, "the run's job id in slurm/job", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "slurm", "job"))
		job = strings.TrimSpace(string(b))
		return err == nil && job != ""
	})
	return job
}

// slurmWaitEvent waits (up to 40 s) for an event of tester i; on time out
// it fails the test with that tester's events.
func slurmWaitEvent(t *testing.T, run *background, dir, event string, i int) {
	t.Helper()
	var mine []string
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		mine = nil
		if _, err := os.Stat(filepath.Join(dir, "events.jsonl")); err == nil {
			for _, e := range eventsOf(t, dir) {
				if e["tester"] == float64(i) {
					if e["event"] == event {
						return
					}
					mine = append(mine, fmt.Sprint(e))
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	all, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	t.Fatalf("no %q event for tester %d within 40 s; its events:\n%s\nevents.jsonl:\n%s\nrun's stderr:\n%s", event, i, strings.Join(mine, "\n"), all, run.stderr.String())
}

// slurmKeepOnFailure keeps the run directory out (its slurm/ and logs/:
// the task outputs and tester logs) and the lab's directory (the daemons'
// logs) when the test fails, in a directory it names, so that a flake in
// CI can be read afterwards.
func slurmKeepOnFailure(t *testing.T, lab *slurmlab.Cluster, out string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		keep, err := os.MkdirTemp("", "diperf-slurm-failed-")
		if err != nil {
			t.Logf("keeping the failed run: %v", err)
			return
		}
		for _, d := range []string{out, lab.Dir} {
			if b, err := exec.Command("cp", "-a", d, keep+"/").CombinedOutput(); err != nil {
				t.Logf("keeping %s: %v: %s", d, err, b)
			}
		}
		t.Logf("the failed run's directory and the Slurm lab's are kept in %s", keep)
	})
}

// slurmLeft returns the queue's lines (pending, running or completing)
// for the tasks of job.
func slurmLeft(lab *slurmlab.Cluster, job string) []string {
	var left []string
	for _, l := range lab.Jobs() {
		if strings.HasPrefix(l, job+"_") || strings.HasPrefix(l, job+"|") {
			left = append(left, l)
		}
	}
	return left
}

// TestSlurmTwentyTestersOnThreeNodes is the must-show: 20 testers as one
// job array on a 3-node cluster; a blocker job leaves room for 19 of them,
// so task 19 stays pending (Resources) and is reported with Slurm's
// reason; task 3 is cancelled mid-run and marked failed while the run goes
// on; every other tester's samples are all in samples.parquet, and no task
// of the run is left in the queue at the end.
func TestSlurmTwentyTestersOnThreeNodes(t *testing.T) {
	t.Parallel()
	lab := slurmlab.Start(t, slurmlab.Options{Nodes: 3, CPUs: 16})
	blocker := slurmBlock(t, lab, 10, 10, 9) // 6 + 6 + 7 = 19 CPUs free
	mark := newMark(t)
	out := filepath.Join(t.TempDir(), "run")
	slurmKeepOnFailure(t, lab, out)
	run := slurmStart(t, lab, mark, bin, "run", slurmExperiment(t, 20, "24s", "20s"), "--out", out)
	job := slurmJob(t, out)
	slurmWaitEvent(t, run, out, "started", 3)
	nodes := map[string]bool{}
	for _, l := range slurmLeft(lab, job) {
		if f := strings.Split(l, "|"); f[1] == "RUNNING" {
			nodes[f[3]] = true
		}
	}
	slurmWaitEvent(t, run, out, "failed", 19)
	slurmWaitFor(t, 20*time.Second, "pending task 19 cancelled once failed", func() bool {
		for _, l := range slurmLeft(lab, job) {
			if strings.HasPrefix(l, job+"_19|") {
				return false
			}
		}
		return true
	})
	lab.Run("scancel", job+"_3")
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("diperf run exited %d\n%s", code, run.stderr.String())
	}
	if left := slurmLeft(lab, job); len(left) > 0 {
		t.Errorf("tasks of the run still in squeue after it ended: %v", left)
	}
	checkRunDir(t, out)
	for _, r := range readTesters(t, out) {
		i, failed, why := r.int(t, "index"), r.str(t, "failed") == "true", r.str(t, "failure_reason")
		switch i {
		case 19:
			t.Logf("pending tester 19: %s", why)
			if !failed || !strings.Contains(why, "slurm: job "+job+"_19 PENDING (Resources)") {
				t.Errorf("pending tester 19: failed=%v reason %q; want Slurm's PENDING (Resources)", failed, why)
			}
		case 3:
			if !failed {
				t.Errorf("tester 3, whose task was cancelled mid-run, is not marked failed")
			}
			t.Logf("cancelled tester 3: %s", why)
		default:
			if failed {
				t.Errorf("tester %d failed: %s", i, why)
			}
		}
	}
	sampled := samplesPerTester(t, out)
	for i := range int32(19) {
		if sampled[i] == 0 {
			t.Errorf("tester %d has no sample in samples.parquet", i)
		}
	}
	if len(nodes) != 3 {
		t.Errorf("the tasks ran on nodes %v; want all 3", nodes)
	}
	hardenNothingLost(t, out, mark, 18)
	lab.Run("scancel", blocker...)
}

// TestSlurmInterruptLeavesNoJob sends SIGINT to diperf run while two of
// its four tasks run and two wait for room: the run ends, and none of its
// tasks is left in the queue.
func TestSlurmInterruptLeavesNoJob(t *testing.T) {
	t.Parallel()
	lab := slurmlab.Start(t, slurmlab.Options{Nodes: 3, CPUs: 16})
	blocker := slurmBlock(t, lab, 15, 15, 16) // 2 CPUs free
	mark := newMark(t)
	out := filepath.Join(t.TempDir(), "run")
	slurmKeepOnFailure(t, lab, out)
	run := slurmStart(t, lab, mark, bin, "run", slurmExperiment(t, 4, "60s", "60s"), "--out", out)
	job := slurmJob(t, out)
	waitEvent(t, out, "started", 0)
	waitEvent(t, out, "started", 1)
	if n := len(slurmLeft(lab, job)); n != 4 {
		t.Fatalf("%d tasks of the run in the queue before the interrupt, want 4: %v", n, lab.Jobs())
	}
	if err := run.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	run.wait(t, 60*time.Second)
	if left := slurmLeft(lab, job); len(left) > 0 {
		t.Errorf("tasks of the interrupted run still in squeue: %v", left)
	}
	for _, i := range []int{2, 3} {
		if r := testerRow(t, out, i); r.str(t, "failed") != "true" || !strings.Contains(r.str(t, "failure_reason"), "interrupted") {
			t.Errorf("pending tester %d: failed=%s reason %q", i, r.str(t, "failed"), r.str(t, "failure_reason"))
		}
	}
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Errorf("processes of the run alive 5 s after it ended: %v", left)
	}
	lab.Run("scancel", blocker...)
}

// TestSlurmTaskWithoutTheBinaryIsReported runs diperf from a copy that is
// removed while its tasks wait in the queue (the cluster full): the tasks
// that start cannot find the binary, and the failure reason says so.
func TestSlurmTaskWithoutTheBinaryIsReported(t *testing.T) {
	t.Parallel()
	lab := slurmlab.Start(t, slurmlab.Options{Nodes: 3, CPUs: 16})
	blocker := slurmBlock(t, lab, 16, 16, 16) // the cluster full
	copyBin := filepath.Join(t.TempDir(), "diperf")
	// cp, not a write from this process: a fork here would inherit the
	// write descriptor and make the exec fail with "text file busy".
	if out, err := exec.Command("cp", bin, copyBin).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	out := filepath.Join(t.TempDir(), "run")
	run := slurmStart(t, lab, newMark(t), copyBin, "run", slurmExperiment(t, 2, "5s", "30s"), "--out", out)
	job := slurmJob(t, out)
	if err := os.Remove(copyBin); err != nil {
		t.Fatal(err)
	}
	lab.Run("scancel", blocker...)
	run.wait(t, 90*time.Second)
	for i := range 2 {
		why := testerRow(t, out, i).str(t, "failure_reason")
		t.Logf("tester %d: %s", i, why)
		if !strings.Contains(why, "the diperf binary "+copyBin+" is not there") || !strings.Contains(why, "shared") {
			t.Errorf("tester %d's failure reason does not say the binary is missing: %q", i, why)
		}
	}
	if left := slurmLeft(lab, job); len(left) > 0 {
		t.Errorf("tasks of the run still in squeue: %v", left)
	}
}

// TestSlurmDeployScriptJoinsAJoinRun submits deploy/slurm/testers.sbatch
// as a job array of 3 against a run of the join provider: all 3 testers
// join, the run completes, and the array leaves the queue.
func TestSlurmDeployScriptJoinsAJoinRun(t *testing.T) {
	t.Parallel()
	lab := slurmlab.Start(t, slurmlab.Options{Nodes: 3, CPUs: 16})
	tmp := t.TempDir()
	token := filepath.Join(tmp, "token")
	addr := freeAddr(t)
	exp := writeExperiment(t, fmt.Sprintf(`name: slurm-join
client:
  exec: [sleep, "0.05"]
testbed:
  provider: join
  listen: %s
  token_file: %s
  wait: 60s
schedule:
  testers: 3
  tester_start_interval: 100ms
  tester_duration: 3s
  client_interval: 200ms
`, addr, token))
	out := filepath.Join(tmp, "run")
	run := slurmStart(t, lab, newMark(t), bin, "run", exp, "--out", out)
	slurmWaitFor(t, 20*time.Second, "the token file made by the run", func() bool {
		_, err := os.Stat(token)
		return err == nil
	})
	script, err := filepath.Abs("../deploy/slurm/testers.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	sb := lab.Command("sbatch", "--parsable", "--array=0-2", "--output="+filepath.Join(tmp, "task-%a.out"), script, addr, token)
	sb.Env = append(sb.Env, "DIPERF="+bin)
	jb, err := sb.Output()
	if err != nil {
		t.Fatalf("sbatch %s: %v", script, err)
	}
	job := strings.TrimSpace(string(jb))
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("join run exited %d\n%s", code, run.stderr.String())
	}
	for _, r := range readTesters(t, out) {
		if r.str(t, "failed") == "true" || r.int(t, "samples_received") == 0 {
			t.Errorf("tester %d: failed=%s (%s), %d samples", r.int(t, "index"), r.str(t, "failed"), r.str(t, "failure_reason"), r.int(t, "samples_received"))
		}
	}
	slurmWaitFor(t, 20*time.Second, "the testers' array gone from the queue", func() bool {
		return len(slurmLeft(lab, job)) == 0
	})
}

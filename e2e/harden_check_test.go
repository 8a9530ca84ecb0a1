package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// hardenStartRun starts diperf in the background with every process of
// the run marked (markEnv=mark), so that hardenNothingLost can look for
// leftovers.
func hardenStartRun(t *testing.T, mark string, args ...string) *background {
	t.Helper()
	return hardenStart(t, mark, exec.Command(bin, args...))
}

// hardenStart starts cmd in the background, marked with mark.
func hardenStart(t *testing.T, mark string, cmd *exec.Cmd) *background {
	t.Helper()
	return startCmd(t, []string{markEnv + "=" + mark}, cmd)
}

// testerCounts is what a tester's log says it produced and had
// acknowledged, on its last line that says so.
var testerCounts = regexp.MustCompile(`acked_samples=(\d+) produced_samples=(\d+)`)

// hardenNothingLost checks the promise of a run that survived an attack:
// every sample each tester recorded (its log's produced_samples) is in
// samples.parquet and testers.csv agrees, or for a tester the attack cut
// off, every sample the controller acknowledged to it (acked_samples) is
// there; and no process of the run (marked
// with mark) is alive 5 s after it ended. Testers whose log has no count
// (killed with SIGKILL) are skipped; want is how many testers must have one.
func hardenNothingLost(t *testing.T, dir, mark string, want int) {
	t.Helper()
	inParquet := samplesPerTester(t, dir)
	counted := 0
	for _, row := range readTesters(t, dir) {
		i := row.int(t, "index")
		log, _ := os.ReadFile(rundir.LogPath(dir, i))
		all := testerCounts.FindAllSubmatch(log, -1)
		if len(all) == 0 {
			continue
		}
		counted++
		last := all[len(all)-1]
		acked, _ := strconv.Atoi(string(last[1]))
		produced, _ := strconv.Atoi(string(last[2]))
		got := inParquet[int32(i)]
		if row.str(t, "failed") == "true" { // cut off: what the controller acknowledged is kept
			if got < acked {
				t.Errorf("tester %d (failed: %s): %d samples acknowledged, samples.parquet has %d",
					i, row.str(t, "failure_reason"), acked, got)
			}
			continue
		}
		if got != produced || row.int(t, "samples_received") != produced {
			t.Errorf("tester %d recorded %d samples; samples.parquet has %d, testers.csv received %d",
				i, produced, got, row.int(t, "samples_received"))
		}
	}
	if counted < want {
		t.Errorf("%d tester logs give their sample counts, want at least %d", counted, want)
	}
	if mark == "" {
		return
	}
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Errorf("processes of the run alive 5 s after it ended: %s", describePIDs(left))
	}
}

// hardenLeft waits up to 5 s for every process marked with mark to end,
// and returns those still alive then.
func hardenLeft(t *testing.T, mark string) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	left := markedProcesses(t, mark)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = markedProcesses(t, mark)
	}
	return left
}

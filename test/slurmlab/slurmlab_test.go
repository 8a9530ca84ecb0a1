package slurmlab

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClusterRunsAnArrayAndLeavesNothing brings a cluster up, runs a job
// array of 20 tasks that say where they ran, and checks the teardown
// leaves no process and no directory behind.
func TestClusterRunsAnArrayAndLeavesNothing(t *testing.T) {
	var c *Cluster
	t.Run("cluster", func(t *testing.T) {
		start := time.Now()
		c = Start(t, Options{})
		t.Logf("cluster of %v up in %v", c.Nodes, time.Since(start).Round(time.Millisecond))
		out := filepath.Join(c.Dir, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		job := strings.TrimSpace(c.Run("sbatch", "--parsable", "--array=0-19", "--output="+out+"/%a.out",
			"--wrap", `echo "$SLURM_ARRAY_TASK_ID $SLURMD_NODENAME"; sleep 2`))
		nodes := map[string]bool{}
		err := waitFor(30*time.Second, func() bool {
			nodes = map[string]bool{}
			for i := range 20 {
				b, _ := os.ReadFile(filepath.Join(out, strconv.Itoa(i)+".out"))
				f := strings.Fields(string(b))
				if len(f) != 2 || f[0] != strconv.Itoa(i) {
					return false
				}
				nodes[f[1]] = true
			}
			return true
		}, "every task's output")
		if err != nil {
			t.Fatalf("job %s: %v; queue: %v", job, err, c.Jobs())
		}
		if len(nodes) != 3 {
			t.Errorf("the 20 tasks ran on nodes %v; want all 3 (least loaded node first)", nodes)
		}
		if _, err := c.Try("sacct"); err == nil {
			t.Log("sacct works here; the lab promises nothing about it")
		}
	})
	if c == nil {
		return
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("the cluster's directory %s is still there (%v)", c.Dir, err)
	}
	if pids := procsWith("SLURM_CONF=" + c.Conf + "\x00"); len(pids) > 0 {
		t.Errorf("processes of the cluster alive after teardown: %v", pids)
	}
}

// procsWith returns the live processes whose environment holds kv.
func procsWith(kv string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env)+"\x00", kv) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

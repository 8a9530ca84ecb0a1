package e2e

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/test/netlab"
)

// TestSSHControllerKilledLeavesNoLoad: a controller killed with SIGKILL
// cleans nothing itself, but its SSH connections drop: every tester on
// every host sees its stdin end, stops its clients (which ignore SIGTERM)
// and exits, so no process of the run is left on any host. The next run
// on those hosts removes what the killed one left there but the testers'
// own spools, never fetched; `diperf fetch` brings them into the killed
// run's directory and removes them from the hosts (no file stays), and
// `diperf analyze` (which before the fetch said they were missing) then
// stores every sample of any spool, the controller's or the testers'
// (read here directly, on the hosts' disks), with lost = produced −
// stored.
func TestSSHControllerKilledLeavesNoLoad(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "ssh"})
	spec := sshSpec{hosts: lab.Hosts, perHost: 2, testers: 4, edits: []string{"tester_duration: 3s", "tester_duration: 60s",
		`"test -s data/payload.txt && sleep 0.05"`, `"trap '' TERM; sleep 0.1"`}}
	dir := sshWriteExperiment(t, lab, spec)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "exp.yaml", "--out", out)
	cmd.Dir = dir
	run := startCmd(t, nil, cmd)
	waitEvent(t, out, "started", 3)
	time.Sleep(time.Second) // samples in the testers' spools, some not yet at the controller
	for _, h := range lab.Hosts {
		if procs, _ := h.Processes(); len(procs) < 2 { // at least a tester and a client
			t.Fatalf("%s: no tester running before the kill: %v", h.Name, procs)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	run.wait(t, 10*time.Second)
	sshNoProcess(t, lab.Hosts)
	id := killedRunID(t, lab.Hosts[0])
	own := hostSpools(t, lab.Hosts, id)
	truth := readTruth(t, filepath.Join(out, rundir.Spool), own)
	if r := diperf(t, time.Minute, "analyze", out); r.code != 0 || !strings.Contains(r.stderr, "were not fetched") ||
		!strings.Contains(r.stderr, "diperf fetch "+out) {
		t.Errorf("analyze before the fetch: exit %d; want it to say the testers' spools on the hosts are not fetched:\n%s", r.code, r.stderr)
	}
	dir = sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 2, testers: 4})
	out2 := filepath.Join(t.TempDir(), "run2")
	if r := sshRun(t, dir, out2); r.code != 0 {
		t.Fatalf("the next run: exit %d\n%s", r.code, r.stderr)
	}
	notes := strings.Join(sshEvents(t, out2, "testbed-note"), "\n")
	if strings.Count(notes, "1 stale run(s) removed but for the testers' spools of "+id+" (2)") != 2 {
		t.Errorf("the next run does not say it kept the killed run's 2 spools on each host:\n%s", notes)
	}
	if again := hostSpools(t, lab.Hosts, id); len(again) != len(own) {
		t.Fatalf("the next run's cleanup removed spools never fetched: %d of %d left", len(again), len(own))
	}
	if r := diperf(t, time.Minute, "fetch", out); r.code != 0 || !strings.Contains(r.stdout, "fetched 4 testers' spools") {
		t.Fatalf("diperf fetch: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	sshCheckClean(t, lab.Hosts, false)
	if r := diperf(t, time.Minute, "analyze", out); r.code != 0 || strings.Contains(r.stderr, "not fetched") {
		t.Fatalf("analyze of the killed run: exit %d\n%s", r.code, r.stderr)
	}
	checkMerged(t, out, truth)
	t.Logf("%d samples in the testers' own spools only, merged", truth.own)
}

// killedRunID returns the id of the one run whose folder is on h.
func killedRunID(t *testing.T, h *netlab.Host) string {
	t.Helper()
	entries, err := os.ReadDir(h.Path(path.Join(sshWork, "runs")))
	if err != nil || len(entries) != 1 {
		t.Fatalf("%s: want the killed run's folder alone in %s/runs: %v, %v", h.Name, sshWork, entries, err)
	}
	return entries[0].Name()
}

// hostSpools returns the testers' spools of run id on the hosts, as paths
// on this machine (slot → path).
func hostSpools(t *testing.T, hosts []*netlab.Host, id string) map[int]string {
	t.Helper()
	own := map[int]string{}
	for _, h := range hosts {
		d := path.Join(sshWork, "runs", id, "spool")
		entries, err := os.ReadDir(h.Path(d))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			if slot, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".spool")); err == nil {
				own[slot] = h.Path(path.Join(d, e.Name()))
			}
		}
	}
	return own
}

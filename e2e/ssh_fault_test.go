package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/test/netlab"
)

// Fault tests of the ssh testbed on test/netlab hosts (issue 9, "Must
// show"): a host cut off from the controller for 20 s and healed, and a
// host whose disk fills mid-run. Each asserts what was lost (nothing)
// and what stopped (everything it should).

// sfStart starts diperf run in dir (written by sshWriteExperiment) in
// the background, its run directory at out.
func sfStart(t *testing.T, dir, out string) *background {
	t.Helper()
	cmd := exec.Command(bin, "run", "exp.yaml", "--out", out)
	cmd.Dir = dir
	return startCmd(t, nil, cmd)
}

// sfTestersOn waits until every one of n testers has started and returns
// the indexes of those launched on h (their event id is "root@ADDR:PID").
func sfTestersOn(t *testing.T, out string, h *netlab.Host, n int) []int {
	t.Helper()
	for i := range n {
		waitEvent(t, out, "started", i)
	}
	var on []int
	for _, e := range eventsOf(t, out) {
		if id, _ := e["id"].(string); e["event"] == "launched" && strings.HasPrefix(id, "root@"+h.Addr+":") {
			on = append(on, int(e["tester"].(float64)))
		}
	}
	if len(on) == 0 {
		t.Fatalf("no tester was launched on %s (%s)", h.Name, h.Addr)
	}
	return on
}

// sfClients lists the processes on h that are neither sshd's nor the
// tester's own: the clients the tester runs.
func sfClients(t *testing.T, h *netlab.Host) []netlab.Proc {
	t.Helper()
	procs, err := h.Processes()
	if err != nil {
		t.Fatal(err)
	}
	var clients []netlab.Proc
	for _, p := range procs {
		if !strings.HasPrefix(p.Cmdline, "sshd") && !strings.Contains(p.Cmdline, "bin/diperf tester") {
			clients = append(clients, p)
		}
	}
	return clients
}

// sfNothingLost asserts, for each of the run's testers, that its log
// says how many samples it produced (M), that samples.parquet holds
// exactly its Seqs 1..M, once each, and that testers.csv received M and
// lost none: nothing any tester recorded is missing.
func sfNothingLost(t *testing.T, out string, testers int) {
	t.Helper()
	seqs := parquetSeqs(t, out)
	rows := readTesters(t, out)
	if len(rows) != testers {
		t.Fatalf("testers.csv has %d testers, want %d", len(rows), testers)
	}
	for _, row := range rows {
		i := row.int(t, "index")
		log, _ := os.ReadFile(rundir.LogPath(out, i))
		all := testerCounts.FindAllSubmatch(log, -1)
		if len(all) == 0 {
			t.Errorf("tester %d's log does not say how many samples it produced:\n%s", i, log)
			continue
		}
		produced, _ := strconv.Atoi(string(all[len(all)-1][2]))
		missing := 0
		for seq := 1; seq <= produced; seq++ {
			if !seqs[i][uint64(seq)] {
				missing++
			}
		}
		if produced == 0 || missing > 0 || len(seqs[i]) != produced {
			t.Errorf("tester %d produced %d samples (Seqs 1..%d); samples.parquet has %d of them, %d missing, %d beyond",
				i, produced, produced, produced-missing, missing, len(seqs[i])-(produced-missing))
		}
		if got, lost := row.int(t, "samples_received"), row.int(t, "samples_lost"); got != produced || lost != 0 {
			t.Errorf("testers.csv: tester %d received %d, lost %d; it produced %d", i, got, lost, produced)
		}
	}
}

// sfStarts returns the start times of tester i's samples in samples.parquet.
func sfStarts(t *testing.T, out string, i int) []time.Time {
	t.Helper()
	var starts []time.Time
	err := rundir.ScanRows(out, rundir.Samples, func(rows []rundir.Row) error {
		for _, r := range rows {
			if int(r.Tester) == i {
				starts = append(starts, time.Unix(0, r.StartNs))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading samples.parquet: %v", err)
	}
	return starts
}

// sfCount counts the times in [from, to).
func sfCount(ts []time.Time, from, to time.Time) int {
	n := 0
	for _, x := range ts {
		if !x.Before(from) && x.Before(to) {
			n++
		}
	}
	return n
}

// sfEvent returns the first event of a kind for tester i (nil if none).
func sfEvent(t *testing.T, out, kind string, i int) map[string]any {
	t.Helper()
	for _, e := range eventsOf(t, out) {
		if e["event"] == kind && e["tester"] == float64(i) {
			return e
		}
	}
	return nil
}

// sfLate is the late-samples detail: how many of a lost tester's
// samples came after it was heard again.
var sfLate = regexp.MustCompile(`^(\d+) samples came after it was lost$`)

// sfCheckBack asserts that tester i, marked lost, was heard
// again after the heal (its tester-back event, written when it was
// heard) and that samples of it arrived then (late-samples).
func sfCheckBack(t *testing.T, out string, i int, heal time.Time) {
	t.Helper()
	back := sfEvent(t, out, "tester-back", i)
	if back == nil {
		t.Fatalf("no tester-back event for tester %d after the heal; its events: retrieved %v, retrieve-error %v",
			i, sfEvent(t, out, "retrieved", i), sfEvent(t, out, "retrieve-error", i))
	}
	detail, _ := back["detail"].(string)
	if heardAt := time.Unix(0, int64(back["t_ns"].(float64))); heardAt.Before(heal) {
		t.Errorf("tester %d heard again %v before the heal: the partition did not cut it off", i, heal.Sub(heardAt))
	}
	late, _ := sfEvent(t, out, "late-samples", i)["detail"].(string)
	if m := sfLate.FindStringSubmatch(late); m == nil || m[1] == "0" {
		t.Errorf("late-samples says %q: no sample of tester %d arrived after the heal", late, i)
	}
	t.Logf("tester-back: %s; retrieved: %v", detail, sfEvent(t, out, "retrieved", i)["detail"])
}

// TestSSHPartitionHealed cuts one of three SSH hosts off from the
// controller for 20 s (iptables DROP in its namespace: the SSH connection
// that carries its tester's stdio stalls, nothing closes it) and heals
// it. Its tester is marked lost within a few seconds, its clients stop
// within 5 s of the cut (none runs on the host, no sample starts then),
// it is heard again after the heal (tester-back) with the samples it had
// not delivered, the other testers run on, nothing any tester recorded
// is lost, and no process or file is left on any host.
func TestSSHPartitionHealed(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 3, Prefix: "sf"})
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 1, testers: 3, edits: []string{
		"sleep 0.05", "sleep 0.02", "tester_duration: 3s", "tester_duration: 35s"}})
	out := filepath.Join(t.TempDir(), "run")
	run := sfStart(t, dir, out)
	h := lab.Hosts[1]
	cutT := sfTestersOn(t, out, h, 3)[0]
	time.Sleep(2 * time.Second)
	for deadline := time.Now().Add(5 * time.Second); len(sfClients(t, h)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no client seen running on %s before the cut: the check below could not fail", h.Name)
		}
	}
	if err := h.Partition(true); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	t.Cleanup(func() { _ = h.Partition(false) })
	lost := waitEvent(t, out, "tester-lost", cutT)
	lostAt := time.Unix(0, int64(lost["t_ns"].(float64)))
	if d := lostAt.Sub(cut); d > 5*time.Second {
		t.Errorf("tester %d marked lost %v after the cut, want within a few seconds (3 s of silence)", cutT, d)
	}
	time.Sleep(time.Until(cut.Add(5500 * time.Millisecond)))
	for time.Since(cut) < 19*time.Second {
		if c := sfClients(t, h); len(c) > 0 {
			t.Errorf("%v after the cut, clients still run on %s: %v", time.Since(cut).Round(time.Millisecond), h.Name, c)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Until(cut.Add(20 * time.Second)))
	if err := h.Partition(false); err != nil {
		t.Fatal(err)
	}
	heal := time.Now()
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	t.Logf("tester %d marked lost %v after the cut; healed 20 s after it; the run ended %v after the heal",
		cutT, lostAt.Sub(cut).Round(time.Millisecond), time.Since(heal).Round(time.Second))

	sfCheckBack(t, out, cutT, heal)

	starts := sfStarts(t, out, cutT)
	if n := sfCount(starts, cut.Add(5*time.Second), heal); n > 0 {
		t.Errorf("%d samples of tester %d started more than 5 s after the cut and before the heal: its clients must stop", n, cutT)
	}
	if n := sfCount(starts, cut.Add(-2*time.Second), cut); n == 0 {
		t.Errorf("tester %d has no sample of the 2 s before the cut", cutT)
	}
	for i := range 3 {
		if i != cutT && sfCount(sfStarts(t, out, i), heal, heal.Add(time.Hour)) == 0 {
			t.Errorf("tester %d, not cut off, has no sample after the heal: the others must run on", i)
		}
	}
	if row := testerRow(t, out, cutT); row.str(t, "failed") != "true" {
		t.Errorf("tester %d is not marked failed in testers.csv after it was lost", cutT)
	}
	sfNothingLost(t, out, 3)
	checkRunDir(t, out)
	sshCheckClean(t, lab.Hosts, false)
}

// TestSSHDiskFullMidRun fills the disk of one of two SSH hosts (its /root
// and /tmp, where the testers' spools are) once its testers run, and
// leaves it full to the end. The spool is only the backup: each of its
// testers reports the failed write (spool-error, its log says the samples
// go on over the wire), none fails, their samples go on arriving, the
// run ends normally with every sample each tester recorded, and the
// cleanup, on the full disk, still leaves no process and no file.
func TestSSHDiskFullMidRun(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "sf"})
	// The spool fails once it needs a page the full disk does not have:
	// at ~15 bytes a sample, 3 clients of 20 ms fill a 4 KiB page in about
	// 2 s, so that the failure comes early whatever room was left in it.
	// The disk fills 1 s after the testers started, their spools fail
	// within about 3 s of their start (1 s after the fill here): 8 s of
	// run leave them several seconds of samples over the wire after it.
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 2, testers: 4, edits: []string{
		`[sh, -c, "test -s data/payload.txt && sleep 0.05"]`, `[sleep, "0.02"]`, "tester_duration: 3s", "tester_duration: 8s",
		"client_interval: 0s", "client_interval: 0s\n  clients_per_tester: 3"}})
	out := filepath.Join(t.TempDir(), "run")
	run := sfStart(t, dir, out)
	h := lab.Hosts[0]
	full := sfTestersOn(t, out, h, 4)
	time.Sleep(time.Second)
	if err := h.FillDisk(); err != nil {
		t.Fatal(err)
	}
	filled := time.Now()
	t.Cleanup(func() { _ = h.FreeDisk() })
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("exit %d with a host's disk full\n%s", code, run.stderr.String())
	}
	for i := range 4 {
		e := sfEvent(t, out, "spool-error", i)
		on := slices.Contains(full, i)
		switch {
		case on && e == nil:
			t.Errorf("tester %d, on the full disk, reported no spool-error", i)
		case on:
			t.Logf("tester %d: %v after the fill: %s", i, time.Unix(0, int64(e["t_ns"].(float64))).Sub(filled).Round(time.Millisecond), e["detail"])
			if d, _ := e["detail"].(string); !strings.Contains(d, "no space left on device") {
				t.Errorf("tester %d's spool-error says %q, want the full disk", i, d)
			}
		case e != nil:
			t.Errorf("tester %d, not on the full disk, reported %v", i, e)
		}
		log, _ := os.ReadFile(rundir.LogPath(out, i))
		if on && !strings.Contains(string(log), "samples go on over the wire only") {
			t.Errorf("tester %d's log does not say its spool failed:\n%s", i, log)
		}
		if e != nil && sfCount(sfStarts(t, out, i), time.Unix(0, int64(e["t_ns"].(float64))), filled.Add(time.Hour)) == 0 {
			t.Errorf("tester %d has no sample from after its spool failed: samples must go on over the wire", i)
		}
	}
	s := readSummary(t, out)
	if s.Testers.Started != 4 || s.Testers.Failed != 0 || s.Samples.Lost != 0 {
		t.Errorf("summary: testers %+v, samples %+v: want 4 started, none failed, none lost", s.Testers, s.Samples)
	}
	sfNothingLost(t, out, 4)
	checkRunDir(t, out)
	if files, _ := h.Files("/tmp"); !slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, ".netlab-fill") }) {
		t.Fatalf("the disk of %s was freed before the cleanup: the check below would not test a full disk", h.Name)
	}
	sshCheckClean(t, lab.Hosts, false)
}

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/test/netlab"
)

// The ssh testbed against real OpenSSH: hosts of test/netlab, each a
// network namespace with its own sshd (OpenSSH's defaults), hostname and
// disk (/root and /tmp), so the default work dir ~/.diperf is each host's.

// sshExperiment is a short run over lab hosts; the client checks that the
// deploy file is in its working directory.
const sshExperiment = `name: ssh-lab
client:
  exec: [sh, -c, "test -s data/payload.txt && sleep 0.05"]
  timeout: 10s
testbed:
  provider: ssh
  hosts: [%s]
  identity_file: %s
  known_hosts: %s
  testers_per_host: %d
  min_hosts: %d
  keep_files: %v
  deploy: [data]
  connect_timeout: 5s
schedule:
  testers: %d
  tester_start_interval: 100ms
  tester_duration: 3s
  client_interval: 0s
`

// sshWork is the ssh testbed's default work dir on a lab host.
const sshWork = "/root/.diperf"

// sshSpec is one experiment over lab hosts.
type sshSpec struct {
	hosts                      []*netlab.Host
	known                      string // known_hosts ("" = the lab's)
	perHost, minHosts, testers int
	keep                       bool
	edits                      []string // old, new pairs applied to the experiment
}

// sshWriteExperiment writes the experiment and its deploy folder into a
// fresh directory, where diperf runs.
func sshWriteExperiment(t *testing.T, lab *netlab.Lab, s sshSpec) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "payload.txt"), bytes.Repeat([]byte("diperf\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.known == "" {
		s.known = lab.KnownHosts
	}
	body := fmt.Sprintf(sshExperiment, strings.Join(sshNames(s.hosts), ", "), lab.KeyFile, s.known, s.perHost, s.minHosts, s.keep, s.testers)
	body = strings.NewReplacer(s.edits...).Replace(body)
	if err := os.WriteFile(filepath.Join(dir, "exp.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sshNames(hs []*netlab.Host) []string {
	var out []string
	for _, h := range hs {
		out = append(out, "root@"+h.Addr)
	}
	return out
}

// sshRun runs diperf run in dir (where the deploy files are).
func sshRun(t *testing.T, dir, out string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "exp.yaml", "--out", out)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("diperf run did not finish within 2m\nstderr:\n%s", e.String())
	}
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// sshEvents returns the details of the run's events of one kind.
func sshEvents(t *testing.T, dir, kind string) []string {
	t.Helper()
	var out []string
	for _, e := range eventsOf(t, dir) {
		if e["event"] == kind {
			d, _ := e["detail"].(string)
			out = append(out, d)
		}
	}
	return out
}

// sshCheckClean asserts that no process is left on the hosts, that the
// run's own folder is gone, and unless keep that no file is left in
// /root or /tmp but netlab's own disk filler.
func sshCheckClean(t *testing.T, hosts []*netlab.Host, keep bool) {
	t.Helper()
	sshNoProcess(t, hosts)
	for _, h := range hosts {
		for _, d := range []string{"/root", "/tmp"} {
			files, err := h.Files(d)
			if err != nil {
				t.Fatal(err)
			}
			files = slices.DeleteFunc(files, func(f string) bool { return strings.Contains(f, ".netlab-fill") })
			if !keep && len(files) > 0 {
				t.Errorf("%s: files left in %s after the run: %v", h.Name, d, files)
			}
			for _, f := range files {
				if strings.HasPrefix(f, sshWork+"/runs") {
					t.Errorf("%s: the run's own folder is left: %s", h.Name, f)
				}
			}
		}
	}
}

// sshNoProcess asserts that no process is left on the hosts, after up to
// 10 s: sshd's session processes exit once the controller hung up.
func sshNoProcess(t *testing.T, hosts []*netlab.Host) {
	t.Helper()
	for _, h := range hosts {
		var procs []netlab.Proc
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			var err error
			if procs, err = h.Processes(); err != nil {
				t.Fatal(err)
			}
			if len(procs) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(procs) > 0 {
			t.Errorf("%s: processes left after the run: %v", h.Name, procs)
		}
	}
}

// sshBadKey returns a copy of the lab's known_hosts in which h has
// another key.
func sshBadKey(t *testing.T, lab *netlab.Lab, h *netlab.Host) string {
	t.Helper()
	b, err := os.ReadFile(lab.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other_key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(other + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, h.Addr+" ") {
			line = h.Addr + " " + f[0] + " " + f[1]
		}
		lines = append(lines, line)
	}
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return known
}

// TestSSHTenHosts is the run over 10 hosts: one cut off by a
// partition (silent: it times out), one with a full disk and one whose
// key differs from known_hosts are reported and skipped; the other 7 get
// the binary and the deploy files in ~/.diperf, run 2 testers each (their
// hostnames in testers.csv), and are left with no process and no file.
func TestSSHTenHosts(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 10, Prefix: "ssh"})
	if err := lab.Hosts[9].Partition(true); err != nil {
		t.Fatal(err)
	}
	if err := lab.Hosts[8].FillDisk(); err != nil {
		t.Fatal(err)
	}
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, known: sshBadKey(t, lab, lab.Hosts[7]), perHost: 2, minHosts: 7, testers: 14})
	out := filepath.Join(t.TempDir(), "run")
	r := sshRun(t, dir, out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	skipped := sshEvents(t, out, "host-skipped")
	names := sshNames(lab.Hosts)
	for i, why := range map[int]string{9: "no answer within testbed.connect_timeout", 8: "only 0 MiB free in " + sshWork, 7: "differs from the one"} {
		if !slices.ContainsFunc(skipped, func(d string) bool { return strings.HasPrefix(d, names[i]+": ") && strings.Contains(d, why) }) {
			t.Errorf("no host-skipped event says %s: %s\n%s", names[i], why, strings.Join(skipped, "\n"))
		}
		if !strings.Contains(r.stderr, "testbed: skipped "+names[i]+": ") {
			t.Errorf("the run's output does not show %s skipped:\n%s", names[i], r.stderr)
		}
	}
	if len(skipped) != 3 {
		t.Errorf("%d hosts skipped, want 3:\n%s", len(skipped), strings.Join(skipped, "\n"))
	}
	shared := "14 testers over 7 usable hosts, at most 2 each (testbed.testers_per_host) (3 skipped: " + strings.Join(slices.Sorted(slices.Values(names[7:])), ", ") + ")"
	if ev := sshEvents(t, out, "testers-shared"); len(ev) != 1 || !strings.HasPrefix(ev[0], shared) || !strings.Contains(r.stderr, "testbed: "+shared) {
		t.Errorf("the run does not say how the testers were shared (want %q): events %q\n%s", shared, ev, r.stderr)
	}
	if notes := strings.Join(sshEvents(t, out, "testbed-note"), "\n"); strings.Count(notes, "2 file(s) uploaded, 0 unchanged") != 7 {
		t.Errorf("want 7 hosts with the binary and the deploy file uploaded:\n%s", notes)
	}
	s := readSummary(t, out)
	if s.Testers.Started != 14 || s.Testers.Failed != 0 || s.Samples.OK == 0 || s.Samples.Failed != 0 {
		t.Errorf("summary: %+v %+v", s.Testers, s.Samples)
	}
	byHost := map[string]int{}
	for _, row := range readTesters(t, out) {
		byHost[row.str(t, "host")]++
	}
	for _, h := range lab.Hosts[:7] {
		if byHost[h.Name] != 2 {
			t.Errorf("host %s ran %d testers, want 2 (testers by hostname: %v)", h.Name, byHost[h.Name], byHost)
		}
	}
	checkRunDir(t, out)
	sshCheckClean(t, lab.Hosts[:9], false)
}

// TestSSHMinHostsNotMet: with min_hosts 0 every host must be usable; a run
// with a host that refuses connections and one with a changed key fails
// at once, naming each host's reason, creates no run directory and leaves
// nothing on the good host. Refused keys alone are the user's setup: exit
// code 2.
func TestSSHMinHostsNotMet(t *testing.T) {
	lab := netlab.New(t, netlab.Options{Hosts: 3, Prefix: "ssh"})
	if err := lab.Hosts[2].Stop(); err != nil {
		t.Fatal(err)
	}
	known := sshBadKey(t, lab, lab.Hosts[1])
	names := sshNames(lab.Hosts)
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, known: known, perHost: 1, testers: 3})
	out := filepath.Join(t.TempDir(), "run")
	r := sshRun(t, dir, out)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (an unreachable host is not a bad experiment)\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"1 usable host(s), and the run needs 3", names[2] + ": unreachable", "connection refused",
		names[1] + ": ssh: handshake failed: host key", "differs from the one"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a run that could not start left its directory %s", out)
	}
	sshCheckClean(t, lab.Hosts[:2], false)

	dir = sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts[:2], known: known, perHost: 1, minHosts: 2, testers: 2})
	if r := sshRun(t, dir, out); r.code != 2 || !strings.Contains(r.stderr, "lower testbed.min_hosts") {
		t.Errorf("a changed host key alone: exit %d, want 2 with a hint\n%s", r.code, r.stderr)
	}
	sshCheckClean(t, lab.Hosts[:2], false)

	// the stopped host's testers do not fit on the one left at
	// testers_per_host 2: refused, never piled onto it
	dir = sshWriteExperiment(t, lab, sshSpec{hosts: []*netlab.Host{lab.Hosts[0], lab.Hosts[2]}, perHost: 2, minHosts: 1, testers: 4})
	r = sshRun(t, dir, out)
	if want := "4 testers at testbed.testers_per_host 2 need 2 hosts, and 1 usable remain (1 skipped: " + names[2] + ")"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("testers that do not fit once a host is skipped: exit %d, want 1 saying %q\n%s", r.code, want, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a run refused for its testers per host left its directory %s", out)
	}
	sshCheckClean(t, lab.Hosts[:1], false)
}

// TestSSHKeepFilesReusesUnchangedFiles: with keep_files the deployed files
// stay; a second run uploads nothing (the notes say so and the binary's
// mtime is unchanged), a changed deploy file alone is uploaded again, and
// no run leaves a process or its own folder behind.
func TestSSHKeepFilesReusesUnchangedFiles(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "ssh"})
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 1, testers: 2, keep: true})
	run := func(i int, want string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), fmt.Sprint("run", i))
		if r := sshRun(t, dir, out); r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		if notes := strings.Join(sshEvents(t, out, "testbed-note"), "\n"); strings.Count(notes, want) != 2 {
			t.Errorf("run %d: want %q on both hosts:\n%s", i, want, notes)
		}
		sshCheckClean(t, lab.Hosts, true)
	}
	run(1, "2 file(s) uploaded, 0 unchanged")
	binPath := lab.Hosts[0].Path(sshWork + "/bin/diperf")
	st1, err := os.Stat(binPath)
	if err != nil {
		t.Fatalf("keep_files: the binary is not on the host: %v", err)
	}
	run(2, "0 file(s) uploaded, 2 unchanged")
	if st2, err := os.Stat(binPath); err != nil || !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("the unchanged binary was written again (mtime %v, then %v, %v)", st1.ModTime(), st2.ModTime(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "payload.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(3, "1 file(s) uploaded, 1 unchanged")
	if b, err := os.ReadFile(lab.Hosts[1].Path(sshWork + "/files/data/payload.txt")); err != nil || string(b) != "changed\n" {
		t.Errorf("the changed deploy file on the host holds %q (%v)", b, err)
	}
}

// TestSSHSweepKillsStrays: clients that leave a process in a process
// group of its own (perl's setpgrp), which the client's end does not
// kill, are ended by their tester's client jail when it ends (its log
// says so), before the cleanup's sweep: nothing is left on any host.
func TestSSHSweepKillsStrays(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "ssh"})
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 1, testers: 2, edits: []string{
		`"test -s data/payload.txt && sleep 0.05"`, `"perl -e 'setpgrp(0, 0); exec qw(sleep 300)' >/dev/null 2>&1 & sleep 0.2"`,
		"tester_duration: 3s", "tester_duration: 1s"}})
	out := filepath.Join(t.TempDir(), "run")
	r := sshRun(t, dir, out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for slot := range 2 { // each tester ended its strays itself (its client jail), before the cleanup
		if b, _ := os.ReadFile(rundir.LogPath(out, slot)); !strings.Contains(string(b), "the clients left behind ended on") {
			t.Errorf("tester %d does not say it ended what its clients left behind:\n%s", slot, b)
		}
	}
	sshCheckClean(t, lab.Hosts, false)
}

// TestSSHMoreTestersThanMaxSessions: sshd lets one connection carry 10
// sessions by default (MaxSessions); 25 testers on one host take three
// connections, all run, and all are cleaned up.
func TestSSHMoreTestersThanMaxSessions(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 1, Prefix: "ssh"})
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 25, testers: 25,
		edits: []string{"tester_start_interval: 100ms", "tester_start_interval: 20ms"}})
	out := filepath.Join(t.TempDir(), "run")
	r := sshRun(t, dir, out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if s := readSummary(t, out); s.Testers.Started != 25 || s.Testers.Failed != 0 {
		t.Errorf("summary: %+v", s.Testers)
		for _, row := range readTesters(t, out) {
			if why := row.str(t, "failure_reason"); why != "" {
				t.Logf("tester failed: %s", why)
			}
		}
	}
	sshCheckClean(t, lab.Hosts, false)
}

// TestSSHKilledTesterSpoolRetrieved: a tester killed with SIGKILL on its
// host is marked failed, and its own spool there (--spool in the run's
// folder) is fetched over SFTP before the cleanup removes it.
func TestSSHKilledTesterSpoolRetrieved(t *testing.T) {
	t.Parallel()
	lab := netlab.New(t, netlab.Options{Hosts: 2, Prefix: "ssh"})
	dir := sshWriteExperiment(t, lab, sshSpec{hosts: lab.Hosts, perHost: 1, testers: 2,
		edits: []string{"tester_duration: 3s", "tester_duration: 8s"}})
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "exp.yaml", "--out", out)
	cmd.Dir = dir
	run := startCmd(t, nil, cmd)
	waitEvent(t, out, "started", 1)
	time.Sleep(time.Second) // a second of samples, some spooled and not yet shipped
	var pid int
	for _, e := range eventsOf(t, out) {
		if id, _ := e["id"].(string); e["event"] == "launched" && e["tester"] == float64(1) {
			pid, _ = strconv.Atoi(id[strings.LastIndex(id, ":")+1:])
		}
	}
	if pid <= 1 {
		t.Fatalf("no pid for tester 1 in the launched event")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if row := testerRow(t, out, 1); row.str(t, "failed") != "true" {
		t.Errorf("the killed tester is not marked failed")
	}
	got := strings.Join(sshEvents(t, out, "retrieved"), "\n")
	t.Logf("retrieved: %s", got)
	if !strings.Contains(got, "samples from the tester's own spool (") || strings.Contains(got, "(0 bytes)") {
		t.Errorf("the killed tester's spool was not fetched from its host: %q (errors: %q)", got, sshEvents(t, out, "retrieve-error"))
	}
	sshCheckClean(t, lab.Hosts, false)
}

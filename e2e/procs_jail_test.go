package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapeClient is an exec client that leaves three processes behind, each
// gone from its process group, and writes their pids to files in $D (replaced by a folder): a
// sleep that called setsid, a perl that called setpgrp, and a daemon that
// forked twice and called setsid in between (its parent exits at once).
const escapeClient = `setsid sleep 600 & echo $! > "$D/setsid"; ` +
	`perl -e 'setpgrp; sleep 600' & echo $! > "$D/setpgrp"; ` +
	`perl -MPOSIX -e 'fork and exit; POSIX::setsid(); fork and exit; open F, ">", shift or die; print F $$$$; close F; sleep 600' "$D/daemon.tmp"; ` +
	`while [ ! -s "$D/daemon.tmp" ]; do sleep 0.01; done; mv "$D/daemon.tmp" "$D/daemon"`

// TestJailEscapedChildrenDieWithCleanTester runs a tester that ends
// normally (exit 0) on the local testbed, whose client leaves processes
// that left its process group and session: once the run is over none of
// them runs, with the client jail a cgroup and with the fallback
// (subreaper) alike.
func TestJailEscapedChildrenDieWithCleanTester(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"cgroup", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cgroup := ownCgroup()
			if mode == "cgroup" && !cgroupWritable(cgroup) {
				t.Skip("no writable cgroup v2 with cgroup.kill on this host")
			}
			dir := t.TempDir()
			exp := writeExperiment(t, `name: escape
client:
  exec: [sh, -c, '`+strings.ReplaceAll(strings.ReplaceAll(escapeClient, "$D", dir), "'", "''")+`']
  timeout: 5s
schedule:
  testers: 1
  tester_duration: 1s
  client_interval: 1s
`)
			out := filepath.Join(t.TempDir(), "run")
			mark := newMark(t)
			t.Cleanup(func() { killPidFiles(dir) })
			r := diperfEnv(t, time.Minute, []string{markEnv + "=" + mark, "DIPERF_JAIL=" + mode}, "run", exp, "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if row := testerRow(t, out, 0); row.str(t, "failed") != "false" {
				t.Fatalf("the tester failed: %s", row.str(t, "failure_reason"))
			}
			for _, name := range []string{"setsid", "setpgrp", "daemon"} {
				pid := readPidFile(t, filepath.Join(dir, name))
				if _, live := procsParent(pid); live {
					t.Errorf("the client's %s child %d outlived its tester, which exited cleanly", name, pid)
				}
			}
			if pids := markedProcesses(t, mark); len(pids) > 0 {
				t.Errorf("processes of this run left running: %s", describePIDs(pids))
			}
			jail := filepath.Join(cgroup, "diperf-clients-"+itoa(pidOf(t, admitted(t, out))))
			if _, err := os.Stat(jail); cgroup != "" && err == nil {
				t.Errorf("the tester left its jail %s", jail)
			}
		})
	}
}

// readPidFile returns the pid a client wrote to path.
func readPidFile(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the client wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("%s: %q is no pid", path, b)
	}
	return pid
}

// killPidFiles kills the processes whose pids the client wrote in dir, if
// they still run (a failed test leaves nothing behind).
func killPidFiles(dir string) {
	for _, name := range []string{"setsid", "setpgrp", "daemon"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			if _, live := procsParent(pid); live {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// admitted returns the event that admitted tester 0.
func admitted(t *testing.T, dir string) map[string]any {
	t.Helper()
	for _, e := range eventsOf(t, dir) {
		if e["event"] == "admitted" && e["tester"] == float64(0) {
			return e
		}
	}
	t.Fatal("tester 0 was never admitted")
	return nil
}

// ownCgroup returns the folder of this process's cgroup v2 group ("" if
// none), where the local testbed's testers make their jails.
func ownCgroup() string {
	mnt := ""
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if fs := strings.Fields(sc.Text()); len(fs) > 8 && strings.Contains(sc.Text(), " - cgroup2 ") {
			mnt = fs[4]
			break
		}
	}
	own, _ := os.ReadFile("/proc/self/cgroup")
	for line := range strings.SplitSeq(string(own), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok && mnt != "" {
			return filepath.Join(mnt, p)
		}
	}
	return ""
}

// cgroupWritable reports whether this process may make a cgroup v2 group
// with cgroup.kill under its own (at dir), as a tester's client jail does.
func cgroupWritable(dir string) bool {
	if dir == "" {
		return false
	}
	probe := filepath.Join(dir, "diperf-e2e-probe-"+strconv.Itoa(os.Getpid()))
	if os.Mkdir(probe, 0o755) != nil {
		return false
	}
	defer os.Remove(probe)
	_, err := os.Stat(filepath.Join(probe, "cgroup.kill"))
	return err == nil
}

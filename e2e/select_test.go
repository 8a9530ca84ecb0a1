package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSelectLocal runs testbed.select on the local testbed against the
// real directory and two real sensors on loopback (this machine's and the
// target's): with a min_bandwidth loopback meets, the run chooses this
// machine and records why (selection.csv, events.jsonl, testers.csv's
// chosen column, the report's table); with one no link meets, or with
// the host's sensor unknown to the mesh, the run is refused with exit 2,
// the reason, and no run directory.
func TestSelectLocal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tok"), []byte(linkToken), 0o600); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	url, c := startMesh(t, dir, host, "svc")
	waitPair(t, c, host, "svc")
	target := startTarget(t, 2, time.Millisecond)
	exp := filepath.Join(dir, "sel.yaml")
	write := func(sel, names string) {
		body := "name: sel\ntarget: " + target + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
			"testbed:\n  select: " + sel + "\nschedule:\n  testers: 1\n  tester_duration: 1s\n" +
			"sensors:\n  directory: " + url + "\n  token_file: " + filepath.Join(dir, "tok") + "\n  target: svc\n" + names
		if err := os.WriteFile(exp, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write("{min_bandwidth: 1Mbit/s, probe: false}", "")
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "select: chose localhost: chosen 1st: bandwidth ") {
		t.Errorf("the progress does not say what was chosen:\n%s", r.stderr)
	}
	sel := readCSV(t, filepath.Join(out, "selection.csv"), "order", "host", "chosen", "reason", "bandwidth_bps", "idle_cpu_pct")
	if len(sel.rows) != 1 || sel.rows[0].str(t, "chosen") != "true" || sel.rows[0].float(t, "bandwidth_bps") < 1e6 {
		t.Fatalf("selection.csv: %v", sel.rows)
	}
	if cpu := sel.rows[0].float(t, "idle_cpu_pct"); cpu < 0 || cpu > 100 {
		t.Errorf("idle CPU %v%%", cpu)
	}
	if ev := sshEvents(t, out, "host-chosen"); len(ev) != 1 || !strings.HasPrefix(ev[0], "localhost: chosen 1st: bandwidth") {
		t.Errorf("host-chosen events: %q", ev)
	}
	for _, row := range readCSV(t, filepath.Join(out, "testers.csv"), "chosen").rows {
		if !strings.HasPrefix(row.str(t, "chosen"), "chosen 1st") {
			t.Errorf("testers.csv line %d: chosen %q", row.line, row.str(t, "chosen"))
		}
	}
	if page, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(page), "Tester selection") {
		t.Errorf("report.html has no Tester selection table (%v)", err)
	}

	for _, tc := range []struct{ sel, names, why string }{
		{"{min_bandwidth: 9Tbit/s, probe: false}", "", "< min 9 Tbit/s"},
		{"{min_bandwidth: 1Mbit/s, probe: false}", "  names: {" + host + ": nobody}\n", "no figures: the mesh has no figures of nobody → svc"},
	} {
		write(tc.sel, tc.names)
		out := filepath.Join(t.TempDir(), "run")
		r := diperf(t, time.Minute, "run", exp, "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, "testbed.select: 0 of the 1 hosts asked for qualify") || !strings.Contains(r.stderr, tc.why) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", tc.sel, r.code, tc.why, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a refused selection left its run directory", tc.sel)
		}
	}
}

package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// TestCaseLDAP runs the ldap case shortened (examples/cases/ldap: slapd
// under a CPU quota q, searches that examine 5000 entries, 12 testers)
// and holds its knee against the capacity the script configured and its
// client view against cn=Monitor's count of searches: per window,
// cumulatively, and in total (every search slapd completed is a call a
// client saw succeed, but for calls that failed or were cancelled).
func TestCaseLDAP(t *testing.T) {
	t.Parallel()
	dir, out := runCase(t, "ldap")
	s := readSummary(t, dir)
	ldapKnee(t, dir, s)
	v := caseValidate(t, dir, "slapd", "slapd_searches", 1, 50)
	if server := ldapServed(t, dir); math.Abs(server-float64(s.Samples.OK)) > float64(s.Samples.Failed+s.Samples.Cancelled) {
		t.Errorf("slapd completed %.0f searches, the clients saw %d ok (%d failed or cancelled)", server, s.Samples.OK, s.Samples.Failed+s.Samples.Cancelled)
	}
	t.Logf("validate: %d windows, max |difference| %.2f%%, cumulative gap %+.0f calls at the end", v.Checked, v.MaxPct, v.Cum.Final.Calls)
	checkLDAPStopped(t, out)
}

// ldapKnee holds the run's saturation against the capacity q/c, c the
// CPU time slapd spends on a search.
//
// The kernel holds slapd to q exactly (CFS bandwidth control, per 20 ms
// period), so while the calls queue in slapd it serves q/c searches/s, c
// being its cost in those same seconds, read from slapd's cgroup and
// cn=Monitor at each scrape of the saturated window (the quanta with at
// least half the largest load). c drifts with what else the 2 cores run
// (the capacity went from 44 to 68 calls/s within 10 s in one run), so
// diperf's plateau, the median of its quanta, must lie within the range
// the capacity took (10% beyond it for the intervals' ends, read a few
// ms apart within slow scrapes). slapd may not use more than q (5% for the
// window's ends). The capacity calibrated before the run (c from 120
// searches over about 3 s, with no diperf running) is a prediction, only
// logged: in the run, 12 testers and their controller share the 2 cores
// with slapd, and the throughput was 36% under to 40% over it in the 14
// runs measured. When slapd ran at under 90%
// of its quota while saturated (the clients, starved on a busy machine,
// could not keep it busy), the knee cannot show: the throughput must then
// only not exceed the capacity.
func ldapKnee(t *testing.T, dir string, s *analyze.Summary) {
	t.Helper()
	c := readLDAPCapacity(t, dir)
	sat, q := s.Saturation, float64(c.QuotaPct)/100
	win := ldapWindow(t, dir, s.OriginNs, c.QuotaPct)
	t.Logf("saturation %+v; calibrated capacity %.1f calls/s; saturated window %.1f-%.1f s: slapd at %.1f%% of one CPU, capacity %.1f (%.1f to %.1f) calls/s",
		sat, c.Calibration.Capacity, win.start, win.end, 100*win.share, win.capacity, win.lo, win.hi)
	if win.share > 1.05*q {
		t.Errorf("slapd used %.1f%% of one CPU while saturated, over its quota %d%%", 100*win.share, c.QuotaPct)
	}
	if x := max(sat.Throughput, sat.CapacityAtLeast); x > 1.10*win.hi {
		t.Errorf("throughput %.1f calls/s, over the largest capacity q/c %.1f calls/s while saturated (allowed 10%%)", x, win.hi)
	}
	if win.share < 0.9*q {
		t.Logf("slapd ran at %.1f%% of one CPU, under 90%% of its quota %d%%: the knee could not show", 100*win.share, c.QuotaPct)
		return
	}
	if !sat.Saturated {
		t.Fatalf("not saturated (%s), yet slapd ran at its quota", sat.Evidence)
	}
	if sat.Throughput < 0.9*win.lo {
		t.Errorf("saturation throughput %.1f calls/s, under the least capacity q/c %.1f calls/s while saturated (allowed 10%%)", sat.Throughput, win.lo)
	}
	t.Logf("saturation throughput %+.1f%% off the calibrated capacity", 100*(sat.Throughput-c.Calibration.Capacity)/c.Calibration.Capacity)
}

// ldapCapacity is the part of the case's capacity.json the test reads.
type ldapCapacity struct {
	QuotaPct    int `json:"quota_pct"`
	Calibration struct {
		Calls    int     `json:"calls"`
		Capacity float64 `json:"capacity"`
	} `json:"calibration"`
}

// readLDAPCapacity reads the capacity the case's script calibrated.
func readLDAPCapacity(t *testing.T, dir string) ldapCapacity {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "capacity.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c ldapCapacity
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("capacity.json: %v", err)
	}
	if c.QuotaPct <= 0 || c.Calibration.Calls < 20 || c.Calibration.Capacity <= 0 {
		t.Fatalf("capacity.json: no calibrated capacity: %s", b)
	}
	return c
}

// checkLDAPStopped checks that the slapd the script started (its pid in
// the script's output) is gone.
func checkLDAPStopped(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`ldap: slapd on \S+, .*, pid (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the script did not say slapd's pid:\n%s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	if comm, err := os.ReadFile("/proc/" + m[1] + "/comm"); err == nil && string(comm) == "slapd\n" {
		t.Errorf("slapd (pid %d) still runs after the script ended", pid)
	}
}

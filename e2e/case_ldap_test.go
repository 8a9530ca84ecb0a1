package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestCaseLDAP runs the ldap case shortened (examples/cases/ldap: slapd
// under a CPU quota q, searches that examine 5000 entries, 16 testers)
// and holds its knee against the capacity the script configured and its
// client view against cn=Monitor's count of searches.
//
// The capacity is q/c, c the CPU time slapd spends on a search. The
// kernel holds slapd to q exactly (CFS bandwidth control, per 20 ms
// period), so while the calls queue in slapd it serves q/c searches/s, c
// being its cost in those same seconds: the saturation throughput must be
// within 10% of q/c over the saturated window (c drifts by up to ±20%
// from second to second on a shared 2-core machine, so the median of the
// plateau's quanta and the window's mean differ by a few %; the window's
// ends are known to half a scrape, at most 0.3 s of 8 s), and slapd must
// have used its quota there (at least 90% of q, and no more than q but
// for those ends). Against the capacity calibrated before the run (c
// from 100 searches over about 2 s) it must be within 30%: c over 2 s
// and c over the run's 8 s differed by up to 15% in the runs measured.
func TestCaseLDAP(t *testing.T) {
	t.Parallel()
	dir, out := runCase(t, "ldap")
	c := readLDAPCapacity(t, dir)
	s := readSummary(t, dir)
	sat := s.Saturation
	win := ldapWindow(t, dir, s.OriginNs, c.QuotaPct)
	t.Logf("saturation %+v; calibrated capacity %.1f calls/s; saturated window %.1f-%.1f s: slapd at %.1f%% of one CPU, capacity %.1f calls/s",
		sat, c.Calibration.Capacity, win.start, win.end, 100*win.share, win.capacity)
	if !sat.Saturated {
		t.Fatalf("not saturated (%s), yet slapd ran at its quota from %.1f s to %.1f s", sat.Evidence, win.start, win.end)
	}
	if q := float64(c.QuotaPct) / 100; win.share < 0.9*q || win.share > 1.05*q {
		t.Errorf("slapd used %.1f%% of one CPU while saturated, want its quota %d%% (90%% to 105%%)", 100*win.share, c.QuotaPct)
	}
	if d := math.Abs(sat.Throughput-win.capacity) / win.capacity; d > 0.10 {
		t.Errorf("saturation throughput %.1f calls/s, %.1f%% off the capacity q/c %.1f calls/s while saturated (allowed 10%%)", sat.Throughput, 100*d, win.capacity)
	}
	if d := math.Abs(sat.Throughput-c.Calibration.Capacity) / c.Calibration.Capacity; d > 0.30 {
		t.Errorf("saturation throughput %.1f calls/s, %.1f%% off the calibrated capacity %.1f calls/s (allowed 30%%)", sat.Throughput, 100*d, c.Calibration.Capacity)
	}
	v := caseValidate(t, dir, "slapd", "slapd_searches", 1, 50)
	if server := ldapServed(t, dir); math.Abs(server-float64(s.Samples.OK)) > float64(s.Samples.Failed+s.Samples.Cancelled) {
		t.Errorf("slapd completed %.0f searches, the clients saw %d ok (%d failed or cancelled)", server, s.Samples.OK, s.Samples.Failed+s.Samples.Cancelled)
	}
	t.Logf("validate: %d windows, max |difference| %.2f%%, cumulative gap %+.0f calls at the end", v.Checked, v.MaxPct, v.Cum.Final.Calls)
	checkLDAPStopped(t, out)
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

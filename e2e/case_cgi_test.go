package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCaseCGI runs examples/cases/cgi shortened: a private nginx in front
// of fcgiwrap with N = 8 workers of a CGI script sleeping S = 200 ms
// (capacity N/S = 40 calls/s, saturating at a load of 8), loaded by 16
// testers. The knee must be where N and S put it, within what the physics
// allows (below), the clients' successful calls must agree with nginx's
// access log per window, cumulatively and in total, and nothing the
// script started may be left running.
//
// The physics of the knee: N workers of S serve at most N/S calls/s, and a
// quantum Q holds at most N (Q/S + 1) calls (a worker's first and last call
// at its two ends): X* ≤ N/S (1 + S/Q). Each call holds its worker for S
// and for what the CGI costs besides (fcgiwrap's fork, bash's start, the
// FastCGI exchange: o, measured 5 ms on an idle machine and up to 40 ms on
// this one under other builds); o ≤ S/4 is allowed, X* ≥ 0.8 N/S. The load
// at saturation, N* = X*·R0 with R0 the light-load response time S +
// o_light, is N (S + o_light)/(S + o_saturated): 0.8 N to 1.25 N.
func TestCaseCGI(t *testing.T) {
	t.Parallel()
	const n, s = 8, 0.2 // workers, service time (s)
	dir, out := runCase(t, "cgi", "CGI_WORKERS=8", "CGI_SERVICE_TIME=0.2")
	sum := readSummary(t, dir)
	sat := sum.Saturation
	capacity, q := n/s, sum.QuantumS
	t.Logf("saturation %+v; capacity %.0f calls/s at load %d", sat, capacity, n)
	if sat.Verdict != "saturated" {
		t.Fatalf("verdict %q (%s), want saturated: 16 testers against 8 workers\n%s", sat.Verdict, sat.Reason, out)
	}
	if sat.Load < 0.8*n || sat.Load > 1.25*n {
		t.Errorf("saturation load %.2f, want N = %d within 0.8 N to 1.25 N", sat.Load, n)
	}
	if sat.Throughput < 0.8*capacity || sat.Throughput > capacity*(1+s/q) {
		t.Errorf("saturation throughput %.1f calls/s, want N/S = %.0f within 0.8 N/S to N/S (1 + S/Q) = %.0f",
			sat.Throughput, capacity, capacity*(1+s/q))
	}
	if sum.Samples.Failed != 0 || sum.ResponseTimeMs.Min < s*1000 {
		t.Errorf("%d calls failed, fastest %.1f ms: every call should succeed in at least S = %.0f ms",
			sum.Samples.Failed, sum.ResponseTimeMs.Min, s*1000)
	}
	v := caseValidate(t, dir, "access", "access_lines_total", 1, 100)
	t.Logf("validate: %d windows, %d calls, cumulative gap %+.0f", v.Checked, v.Calls, v.Cum.Worst.Calls)
	if !strings.Contains(out, "knee           holds") {
		t.Errorf("the script does not say the knee holds:\n%s", out)
	}
	for _, f := range []string{"nginx-access.log", "nginx-error.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the run directory lacks nginx's %s: %v", f, err)
		}
	}
	checkStopped(t, out)
}

// casePids are the pids the cgi script says it started.
var casePids = regexp.MustCompile(`\(pid (\d+)\)`)

// checkStopped fails the test when a process of the groups the script
// started (nginx and fcgiwrap, each a group leader) still runs.
func checkStopped(t *testing.T, out string) {
	t.Helper()
	groups := map[int]bool{}
	for _, m := range casePids.FindAllStringSubmatch(out, -1) {
		pid, _ := strconv.Atoi(m[1])
		groups[pid] = true
	}
	if len(groups) != 2 {
		t.Fatalf("the script named %d process groups, want nginx's and fcgiwrap's:\n%s", len(groups), out)
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 {
			continue // gone meanwhile
		}
		f := strings.Fields(string(b[i+1:])) // state, ppid, pgrp, ...
		pgrp := -1
		if len(f) > 2 {
			pgrp, _ = strconv.Atoi(f[2])
		}
		if groups[pgrp] && f[0] != "Z" {
			t.Errorf("process %s of group %d still runs after the script: %s", filepath.Base(filepath.Dir(p)), pgrp, b[:i+1])
		}
	}
}

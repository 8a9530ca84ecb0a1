package e2e

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCaseCGI runs examples/cases/cgi shortened: a private nginx in front
// of fcgiwrap with N = 8 workers of a CGI script waiting S = 200 ms
// (capacity N/S = 40 calls/s, saturating at a load of 8), loaded by 16
// testers. The knee must be where N and S put it, within what the physics
// allows (below), and at the capacity the service really had by its own
// record; the clients' successful calls must agree with nginx's access log
// per window, cumulatively and in total; nothing the script started may be
// left running.
//
// The physics of the knee: N workers of S serve at most N/S calls/s, and a
// quantum Q holds at most N (Q/S + 1) calls (a worker's first and last call
// at its two ends): X* ≤ N/S (1 + S/Q). Each call holds its worker for S
// and for what the CGI costs besides (fcgiwrap's fork, bash's start, the
// FastCGI exchange): o, a few ms on an idle machine, measured up to 40 ms
// on this one while other builds ran (the script favours the service's
// processes); o ≤ S/2 is allowed, X* ≥ N/(1.5 S). The load at saturation,
// N* = X*·R0 with R0 the light-load response time S + o_light, is
// N (S + o_light)/(S + o_saturated): N/1.5 to 1.5 N. Whatever o was, the
// access log says what the service served while every worker was busy
// (the quanta at a load of at least 1.5 N): X* must be that, within 10%
// (a median of 1 s quanta against a mean over the same stretch).
func TestCaseCGI(t *testing.T) {
	t.Parallel()
	const n, s = 8, 0.2 // workers, service time (s)
	dir, out := runCase(t, "cgi", "CGI_WORKERS=8", "CGI_SERVICE_TIME=0.2")
	sum := readSummary(t, dir)
	sat := sum.Saturation
	capacity, q := n/s, sum.QuantumS
	served := servedSaturated(t, dir, sum.OriginNs, q, 1.5*n)
	t.Logf("saturation %+v; capacity %.0f calls/s at load %d; served %.1f calls/s at load ≥ %.0f (o = %.0f ms)",
		sat, capacity, n, served, 1.5*n, (n/served-s)*1000)
	if sat.Verdict != "saturated" {
		t.Fatalf("verdict %q (%s), want saturated: 16 testers against 8 workers\n%s", sat.Verdict, sat.Reason, out)
	}
	if sat.Load < n/1.5 || sat.Load > 1.5*n {
		t.Errorf("saturation load %.2f, want N = %d within N/1.5 to 1.5 N", sat.Load, n)
	}
	if sat.Throughput < capacity/1.5 || sat.Throughput > capacity*(1+s/q) {
		t.Errorf("saturation throughput %.1f calls/s, want N/S = %.0f within N/(1.5 S) to N/S (1 + S/Q) = %.0f",
			sat.Throughput, capacity, capacity*(1+s/q))
	}
	if math.Abs(sat.Throughput-served) > 0.1*served {
		t.Errorf("saturation throughput %.1f calls/s, but the access log has %.1f calls/s while the load was ≥ %.0f",
			sat.Throughput, served, 1.5*n)
	}
	if sum.Samples.Failed != 0 || sum.ResponseTimeMs.Min < s*1000 {
		t.Errorf("%d calls failed, fastest %.1f ms: every call should succeed in at least S = %.0f ms",
			sum.Samples.Failed, sum.ResponseTimeMs.Min, s*1000)
	}
	v := caseValidate(t, dir, "access", "lines_total", 1, 100)
	t.Logf("validate: %d windows, %d calls, cumulative gap %+.0f", v.Checked, v.Calls, v.Cum.Worst.Calls)
	lines, sent := accessTotal(t, dir, "lines_total"), accessTotal(t, dir, "bytes_sum")
	if lines != float64(sum.Samples.OK) || sent != 1024*lines {
		t.Errorf("the access log has %.0f calls and %.0f bytes sent; want the clients' %d calls of 1024 bytes each",
			lines, sent, sum.Samples.OK)
	}
	if !strings.Contains(out, "knee           holds") {
		t.Errorf("the script does not say the knee holds:\n%s", out)
	}
	checkStopped(t, out)
}

// accessLine is a successful CGI call's line of the case's access log
// ('$msec $status $request_time $body_bytes_sent "$request"').
var accessLine = regexp.MustCompile(`^(\d+)\.(\d{3}) 200 \S+ \d+ "GET /cgi-bin/work HTTP/1\.1"$`)

// servedSaturated is the rate (calls/s) of the successful CGI calls that
// nginx's access log (nginx-access.log in dir) has ending in the quanta
// whose load was at least minLoad: what the service served while all its
// workers were busy.
func servedSaturated(t *testing.T, dir string, origin int64, quantum, minLoad float64) float64 {
	t.Helper()
	busy := map[int64]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, "quanta.csv"), "t_s", "load").rows {
		if r.float(t, "load") >= minLoad {
			busy[int64(math.Round(r.float(t, "t_s")/quantum))] = true
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "nginx-access.log"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, line := range strings.Split(string(b), "\n") {
		m := accessLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		ms, _ := strconv.ParseInt(m[2], 10, 64)
		ns := sec*1e9 + ms*1e6 - origin
		if ns >= 0 && busy[ns/int64(quantum*1e9)] {
			calls++
		}
	}
	if len(busy) < 3 || calls == 0 {
		t.Fatalf("%d quanta at a load of at least %.0f, %d calls in them: no stretch of saturation", len(busy), minLoad, calls)
	}
	return float64(calls) / (float64(len(busy)) * quantum)
}

// accessTotal is the last value of the access endpoint's series metric
// (one without labels) in dir's monitor.csv.
func accessTotal(t *testing.T, dir, metric string) float64 {
	t.Helper()
	v := math.NaN()
	for _, r := range readCSV(t, filepath.Join(dir, "monitor.csv"), "endpoint", "metric", "labels", "value").rows {
		if r.str(t, "endpoint") == "access" && r.str(t, "metric") == metric && r.str(t, "labels") == "" {
			v = r.float(t, "value")
		}
	}
	return v
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

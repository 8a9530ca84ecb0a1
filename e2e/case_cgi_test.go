package e2e

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCaseCGI runs examples/cases/cgi shortened: a private nginx in front
// of fcgiwrap with N = 8 workers of a CGI script waiting S = 200 ms
// (capacity N/S = 40 calls/s, saturating at a load of 8), loaded by 16
// testers. The knee must be where N and S, and the CGI's own cost the
// access log shows, put it; the clients' successful calls must agree with
// nginx's access log per window, cumulatively and in total, and so must
// the bytes; nothing the script started may be left running.
//
// The physics of the knee. N workers of S serve at most N/S calls/s, and a
// quantum Q holds at most N (Q/S + 1) calls (a worker's first and last call
// at its two ends): X* ≤ N/S (1 + S/Q). Each call also holds its worker
// for what the CGI costs besides S (fcgiwrap's fork, bash's start, the
// FastCGI exchange): o, about 10 ms here with the machine to itself, over
// 100 ms under stress-ng and other builds, so no fixed share of S bounds
// it. The access log says what it was: while the load was at least 1.25 N
// every worker was busy (calls waited for one), so the calls that ended in
// such a quantum number Q N/(S + o); o varies with what else the machine
// runs (a run here went from 3 to 36 calls in a second while load average
// was 19), so the median quantum's count is taken, as the analysis takes
// its plateau's median quantum. X* must be that rate within 10%, and
// N* = X*·R0, R0 the light-load response time (S + o there), that rate
// times R0 within 15% (R0 is taken over loads up to N/2 here, up to half
// the fitted knee by the analysis). The log must show the N workers, and o
// at most S.
func TestCaseCGI(t *testing.T) {
	t.Parallel()
	const n, s = 8, 0.2 // workers, service time (s)
	dir, out := runCase(t, "cgi", "CGI_WORKERS=8", "CGI_SERVICE_TIME=0.2")
	sum := readSummary(t, dir)
	sat, q := sum.Saturation, sum.QuantumS
	rec := readAccess(t, dir, sum.OriginNs, q, n)
	r0 := lightRT(t, dir, n/2)
	t.Logf("saturation %+v; %d workers served %.1f calls/s at load ≥ %.0f (o = %.0f ms); R0 %.1f ms",
		sat, rec.workers, rec.rate, 1.25*n, (n/rec.rate-s)*1000, r0)
	if sat.Verdict != "saturated" {
		t.Fatalf("verdict %q (%s), want saturated: 16 testers against 8 workers\n%s", sat.Verdict, sat.Reason, out)
	}
	if rec.workers != n || n/rec.rate-s > s {
		t.Errorf("the access log shows %d workers serving %.1f calls/s when saturated, want %d of S = %.0f ms and at most S more",
			rec.workers, rec.rate, n, s*1000)
	}
	if ceiling := n / s * (1 + s/q); sat.Throughput > ceiling || math.Abs(sat.Throughput-rec.rate) > 0.1*rec.rate {
		t.Errorf("saturation throughput %.1f calls/s, want the %.1f calls/s the log shows when saturated ±10%%, at most N/S (1 + S/Q) = %.0f",
			sat.Throughput, rec.rate, ceiling)
	}
	if want := rec.rate * r0 / 1000; math.Abs(sat.Load-want) > 0.15*want {
		t.Errorf("saturation load %.2f, want %.1f calls/s × R0 %.1f ms = %.2f ±15%%", sat.Load, rec.rate, r0, want)
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
// ('$msec $status $request_time $body_bytes_sent "$request"
// $upstream_http_x_cgi_worker').
var accessLine = regexp.MustCompile(`^(\d+)\.(\d{3}) 200 \S+ \d+ "GET /cgi-bin/work HTTP/1\.1" (\d+)$`)

// accessRecord is what nginx's access log says of the service.
type accessRecord struct {
	workers int     // fcgiwrap workers that served a call
	rate    float64 // calls/s that ended in the median quantum of load ≥ 1.25 N
}

// readAccess reads dir's nginx-access.log: the workers that served, and the
// rate of the calls that ended in the median quantum of those whose load
// was at least 1.25 n (every worker busy).
func readAccess(t *testing.T, dir string, origin int64, quantum float64, n int) accessRecord {
	t.Helper()
	busy := map[int64]float64{} // calls that ended in each busy quantum
	for _, r := range readCSV(t, filepath.Join(dir, "quanta.csv"), "t_s", "load").rows {
		if r.float(t, "load") >= 1.25*float64(n) {
			busy[int64(math.Round(r.float(t, "t_s")/quantum))] = 0
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "nginx-access.log"))
	if err != nil {
		t.Fatal(err)
	}
	workers := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		m := accessLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		workers[m[3]] = true
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		ms, _ := strconv.ParseInt(m[2], 10, 64)
		ns := sec*1e9 + ms*1e6 - origin
		if _, ok := busy[ns/int64(quantum*1e9)]; ok && ns >= 0 {
			busy[ns/int64(quantum*1e9)]++
		}
	}
	counts := slices.Collect(maps.Values(busy))
	if len(counts) < 3 {
		t.Fatalf("%d quanta at a load of at least %.0f: no stretch of saturation", len(counts), 1.25*float64(n))
	}
	slices.Sort(counts)
	return accessRecord{workers: len(workers), rate: counts[(len(counts)-1)/2] / quantum}
}

// lightRT is the call-weighted mean response time (ms) of dir's quanta
// whose load was above 0 and at most maxLoad.
func lightRT(t *testing.T, dir string, maxLoad float64) float64 {
	t.Helper()
	var sum, calls float64
	for _, r := range readCSV(t, filepath.Join(dir, "quanta.csv"), "load", "ok", "rt_mean_ms").rows {
		if l, ok := r.float(t, "load"), r.float(t, "ok"); l > 0 && l <= maxLoad && ok > 0 {
			sum += r.float(t, "rt_mean_ms") * ok
			calls += ok
		}
	}
	if calls == 0 {
		t.Fatalf("no quantum with calls at a load of at most %.1f", maxLoad)
	}
	return sum / calls
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

package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkOpenRate measures the open model: `diperf bench http --rate`
// (built from the checkout) and oha at the same rate (`oha -q R
// --latency-correction`: latency from the intended start, as diperf
// measures it), against a private nginx, alternating, each a child whose
// CPU is its process tree's rusage:
//
//	go test -run '^$' -bench BenchmarkOpenRate -benchtime 1x -timeout 30m ./test/peers/
//
// DIPERF_PEERS_RATE (calls/s, default 5000), DIPERF_PEERS_DURATION
// (default 60s), DIPERF_PEERS_ROUNDS (default 3) and
// DIPERF_PEERS_CONNECTIONS (default 50) change the load. It prints each
// run and the medians: share of a core, achieved rate against the target,
// diperf's scheduling lag, and the timer floor of the machine meanwhile
// (timerFloor: how late it woke a bare sleeper, the least lag possible).
func BenchmarkOpenRate(b *testing.B) {
	rate := float64(envInt(b, "DIPERF_PEERS_RATE", 5000))
	conns, rounds := envInt(b, "DIPERF_PEERS_CONNECTIONS", 50), envInt(b, "DIPERF_PEERS_ROUNDS", 3)
	dur := 60 * time.Second
	if d := os.Getenv("DIPERF_PEERS_DURATION"); d != "" {
		var err error
		if dur, err = time.ParseDuration(d); err != nil {
			b.Fatalf("DIPERF_PEERS_DURATION: %v", err)
		}
	}
	ctx := context.Background()
	ng, err := StartNginx(ctx, NginxOptions{})
	if err != nil {
		b.Skip(err)
	}
	defer ng.Stop()
	oha, err := lookTool("oha")
	if err != nil {
		b.Skip(err)
	}
	exe, err := buildDiperf(ctx)
	if err != nil {
		b.Fatal(err)
	}
	runs := map[string][]rateRun{}
	tools := []string{"diperf", "oha"}
	b.ResetTimer()
	for r := range rounds {
		for _, tool := range Rotation(tools, r) {
			var rr rateRun
			floor := startTimerFloor()
			if tool == "diperf" {
				rr, err = runDiperfRate(ctx, exe, ng.URL, rate, conns, dur)
			} else {
				rr, err = runOhaRate(ctx, oha, ng.URL, rate, conns, dur)
			}
			rr.FloorP99Ms = floor.p99Ms()
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("round %d %-6s %s\n", r+1, tool, rr)
			runs[tool] = append(runs[tool], rr)
			time.Sleep(time.Second)
		}
	}
	b.StopTimer()
	fmt.Printf("medians of %d rounds, target %.0f calls/s for %v, %d connections:\n", rounds, rate, dur, conns)
	for _, tool := range tools {
		m := medianRate(runs[tool])
		fmt.Printf("%-6s %s\n", tool, m)
		b.ReportMetric(100*m.CPUCore, tool+"-%core")
		b.ReportMetric(m.Achieved/rate, tool+"-achieved/target")
	}
}

// rateRun is one open-model run's figures.
type rateRun struct {
	Achieved, CPUCore, P50Ms, P99Ms, LagP99Ms float64 // LagP99Ms: -1 when the tool does not report it
	FloorP99Ms                                float64 // how late the machine woke a sleeper meanwhile (timerFloor), p99
	Late, Dropped, Errors                     int64
}

func (r rateRun) String() string {
	lag := "n/a"
	if r.LagP99Ms >= 0 {
		lag = fmt.Sprintf("%.3f ms", r.LagP99Ms)
	}
	return fmt.Sprintf("achieved %8.1f/s  core %5.1f%%  p50 %6.3f ms  p99 %7.3f ms  lag p99 %s  (timer floor p99 %.3f ms)  late %d  dropped %d  errors %d",
		r.Achieved, 100*r.CPUCore, r.P50Ms, r.P99Ms, lag, r.FloorP99Ms, r.Late, r.Dropped, r.Errors)
}

func runDiperfRate(ctx context.Context, exe, url string, rate float64, conns int, dur time.Duration) (rateRun, error) {
	c, err := runChild(ctx, os.TempDir(), exe, "bench", "http", "--url", url, "--connections", strconv.Itoa(conns),
		"--duration", dur.String(), "--rate", strconv.FormatFloat(rate, 'f', -1, 64))
	if err != nil {
		return rateRun{}, err
	}
	line, err := lastJSONLine(c.Stdout)
	if err != nil {
		return rateRun{}, fmt.Errorf("diperf: %w", err)
	}
	var j struct {
		AchievedRate  *float64 `json:"achieved_rate"`
		P50Ms         float64  `json:"p50_ms"`
		P99Ms         float64  `json:"p99_ms"`
		LagP99Ms      float64  `json:"lag_p99_ms"`
		Late, Dropped int64
		Errors        int64
	}
	if err := json.Unmarshal(line, &j); err != nil || j.AchievedRate == nil {
		return rateRun{}, fmt.Errorf("diperf: the JSON line %q lacks achieved_rate (%v)", line, err)
	}
	return rateRun{Achieved: *j.AchievedRate, CPUCore: c.CPUS / c.WallS, P50Ms: j.P50Ms, P99Ms: j.P99Ms,
		LagP99Ms: j.LagP99Ms, Late: j.Late, Dropped: j.Dropped, Errors: j.Errors}, nil
}

func runOhaRate(ctx context.Context, exe, url string, rate float64, conns int, dur time.Duration) (rateRun, error) {
	c, err := runChild(ctx, "", exe, "-q", strconv.FormatFloat(rate, 'f', -1, 64), "--latency-correction",
		"-z", seconds(dur), "-c", strconv.Itoa(conns), "--no-tui", "--output-format", "json", url)
	if err != nil {
		return rateRun{}, err
	}
	r, err := ParseOha(c.Stdout)
	if err != nil {
		return rateRun{}, fmt.Errorf("oha: %w", err)
	}
	return rateRun{Achieved: r.RequestsPerS, CPUCore: c.CPUS / c.WallS, P50Ms: r.P50Ms, P99Ms: r.P99Ms,
		LagP99Ms: -1, Late: -1, Dropped: -1, Errors: r.Errors}, nil
}

// medianRate is the median of each figure over the runs.
func medianRate(rs []rateRun) rateRun {
	med := func(f func(rateRun) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return rateRun{Achieved: med(func(r rateRun) float64 { return r.Achieved }), CPUCore: med(func(r rateRun) float64 { return r.CPUCore }),
		P50Ms: med(func(r rateRun) float64 { return r.P50Ms }), P99Ms: med(func(r rateRun) float64 { return r.P99Ms }),
		LagP99Ms: med(func(r rateRun) float64 { return r.LagP99Ms }), FloorP99Ms: med(func(r rateRun) float64 { return r.FloorP99Ms }),
		Late: int64(med(func(r rateRun) float64 { return float64(r.Late) })), Dropped: int64(med(func(r rateRun) float64 { return float64(r.Dropped) })),
		Errors: int64(med(func(r rateRun) float64 { return float64(r.Errors) }))}
}

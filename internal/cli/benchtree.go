package cli

import (
	"context"
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/bench/tree"
	"github.com/diperf/diperf/internal/errs"
)

// treeResult is the last line of `diperf bench tree`: the measured
// constants and the plan for the largest tester count.
type treeResult struct {
	tree.Measured
	Transport      string  `json:"transport"`
	Testers        float64 `json:"testers"`
	Rate           float64 `json:"rate"`
	FanOut         int     `json:"fanout"`
	Levels         int     `json:"levels"`
	Leaves         int     `json:"leaves"`
	TestersPerLeaf float64 `json:"testers_per_leaf"`
	RootBytesPerS  float64 `json:"root_bytes_per_s"`
	RootCores      float64 `json:"root_cores"`
	LiveDelayS     float64 `json:"live_delay_s"`
}

// benchTreeCmd measures the per-second summary's size and merge cost, then
// prints the controller tree's load for N = 1e3 … --testers (design 013).
func benchTreeCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench tree", "[flags]")
	mo := tree.DefaultMeasure()
	var transport string
	var n, r float64
	var k int
	fs.StringVar(&transport, "transport", "tcp", "tester→leaf transport whose per-controller figures bound a leaf: tcp, udp or ssh")
	fs.Float64Var(&n, "testers", 1e6, "largest number of testers (the table runs 1e3, 1e4, … up to it)")
	fs.Float64Var(&r, "rate", 1, "samples per second per tester")
	fs.IntVar(&k, "fanout", 32, "children per aggregator")
	fs.IntVar(&mo.Children, "children", mo.Children, "summaries merged per quantum in the measurement")
	fs.IntVar(&mo.SamplesPerChild, "samples-per-child", mo.SamplesPerChild, "calls in each measured child summary's second")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if n < 1 || r <= 0 || k < 2 || mo.Children < 1 || mo.SamplesPerChild < 1 {
		return errs.Usagef("--testers ≥ 1, --rate > 0, --fanout ≥ 2, --children and --samples-per-child ≥ 1")
	}
	m, err := tree.Measure(mo)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "one leaf's per-second summary (%d calls): %d bytes, %d buckets; merging one child: %.1f µs (hdr Merge of a dense one: %.1f µs); p50/p90/p99 of a merged second: %.1f µs\n",
		m.SamplesPerChild, m.SummaryBytes, m.NonZeroBuckets, m.MergeNsPerChild/1e3, m.HDRMergeNsPerChild/1e3, m.PercentilesNs/1e3)
	var plans []tree.Plan
	for size := 1e3; ; size *= 10 {
		size = math.Min(size, n)
		p, err := tree.Defaults(transport, size, r, m)
		if err != nil {
			return errs.Usagef("%v", err)
		}
		p.FanOut = k
		pl, err := tree.Build(p)
		if err != nil {
			return errs.Usagef("%v", err)
		}
		plans = append(plans, pl)
		if size >= n {
			break
		}
	}
	if err := tree.WriteTable(e.stdout, plans); err != nil {
		return err
	}
	last := plans[len(plans)-1]
	root := last.Levels[len(last.Levels)-1]
	return printJSON(e, treeResult{Measured: m, Transport: transport, Testers: n, Rate: r, FanOut: k,
		Levels: len(last.Levels), Leaves: last.Levels[0].Nodes, TestersPerLeaf: last.PerLeaf,
		RootBytesPerS: last.RootBytesS, RootCores: root.CPUCores, LiveDelayS: last.LiveDelay.Seconds()})
}

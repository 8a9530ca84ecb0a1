package tree

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Leaf capacities per sample transport: what one controller reached on a
// 2-core machine, measured by `diperf bench controller` (docs/benchmarks.md,
// "One controller at scale"): TCP 1,000,000 samples/s from 1,000 testers
// and 100,000 testers at one sample a second, 0 lost; UDP 100,000 testers
// at 80,000 samples/s, 0.003% lost; SSH 10,000 clients at 100,000/s.
var leafCaps = map[string]struct{ samplesPerS, testers float64 }{
	"tcp": {1_000_000, 100_000}, // ≥ 1M samples/s; 100,000 connections
	"udp": {80_000, 100_000},    // loss ≤ 1% at ≤ 80,000 samples/s; 100,000 testers
	"ssh": {100_000, 10_000},    // 10,000 clients at ≥ 100,000 samples/s
}

// Transports lists the transports Defaults knows.
func Transports() []string { return []string{"tcp", "udp", "ssh"} }

// Defaults returns the model's parameters for N testers at r samples/s
// each over transport, with the summary constants m and h as measured by
// Measure (pass 0 to use the values measured when the design note was
// written).
func Defaults(transport string, n, r float64, m Measured) (Params, error) {
	caps, ok := leafCaps[transport]
	if !ok {
		return Params{}, fmt.Errorf("tree: unknown transport %q (tcp, udp or ssh)", transport)
	}
	p := Params{Testers: n, Rate: r, FanOut: 32,
		LeafSamplesPerS: caps.samplesPerS, LeafTesters: caps.testers, BytesPerTester: 32 << 10,
		SampleCostNs:    440, // 26.5 CPU-s for 60,000,000 samples (bench controller, 1,000 testers at 1M/s)
		WireSampleBytes: 24, DiskSampleBytes: 19.3,
		SummaryBytes: 2946, MergeNs: 20_600, OpenQuanta: 3,
		Quantum: time.Second, BatchDelay: 100 * time.Millisecond, HopDelay: 50 * time.Millisecond, Slack: 250 * time.Millisecond}
	if m.SummaryBytes > 0 {
		p.SummaryBytes = float64(m.SummaryBytes)
	}
	if m.MergeNsPerChild > 0 {
		p.MergeNs = m.MergeNsPerChild
	}
	return p, nil
}

// WriteTable writes one block per plan: a line for the plan, then one row
// per level.
func WriteTable(w io.Writer, plans []Plan) error {
	for _, pl := range plans {
		p := pl.Params
		fmt.Fprintf(w, "N=%s r=%g/s k=%d: %d levels, %s testers per leaf, live view %s behind\n",
			si(p.Testers), p.Rate, p.FanOut, len(pl.Levels), si(pl.PerLeaf), pl.LiveDelay)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "level\trole\tnodes\tchildren\tsamples/s\tin B/s\tup B/s\tdisk B/s\tcores\tmemory B\t")
		for _, l := range pl.Levels {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.3g\t%s\t\n", l.Depth, l.Role, l.Nodes, si(l.Children),
				si(l.SamplesPerS), si(l.InBytesPerS), si(l.OutBytesPS), si(l.DiskBytesPS), l.CPUCores, si(l.MemoryBytes))
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("tree table: %w", err)
		}
	}
	return nil
}

// si writes v with a k/M/G suffix, three significant digits.
func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

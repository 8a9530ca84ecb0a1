package tree

import (
	"fmt"
	"math"
	"time"
)

// Params are the model's inputs: the load (N, r), the tree's shape (k) and
// the measured constants of one controller and of one summary. Every
// capacity is a figure of issue 11 or a measurement; none is guessed in
// the formulas.
type Params struct {
	Testers float64 // N: testers in the run
	Rate    float64 // r: samples per second per tester
	FanOut  int     // k: children per aggregator

	LeafSamplesPerS float64 // C: samples/s one leaf controller ingests and stores (issue 11: 1e6 over TCP)
	LeafTesters     float64 // T: testers one leaf holds connected (issue 11: 1e5 over TCP, 1e4 over SSH)
	BytesPerTester  float64 // B: leaf memory per connected tester (issue 11: aim ≤ 32 KiB)
	SampleCostNs    float64 // c: leaf CPU per sample, ns (measured by `diperf bench controller`)
	WireSampleBytes float64 // w: bytes per sample on the tester→leaf wire
	DiskSampleBytes float64 // d: bytes per sample in samples.parquet (issue 4: ~19 B, Snappy)

	SummaryBytes float64 // h: one encoded per-second summary (measured here)
	MergeNs      float64 // m: decode + merge of one child's summary (measured here)
	OpenQuanta   int     // quanta an aggregator keeps open for late children

	Quantum    time.Duration // the live view's quantum
	BatchDelay time.Duration // a tester's batching delay before its samples leave
	HopDelay   time.Duration // one-way network delay between two levels
	Slack      time.Duration // how long a node waits for late children after a quantum closes
}

// Level is one level of the tree, leaves first; every figure is per node.
type Level struct {
	Depth       int     // 0 for the leaves
	Role        string  // leaf, aggregator or root
	Nodes       int     // nodes at this level
	Children    float64 // testers (leaf) or child nodes per node, at most
	SamplesPerS float64 // samples per second the node's subtree produces
	InBytesPerS float64 // bytes per second into the node
	OutBytesPS  float64 // bytes per second up to its parent (0 at the root)
	DiskBytesPS float64 // raw samples written per second (leaves only)
	CPUCores    float64 // cores busy with ingest (leaf) or merging (above)
	MemoryBytes float64 // memory for connections (leaf) or open summaries (above)
	Bound       string  // the capacity that bounds the node
}

// Plan is the model's answer for one set of parameters.
type Plan struct {
	Params     Params
	PerLeaf    float64       // K: testers per leaf
	Levels     []Level       // leaves first, root last
	LiveDelay  time.Duration // from a call's end to the root's live view
	RootBytesS float64       // bytes per second into the root
}

// Build computes the tree for p: K = min(T, ⌊C/r⌋) testers per leaf,
// ⌈N/K⌉ leaves, then levels of ⌈n/k⌉ aggregators until one root.
func Build(p Params) (Plan, error) {
	if err := p.check(); err != nil {
		return Plan{}, err
	}
	perLeaf, bound := p.LeafTesters, "testers per leaf (connections)"
	if bySamples := math.Floor(p.LeafSamplesPerS / p.Rate); bySamples < perLeaf {
		perLeaf, bound = bySamples, "samples/s per leaf"
	}
	if perLeaf < 1 {
		return Plan{}, fmt.Errorf("tree: one tester's %g samples/s exceed a leaf's %g", p.Rate, p.LeafSamplesPerS)
	}
	if p.Testers <= perLeaf {
		perLeaf = p.Testers
	}
	leaves := int(math.Ceil(p.Testers / perLeaf))
	plan := Plan{Params: p, PerLeaf: perLeaf}
	plan.Levels = append(plan.Levels, p.leaf(leaves, perLeaf, bound))
	for n := leaves; n > 1; {
		parents := (n + p.FanOut - 1) / p.FanOut
		plan.Levels = append(plan.Levels, p.aggregator(len(plan.Levels), parents, n))
		n = parents
	}
	top := &plan.Levels[len(plan.Levels)-1]
	top.Role, top.OutBytesPS = "root", 0
	if len(plan.Levels) == 1 {
		top.Role = "leaf+root"
	}
	plan.RootBytesS = top.InBytesPerS
	plan.LiveDelay = p.liveDelay(len(plan.Levels))
	return plan, nil
}

// leaf is the leaf level: nodes leaves of at most k testers each.
func (p Params) leaf(nodes int, k float64, bound string) Level {
	samples := k * p.Rate
	return Level{Depth: 0, Role: "leaf", Nodes: nodes, Children: k, SamplesPerS: samples,
		InBytesPerS: samples * p.WireSampleBytes, OutBytesPS: p.SummaryBytes / p.Quantum.Seconds(),
		DiskBytesPS: samples * p.DiskSampleBytes, CPUCores: samples * p.SampleCostNs / 1e9,
		MemoryBytes: k * p.BytesPerTester, Bound: bound}
}

// aggregator is level depth: nodes aggregators over children nodes below.
func (p Params) aggregator(depth, nodes, children int) Level {
	k := math.Min(float64(p.FanOut), float64(children))
	perS := k / p.Quantum.Seconds() // summaries in per second
	return Level{Depth: depth, Role: "aggregator", Nodes: nodes, Children: k,
		SamplesPerS: p.Testers * p.Rate / float64(nodes), InBytesPerS: perS * p.SummaryBytes,
		OutBytesPS: p.SummaryBytes / p.Quantum.Seconds(), CPUCores: perS * p.MergeNs / 1e9,
		MemoryBytes: float64(p.OpenQuanta) * (float64(countsLen)*8 + k*p.SummaryBytes),
		Bound:       "merge CPU k·m and bytes k·h per quantum"}
}

// liveDelay is the time from a call's end to its second in the root's
// live view through a tree of depth levels: the tester's batching, the
// quantum closing, then at each level a hop and the wait for late
// children.
func (p Params) liveDelay(depth int) time.Duration {
	return p.BatchDelay + p.Quantum + time.Duration(depth)*(p.HopDelay+p.Slack)
}

// check refuses parameters the formulas cannot use.
func (p Params) check() error {
	switch {
	case p.Testers < 1 || p.Rate <= 0:
		return fmt.Errorf("tree: testers must be ≥ 1 and rate > 0 (got %g, %g)", p.Testers, p.Rate)
	case p.FanOut < 2:
		return fmt.Errorf("tree: fan-out must be ≥ 2 (got %d)", p.FanOut)
	case p.LeafSamplesPerS <= 0 || p.LeafTesters < 1:
		return fmt.Errorf("tree: a leaf's capacities must be positive (got %g samples/s, %g testers)", p.LeafSamplesPerS, p.LeafTesters)
	case p.Quantum <= 0:
		return fmt.Errorf("tree: the quantum must be positive")
	}
	return nil
}

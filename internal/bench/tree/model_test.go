package tree

import (
	"strings"
	"testing"
	"time"
)

// params returns the TCP defaults for n testers at r samples/s with round
// summary constants, so that the expected figures can be worked by hand.
func params(t *testing.T, transport string, n, r float64) Params {
	t.Helper()
	p, err := Defaults(transport, n, r, Measured{SummaryBytes: 3000, MergeNsPerChild: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOneLeafIsTheRoot(t *testing.T) {
	pl, err := Build(params(t, "tcp", 1000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Levels) != 1 || pl.PerLeaf != 1000 || pl.Levels[0].Role != "leaf+root" {
		t.Fatalf("1,000 testers: %d levels, %g per leaf, role %q; want 1, 1000, leaf+root", len(pl.Levels), pl.PerLeaf, pl.Levels[0].Role)
	}
	if l := pl.Levels[0]; l.SamplesPerS != 1000 || l.InBytesPerS != 24_000 || l.OutBytesPS != 0 || l.MemoryBytes != 1000*32768 {
		t.Fatalf("leaf: %+v", l)
	}
	// 100 ms batching + 1 s quantum + 1 level × (50 ms hop + 250 ms slack)
	if pl.LiveDelay != 1400*time.Millisecond {
		t.Fatalf("live delay %v, want 1.4s", pl.LiveDelay)
	}
}

func TestMillionTestersOverTCPAreBoundByConnections(t *testing.T) {
	pl, err := Build(params(t, "tcp", 1e6, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Levels) != 2 || pl.Levels[0].Nodes != 10 || pl.Levels[0].Bound != "testers per leaf (connections)" {
		t.Fatalf("levels %+v", pl.Levels)
	}
	root := pl.Levels[1]
	if root.Role != "root" || root.Children != 10 || root.InBytesPerS != 30_000 || root.CPUCores != 10*20_000/1e9 {
		t.Fatalf("root %+v", root)
	}
	if root.SamplesPerS != 1e6 {
		t.Fatalf("root represents %g samples/s, want 1e6", root.SamplesPerS)
	}
}

func TestFastTestersAreBoundBySamplesAndDeepen(t *testing.T) {
	pl, err := Build(params(t, "tcp", 1e6, 100))
	if err != nil {
		t.Fatal(err)
	}
	// K = 1e6/100 = 10,000 testers per leaf; 100 leaves; ⌈100/32⌉ = 4; then 1.
	want := []int{100, 4, 1}
	if len(pl.Levels) != len(want) || pl.PerLeaf != 10_000 || pl.Levels[0].Bound != "samples/s per leaf" {
		t.Fatalf("per leaf %g, levels %+v", pl.PerLeaf, pl.Levels)
	}
	for i, l := range pl.Levels {
		if l.Nodes != want[i] {
			t.Fatalf("level %d has %d nodes, want %d", i, l.Nodes, want[i])
		}
	}
	if c := pl.Levels[1].Children; c != 32 {
		t.Fatalf("aggregator children %g, want 32", c)
	}
	if c := pl.Levels[2].Children; c != 4 {
		t.Fatalf("root children %g, want 4", c)
	}
	if pl.LiveDelay != 100*time.Millisecond+time.Second+3*300*time.Millisecond {
		t.Fatalf("live delay %v", pl.LiveDelay)
	}
}

func TestUDPLeafIsBoundByItsLossFigure(t *testing.T) {
	pl, err := Build(params(t, "udp", 1e6, 1))
	if err != nil {
		t.Fatal(err)
	}
	if pl.PerLeaf != 80_000 || pl.Levels[0].Nodes != 13 || len(pl.Levels) != 2 {
		t.Fatalf("per leaf %g, levels %+v", pl.PerLeaf, pl.Levels)
	}
}

func TestBadParameters(t *testing.T) {
	p := params(t, "ssh", 10, 200_000)
	if _, err := Build(p); err == nil || !strings.Contains(err.Error(), "exceed a leaf") {
		t.Fatalf("a tester faster than a leaf: %v", err)
	}
	p = params(t, "tcp", 10, 1)
	p.FanOut = 1
	if _, err := Build(p); err == nil {
		t.Fatal("fan-out 1 accepted")
	}
	if _, err := Defaults("quic", 1, 1, Measured{}); err == nil {
		t.Fatal("unknown transport accepted")
	}
}

func TestTable(t *testing.T) {
	pl, err := Build(params(t, "tcp", 1e6, 100))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, []Plan{pl}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"N=1M r=100/s k=32: 3 levels, 10k testers per leaf", "leaf", "aggregator", "root"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, b.String())
		}
	}
}

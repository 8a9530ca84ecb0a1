package netmap

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// fullMesh registers n sensors of one site and writes a bandwidth and a
// latency result for every ordered pair, each pair's bandwidth telling
// the pair apart; it returns the names.
func fullMesh(t *testing.T, c *directory.Client, n int) []string {
	t.Helper()
	ctx := context.Background()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("s%02d", i)
		if _, err := c.Register(ctx, directory.Registration{Name: names[i], Address: "127.0.0.1:1", Version: "1",
			Groups: []string{"local", SitePrefix + "A"}, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i, src := range names { // one writer per source, as sensors do
		wg.Go(func() {
			for j, dst := range names {
				if i == j {
					continue
				}
				for _, r := range []directory.Result{
					{Src: src, Dst: dst, Kind: string(sensor.Bandwidth), BandwidthBps: pairBps(i, j), TestTimeS: 1, MeasuredAt: at},
					{Src: src, Dst: dst, Kind: string(sensor.Latency), LatencyMs: 1, LatencyP50Ms: 1, LatencyP90Ms: 1, LatencyP99Ms: 1, TestTimeS: 1, MeasuredAt: at},
				} {
					if _, err := c.AddResult(ctx, r); err != nil {
						errc <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	return names
}

func pairBps(i, j int) float64 { return float64(1e6 + 1000*i + j) }

// nameIdx is the number in a name fullMesh made.
func nameIdx(n string) int {
	var i int
	fmt.Sscanf(n, "s%d", &i) //nolint:errcheck // fullMesh's names
	return i
}

// With 40 sensors all measured both ways (1,560 pairs, 3,120 latest
// results, three times the directory's page), the map has every pair,
// each measured (none estimated) with its own figure, and so has a run's
// network.csv (Pairs) between every tester host's sensor and the target,
// both ways (issue 21 row 10: both stopped at 1,000 results; the map had
// 716 pairs missing and 344 estimated).
func TestFullMeshOf40(t *testing.T) {
	c := newDirectory(t)
	names := fullMesh(t, c, 40)
	rows, err := Fetch(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	checkFull(t, rows, names, names)
	target := names[0]
	rows, missing, err := Pairs(context.Background(), c, target, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("missing %v", missing)
	}
	checkFull(t, rows, names, names[:1])
	checkFull(t, rows, names[:1], names)
	if len(rows) != 2*39 {
		t.Errorf("network.csv: %d rows, want %d", len(rows), 2*39)
	}
}

// checkFull checks that rows has every ordered pair of srcs × dsts
// (different names), measured, with the pair's bandwidth.
func checkFull(t *testing.T, rows []sensor.Row, srcs, dsts []string) {
	t.Helper()
	got := map[[2]string]sensor.Row{}
	for _, r := range rows {
		got[[2]string{r.Src, r.Dst}] = r
	}
	missing, estimated := 0, 0
	for _, s := range srcs {
		for _, d := range dsts {
			r, ok := got[[2]string{s, d}]
			switch {
			case s == d:
			case !ok:
				missing++
			case r.Estimated:
				estimated++
			case r.BandwidthBps != pairBps(nameIdx(s), nameIdx(d)):
				t.Errorf("%s → %s: %g bit/s, want %g", s, d, r.BandwidthBps, pairBps(nameIdx(s), nameIdx(d)))
			}
		}
	}
	if missing > 0 || estimated > 0 {
		t.Errorf("%d rows: %d pairs missing, %d estimated; want every pair measured", len(rows), missing, estimated)
	}
}

package netmap

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/sensor"
)

// fullMesh serves a directory in which n sensors of one site are
// registered, with a bandwidth and a latency result for every ordered
// pair (each pair's bandwidth telling the pair apart), written in one
// transaction; it returns its client and the names.
func fullMesh(t *testing.T, n int) (*directory.Client, []string) {
	t.Helper()
	st, err := directory.OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(directory.NewServer(st, directory.Options{Token: directorytest.Token}).Handler())
	t.Cleanup(srv.Close)
	c, err := directory.NewClient(srv.URL, directorytest.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	names := make([]string, n)
	var rs []directory.Result
	for i := range names {
		names[i] = fmt.Sprintf("s%02d", i)
		if _, err := c.Register(ctx, directory.Registration{Name: names[i], Address: "127.0.0.1:1", Version: "1",
			Groups: []string{"local", SitePrefix + "A"}, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
		for j := range n {
			if i != j {
				dst := fmt.Sprintf("s%02d", j)
				rs = append(rs,
					directory.Result{Src: names[i], Dst: dst, Kind: string(sensor.Bandwidth), BandwidthBps: pairBps(i, j), TestTimeS: 1, MeasuredAt: at},
					directory.Result{Src: names[i], Dst: dst, Kind: string(sensor.Latency), LatencyMs: 1, LatencyP50Ms: 1, LatencyP90Ms: 1, LatencyP99Ms: 1, TestTimeS: 1, MeasuredAt: at})
			}
		}
	}
	if err := st.AddResults(ctx, rs); err != nil {
		t.Fatal(err)
	}
	return c, names
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
// network.csv (PairLinks) between every tester host's sensor and the target,
// both ways (issue 21 row 10: both stopped at 1,000 results; the map had
// 716 pairs missing and 344 estimated).
func TestFullMeshOf40(t *testing.T) {
	c, names := fullMesh(t, 40)
	rows, err := Fetch(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	checkFull(t, rows, names, names)
	target := names[0]
	l, err := PairLinks(context.Background(), c, target, names)
	rows, missing := l.Rows, l.Missing
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

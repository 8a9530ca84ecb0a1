package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/forecast"
)

// traceLab is a directory holding a1 → a2's bandwidth results of two
// test times (1 s and 10 s, interleaved) and one latency result, newest
// written first.
func traceLab(t *testing.T) meshLab {
	t.Helper()
	lab := newMeshLab(t)
	ctx := context.Background()
	for _, name := range []string{"a1", "a2"} {
		if _, err := lab.c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: []string{"local"}, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	for i := 5; i >= 0; i-- {
		tt := 1.0
		if i%2 == 1 {
			tt = 10
		}
		r := directory.Result{Src: "a1", Dst: "a2", Kind: directory.KindBandwidth, BandwidthBps: 90e6 + float64(i)*1e6,
			TestTimeS: tt, MeasuredAt: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := lab.c.AddResult(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lab.c.AddResult(ctx, directory.Result{Src: "a1", Dst: "a2", Kind: directory.KindLatency, LatencyMs: 0.25, LatencyP50Ms: 0.25, LatencyP90Ms: 0.3, LatencyP99Ms: 0.4,
		TestTimeS: 1, MeasuredAt: t0}); err != nil {
		t.Fatal(err)
	}
	return lab
}

// forecast --trace writes the pair's series as a trace that sensor
// evaluate reads: one series per test time, each in time order, the
// values as the directory holds them.
func TestForecastTraceIsReadByEvaluate(t *testing.T) {
	lab := traceLab(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"forecast", "a1", "a2", "--trace", "--directory", lab.url, "--token-file", lab.tokenFile}, &out, &errb); code != 0 {
		t.Fatalf("forecast --trace exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "e+") || strings.Contains(out.String(), "e-") {
		t.Errorf("the trace has a number in scientific notation:\n%s", out.String())
	}
	path := filepath.Join(t.TempDir(), "a1-a2.csv")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var evOut bytes.Buffer
	errb.Reset()
	if code := Main([]string{"sensor", "evaluate", path, "--json"}, &evOut, &errb); code != 0 {
		t.Fatalf("sensor evaluate of the trace exit %d: %s\ntrace:\n%s", code, errb.String(), out.String())
	}
	var ev forecast.Report
	if err := json.Unmarshal(evOut.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range ev.Series {
		got[s.TestTime] = s.Points
	}
	if !ev.ByTestTime || len(got) != 2 || got["1"] != 3 || got["10"] != 3 {
		t.Errorf("evaluate read series %v (by test time %v), want 3 measurements each of test times 1 and 10\n%s", got, ev.ByTestTime, out.String())
	}
	if !strings.Contains(out.String(), ",90000000,1\n") || !strings.Contains(out.String(), ",95000000,10\n") {
		t.Errorf("the trace does not hold the values in bit/s:\n%s", out.String())
	}
}

// --kind latency exports the latency results in ms; a pair with none is
// told, exit 2.
func TestForecastTraceKinds(t *testing.T) {
	lab := traceLab(t)
	var out, errb bytes.Buffer
	args := []string{"--trace", "--directory", lab.url, "--token-file", lab.tokenFile}
	if code := Main(append([]string{"forecast", "a1", "a2", "--kind", "latency"}, args...), &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), "time,value,test_time\n") || !strings.Contains(out.String(), ",0.25,1\n") {
		t.Errorf("--kind latency: exit %d, stdout:\n%s\nstderr: %s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := Main(append([]string{"forecast", "a2", "a1"}, args...), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "no bandwidth results for a2 → a1") {
		t.Errorf("a pair without results: exit %d, stderr: %s", code, errb.String())
	}
	errb.Reset()
	if code := Main(append([]string{"forecast", "a1", "a2", "--kind", "jitter"}, args...), &out, &errb); code != 2 {
		t.Errorf("--kind jitter: exit %d, stderr: %s", code, errb.String())
	}
}

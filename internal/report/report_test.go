package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/rundir"
)

// smallResult is a short fixed run: 12 quanta, 4 testers, one of which
// failed, saturated at a load of 6. Each tester synced its clock 4 times,
// with offsets of about ±1 h that drift; tester 1 had a synchronized start.
func smallResult() *analyze.Result {
	r := &analyze.Result{
		Name:   "small run",
		Origin: 1_700_000_000_000_000_000,
		Summary: analyze.Summary{
			Samples:        analyze.SampleCounts{Total: 1234, OK: 1200, Failed: 30, Lost: 4},
			Testers:        analyze.TesterCounts{Planned: 5, Started: 4, Failed: 1},
			QuantumS:       1,
			Throughput:     analyze.Stats{Unit: "calls/s", Min: 11.5, Median: 98.25, Mean: 87.75, Max: 123.5, StdDev: 31.25},
			ResponseTimeMs: analyze.RTSummary{Min: 2.5, Median: 40.5, Mean: 47.25, Max: 512, StdDev: 66.5, P90: 99.5, P99: 401},
			Load:           analyze.LoadSummary{Max: 9.5},
			Saturation:     analyze.Saturation{Saturated: true, Load: 6.25, Throughput: 118.5},
			Peak:           analyze.Peak{StartS: 3, EndS: 9, Testers: 4},
			Fairness:       analyze.Fairness{Jain: 0.9876},
			Clock:          analyze.ClockSummary{MaxAbsOffsetMs: 1.75, MaxErrorBoundMs: 0.625},
			Errors:         map[string]int{"timeout": 12, "failed": 18},
			DurationS:      12,
		},
	}
	for i := range 12 {
		load := math.Min(float64(i), 9.5)
		q := analyze.Quantum{T: float64(i), Load: load, Throughput: math.Min(20*load, 118.5), OK: 100}
		if i > 0 {
			q.RT = analyze.RTStats{N: 100, Mean: 10 + 5*load}
		}
		r.Quanta = append(r.Quanta, q)
	}
	for i := range 4 {
		r.Clients = append(r.Clients, analyze.Client{
			Index: i, ID: "host" + itoa(i) + ":100" + itoa(i), Host: "host" + itoa(i),
			StartS: float64(i), EndS: 12, Failed: i == 2, LatencyMs: 0.5 + float64(i),
			Whole: analyze.Share{OK: 300 - 20*i, Failed: 3 * i, Utilization: 0.25, Fairness: 1 - float64(i)/20,
				MeanRTms: 40 + float64(i), MedianRTms: 38 + float64(i), AvgLoad: 5 + float64(i)/2},
			Peak: analyze.Share{OK: 150 - 5*i, Utilization: 0.25 + float64(i)/100, Fairness: 1 + float64(i)/25,
				MeanRTms: 45, AvgLoad: 8.5},
			Clock: analyze.TesterClock{MaxAbsOffsetMs: 3_600_000 + float64(i), MaxBoundMs: 0.25 + float64(i)/8,
				StartSkewMs: -0.375, Synchronized: i == 1, Syncs: syncs(i, 4, 3)},
		})
	}
	r.Percentiles = percentiles(2.5, 512)
	return r
}

// percentiles returns a distribution at every rank of
// analyze.PercentileRanks from lo to hi ms, steepest in the tail.
func percentiles(lo, hi float64) []analyze.PercentilePoint {
	out := make([]analyze.PercentilePoint, len(analyze.PercentileRanks))
	for i, p := range analyze.PercentileRanks {
		out[i] = analyze.PercentilePoint{P: p, Ms: lo + (hi-lo)*math.Pow(p/100, 8)}
	}
	return out
}

// smallModel is a model fitted to smallResult: a USL and, predicting, the
// asymptotic bounds of a service of 118.5 calls/s whose calls take 50 ms.
func smallModel() *model.Model {
	return &model.Model{
		Chosen: model.ModelBounds,
		USL: model.USL{Lambda: 20, Sigma: 0.05, Kappa: 0.002, PeakLoad: 21.8, PeakThroughput: 150,
			R2: 0.97, Points: 11, MinLoad: 1, MaxLoad: 9.5},
		Bounds: &model.Bounds{BoundsParams: model.BoundsParams{R0Ms: 50, Plateau: 118.5}, KneeLoad: 5.925, R2: 0.99},
	}
}

// syncs returns n clock syncs of tester i, every step seconds from its
// start, with an offset near ±1 h that drifts by i/4 ms per sync.
func syncs(i, n int, step float64) []analyze.SyncPoint {
	base := 3_600_000.0
	if i%2 == 1 {
		base = -base
	}
	out := make([]analyze.SyncPoint, n)
	for k := range out {
		rtt := 0.5 + float64((i+k)%3)/4
		out[k] = analyze.SyncPoint{T: float64(i) + float64(k)*step, OffsetMs: base + float64(i*k)/4,
			RTTMs: rtt, BoundMs: rtt / 2}
	}
	return out
}

// bigResult is a long run with nq quanta and nc testers of ns clock syncs each.
func bigResult(nq, nc, ns int) *analyze.Result {
	r := smallResult()
	r.Quanta = make([]analyze.Quantum, nq)
	for i := range r.Quanta {
		x := float64(i)
		r.Quanta[i] = analyze.Quantum{T: x * 0.1, Load: 50 + 40*math.Sin(x/900), Throughput: 200 + 100*math.Cos(x/700),
			RT: analyze.RTStats{N: i % 7, Mean: 30 + 20*math.Sin(x/50)}}
	}
	r.Clients = make([]analyze.Client, nc)
	for i := range r.Clients {
		r.Clients[i] = analyze.Client{Index: nc - 1 - i, ID: "tester-" + itoa(i), Host: "h" + itoa(i%50),
			Failed: i%97 == 0, Whole: analyze.Share{OK: 1000 + i%300, Failed: i % 5, Utilization: 1 / float64(nc)},
			Clock: analyze.TesterClock{Syncs: syncs(i, ns, 10)}}
	}
	return r
}

// render renders r with smallModel or fails the test.
func render(t *testing.T, r *analyze.Result) string {
	t.Helper()
	return renderModel(t, r, smallModel())
}

// renderModel renders r with model m or fails the test.
func renderModel(t *testing.T, r *analyze.Result, m *model.Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, r, m); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.String()
}

var svgRE = regexp.MustCompile(`(?s)<svg\b.*?</svg>`)

func TestRenderPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    *analyze.Result
	}{
		// A small, fully populated run.
		{"small", smallResult()},
		// Nothing at all: no quanta, no clients, zero summary.
		{"empty", &analyze.Result{}},
		// A single quantum and a single tester.
		{"single", func() *analyze.Result {
			r := smallResult()
			r.Quanta, r.Clients = r.Quanta[5:6], r.Clients[:1]
			return r
		}()},
		// All quanta equal, all testers equal.
		{"flat", func() *analyze.Result {
			r := bigResult(50, 3, 1)
			for i := range r.Quanta {
				r.Quanta[i] = analyze.Quantum{T: 1, Load: 2, Throughput: 2}
			}
			return r
		}()},
		// NaN and Inf in every number the charts draw.
		{"nan", func() *analyze.Result {
			r := smallResult()
			r.Quanta[3] = analyze.Quantum{T: math.NaN(), Load: math.NaN(), Throughput: math.Inf(1), RT: analyze.RTStats{N: 1, Mean: math.NaN()}}
			r.Clients[1].Whole.Utilization = math.NaN()
			s := r.Clients[0].Clock.Syncs
			s[0].OffsetMs, s[2].BoundMs, s[3].T = math.NaN(), math.Inf(1), math.NaN()
			r.Summary.Throughput.Mean = math.NaN()
			return r
		}()},
		// The size limit case: 200,000 quanta, 20,000 testers, 100 syncs each.
		{"huge", bigResult(200_000, 20_000, 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := render(t, tt.r)
			if len(page) >= 5<<20 {
				t.Errorf("page is %d bytes, want < 5 MB", len(page))
			}
			svgs := svgRE.FindAllString(page, -1)
			if len(svgs) != len(GraphIDs()) {
				t.Fatalf("page has %d <svg> elements, want %d", len(svgs), len(GraphIDs()))
			}
			for _, s := range svgs {
				checkXML(t, s)
				if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
					t.Errorf("an svg contains NaN or Inf")
				}
			}
			for _, id := range GraphIDs() {
				if !strings.Contains(page, `<svg id="`+id+`"`) {
					t.Errorf("page lacks chart %q", id)
				}
			}
			checkOffline(t, page)
		})
	}
}

func TestSummaryValues(t *testing.T) {
	t.Parallel()
	page := render(t, smallResult())
	for _, want := range []string{
		"<title>diperf report: small run</title>",
		"<td>11.5</td><td>98.25</td><td>87.75</td><td>123.5</td><td>31.25</td>", // throughput row
		"<td>2.5</td><td>40.5</td><td>47.25</td><td>512</td><td>66.5</td>",      // response time row
		"total 1234 · ok 1200 · failed 30 · lost 4",
		"planned 5 · started 4 · failed 1",
		"9.5 calls in flight",
		"6.25 calls in flight, 118.5 calls/s",
		"3 – 9 s, 4 testers",
		"0.9876",
		"max |offset| 1.75 ms · max error bound 0.625 ms",
		"failed 18 · timeout 12",
		`<span class="failed">FAILED</span>`,
		"host3:1003",
		"<th>max |offset| (ms)</th><th>RTT (ms)</th><th>max bound (ms)</th><th>start skew (ms)</th>",
		"<td>3600000</td><td>0.5</td><td>0.25</td><td>–</td>",       // tester 0: start not synchronized
		"<td>3600001</td><td>1.5</td><td>0.375</td><td>-0.375</td>", // tester 1: synchronized start
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "synchronized start") {
		t.Error("page mentions a synchronized start although MaxStartSkewMs is 0")
	}
	if strings.Contains(page, "never saturated") {
		t.Error("a saturated run is reported as never saturated")
	}
}

func TestStartSkew(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Summary.Clock.MaxStartSkewMs = 2.5
	page := render(t, r)
	want := "max |offset| 1.75 ms · max error bound 0.625 ms · synchronized start: max skew 2.5 ms"
	if !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}

func TestNotSaturated(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Summary.Saturation = analyze.Saturation{Load: 9.5, Throughput: 118.5}
	page := render(t, r)
	for _, want := range []string{"9.5 calls in flight, 118.5 calls/s *", "service never saturated", "not saturated"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestEscaping(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Name = `<script>alert("x")</script>`
	r.Clients[0].ID = "<b>evil</b>"
	r.Clients[0].Host = `"><img src=x>`
	r.Summary.Errors = map[string]int{"<i>odd</i>": 1}
	page := render(t, r)
	for _, bad := range []string{`<script>alert`, "<b>evil", "<img", "<i>odd"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains unescaped %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Error("page lacks the escaped name")
	}
}

func TestTesterTableCap(t *testing.T) {
	t.Parallel()
	page := render(t, bigResult(10, 2500, 2))
	if n := strings.Count(page, "<tr><td>"); n != maxRows {
		t.Errorf("table has %d tester rows, want %d", n, maxRows)
	}
	if !strings.Contains(page, "1500 more testers are not listed") {
		t.Error("page lacks the note on left-out testers")
	}
	if !strings.Contains(page, "each bar is the mean of 2 testers") {
		t.Error("testers chart does not say it aggregates")
	}
}

func TestRenderNil(t *testing.T) {
	t.Parallel()
	if err := Render(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("Render(nil) succeeded")
	}
	if err := WriteFile(t.TempDir(), nil, nil); err == nil {
		t.Error("WriteFile(nil) succeeded")
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteFile(dir, smallResult(), smallModel()); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	page := render(t, smallResult())
	got, err := os.ReadFile(filepath.Join(dir, rundir.Report))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != page {
		t.Error("report.html differs from Render's output")
	}
	for _, id := range GraphIDs() {
		checkSVGFile(t, filepath.Join(dir, id+".svg"), page)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1+len(GraphIDs()) {
		t.Errorf("dir holds %d entries, want %s and %d graphs", len(entries), rundir.Report, len(GraphIDs()))
	}
	if err := WriteFile(filepath.Join(dir, "missing"), smallResult(), nil); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}

// checkSVGFile checks that the file at path is a standalone SVG document
// holding the same graph as the page.
func checkSVGFile(t *testing.T, path, page string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	checkXML(t, s)
	if !strings.HasPrefix(s, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<svg xmlns="http://www.w3.org/2000/svg" id="`) {
		t.Errorf("%s does not start as a standalone SVG document:\n%.200s", path, s)
	}
	inline := strings.Replace(strings.TrimSpace(s[strings.Index(s, "<svg"):]), `xmlns="http://www.w3.org/2000/svg" `, "", 1)
	if !strings.Contains(page, inline) {
		t.Errorf("%s differs from the graph in the page", path)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, %v; want 0644", path, st.Mode(), err)
	}
}

package monitor

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

const page = `# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 100.5
node_cpu_seconds_total{cpu="0",mode="user"} 20
node_cpu_seconds_total{mode="idle",cpu="1"} 90
# TYPE node_memory_MemTotal_bytes gauge
node_memory_MemTotal_bytes 8e+09
# TYPE node_disk_io_now gauge
node_disk_io_now{device="sda"} 0
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0.5"} 0.001
go_gc_duration_seconds_sum 0.5
go_gc_duration_seconds_count 7
# TYPE http_seconds histogram
http_seconds_bucket{le="0.1"} 3
http_seconds_bucket{le="+Inf"} 4
http_seconds_sum 1.5
http_seconds_count 4
`

// The text format becomes series with canonical labels; summaries and
// histograms become their parts.
func TestParsePrometheus(t *testing.T) {
	got, err := ParsePrometheus(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`node_cpu_seconds_total|cpu="0",mode="idle"`: 100.5, `node_cpu_seconds_total|cpu="1",mode="idle"`: 90,
		`node_memory_MemTotal_bytes|`: 8e9, `go_gc_duration_seconds|quantile="0.5"`: 0.001, `go_gc_duration_seconds_count|`: 7,
		`http_seconds_bucket|le="+Inf"`: 4, `http_seconds_sum|`: 1.5,
	}
	have := map[string]float64{}
	for _, s := range got {
		have[s.Metric+"|"+s.Labels] = s.Value
	}
	for k, v := range want {
		if have[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, have[k], v, have)
		}
	}
	if v := LabelValue(`cpu="1",mode="idle"`, "mode"); v != "idle" {
		t.Errorf("LabelValue = %q", v)
	}
	if _, err := ParsePrometheus(strings.NewReader("node_x{ 1\n")); err == nil {
		t.Error("a broken page parsed")
	}
	kept, dropped := Keep(got, nil)
	if len(kept) != 4 || dropped != len(got)-4 {
		t.Errorf("node defaults kept %d, dropped %d of %d; want the 3 cpu series and MemTotal", len(kept), dropped, len(got))
	}
	kept, _ = Keep(got, []string{"http_*"})
	if len(kept) != 4 {
		t.Errorf("glob http_* kept %v", kept)
	}
}

// Past MaxSeries a page's series are dropped and counted.
func TestKeepCap(t *testing.T) {
	var all []Series
	for i := range MaxSeries + 7 {
		all = append(all, Series{Metric: "m", Labels: pair("i", string(rune('a'+i%26))+strings.Repeat("x", i/26))})
	}
	kept, dropped := Keep(all, nil)
	if len(kept) != MaxSeries || dropped != 7 {
		t.Errorf("kept %d dropped %d", len(kept), dropped)
	}
}

// nginx's stub_status page becomes counters and gauges.
func TestParseStubStatus(t *testing.T) {
	got, err := ParseStubStatus(strings.NewReader("Active connections: 291 \nserver accepts handled requests\n 16630948 16630947 31070465 \nReading: 6 Writing: 179 Waiting: 106 \n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{NginxActive: 291, NginxAccepted: 16630948, NginxHandled: 16630947, NginxRequests: 31070465,
		NginxReading: 6, NginxWriting: 179, NginxWaiting: 106}
	for _, s := range got {
		if want[s.Metric] != s.Value {
			t.Errorf("%s = %v, want %v", s.Metric, s.Value, want[s.Metric])
		}
		delete(want, s.Metric)
	}
	if len(want) != 0 {
		t.Errorf("missing %v", want)
	}
	for _, bad := range []string{"", "Active connections: x\nserver accepts handled requests\n1 2 3\nReading: 1 Writing: 1 Waiting: 1\n",
		"Active connections: 1\nserver accepts handled requests\n1 2\nReading: 1 Writing: 1 Waiting: 1\n", "<html>nginx</html>"} {
		if _, err := ParseStubStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The scraper reads each endpoint at once, every interval and once more at
// the end; a failed scrape is an up 0 point and a counted error; each
// scrape is stamped with the midpoint of request and response.
func TestScraper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var pts []Point
		calls := 0
		start := time.Now()
		s := &Scraper{
			Endpoints: []Endpoint{{Name: "t", URL: "u", Format: "prometheus", Interval: time.Second}},
			Sink: func(p []Point) error {
				mu.Lock()
				defer mu.Unlock()
				pts = append(pts, p...)
				return nil
			},
			Fetch: func(ctx context.Context, _ string) (io.ReadCloser, error) {
				calls++
				time.Sleep(100 * time.Millisecond) // the page takes 100 ms: the stamp is 50 ms after the request
				if calls == 2 {
					return nil, errors.New("connection refused")
				}
				return io.NopCloser(strings.NewReader("c_total 5\n")), nil
			},
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		defer cancel()
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if n := s.Scrapes()["t"]; n != 4 {
			t.Errorf("%d scrapes, want 4 (0 s, 1 s, 2 s, and at the end)", n)
		}
		if n := s.Errors()["t"]; n != 1 {
			t.Errorf("%d errors, want 1", n)
		}
		ups := Levels(pts, "t", "c_total", nil)
		if len(ups) != 3 || ups[0].TimeNs != start.Add(50*time.Millisecond).UnixNano() {
			t.Errorf("levels %v; want 3, the first at the start + 50 ms", ups)
		}
		var down int
		for _, p := range pts {
			if p.Metric == Up && p.Value == 0 {
				down++
				if p.TimeNs != start.Add(time.Second+50*time.Millisecond).UnixNano() {
					t.Errorf("failed scrape at %v", time.Unix(0, p.TimeNs).Sub(start))
				}
			}
		}
		if down != 1 {
			t.Errorf("%d up=0 points, want 1", down)
		}
	})
}

// Increases between successful scrapes: summed over label sets, a reset
// counts the new value, a failed scrape joins two intervals.
func TestIncreases(t *testing.T) {
	p := func(t int64, metric, labels string, v float64) Point {
		return Point{TimeNs: t, Endpoint: "e", Metric: metric, Labels: labels, Value: v}
	}
	pts := []Point{
		p(0, Up, "", 1), p(0, "c", `a="1"`, 10), p(0, "c", `a="2"`, 5),
		p(10, Up, "", 1), p(10, "c", `a="1"`, 15), p(10, "c", `a="2"`, 8),
		p(20, Up, "", 1), p(20, "c", `a="1"`, 4), p(20, "c", `a="2"`, 9), // a=1 reset to 0 and grew to 4
		p(30, Up, "", 0),
		p(40, Up, "", 1), p(40, "c", `a="1"`, 14), p(40, "c", `a="2"`, 9), p(40, "c", `a="3"`, 2),
		{TimeNs: 40, Endpoint: "other", Metric: "c", Value: 1000},
	}
	got := Increases(pts, "e", "c", nil)
	want := []Increase{{0, 10, 8}, {10, 20, 5}, {20, 40, 12}}
	if len(got) != len(want) {
		t.Fatalf("increases %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("increase %d = %v, want %v", i, got[i], want[i])
		}
	}
	only1 := Increases(pts, "e", "c", func(l string) bool { return LabelValue(l, "a") == "1" })
	if only1[0].Value != 5 || only1[1].Value != 4 {
		t.Errorf("a=1 only: %v", only1)
	}
	if lv := Levels(pts, "e", "c", nil); len(lv) != 4 || lv[3].Value != 25 {
		t.Errorf("levels %v", lv)
	}
}

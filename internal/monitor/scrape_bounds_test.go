package monitor

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// pageSeries is how many series the big page has, and pageLine how long
// each of its lines is: m{i="XXXXX"} 1 and a newline, i in 5 hex digits.
const (
	pageSeries = 1_000_000
	pageLine   = len(`m{i="00000"} 1`) + 1
)

// writeBigPage writes a page of pageSeries series to w, the last label
// first, without holding the page: the test's heap is the scraper's.
func writeBigPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	bw := bufio.NewWriterSize(w, 64<<10)
	line := []byte(`m{i="00000"} 1` + "\n")
	for i := pageSeries - 1; i >= 0; i-- {
		for d := range 5 {
			line[5+d] = "0123456789abcdef"[(i>>(4*(4-d)))&15]
		}
		if _, err := bw.Write(line); err != nil {
			return
		}
	}
	_ = bw.Flush()
}

// heapPeak samples the heap in use every millisecond until stop is called,
// and returns its largest value.
func heapPeak() (stop func() uint64) {
	var peak uint64
	done, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-quit:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(quit); <-done; return peak }
}

// collect is a sink that keeps every point.
type collect struct {
	mu  sync.Mutex
	pts []Point
}

func (c *collect) sink(p []Point) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pts = append(c.pts, p...)
	return nil
}

// TestMillionSeriesPageIsBoundedBySeries scrapes, over loopback HTTP, a
// page of 1,000,000 series (15 MB, the last series first): the scraper
// keeps the 500 first in label order and says it dropped the 999,500
// others, and the heap never grows by more than half the page (before the
// fix it read the whole page, then built every series: 800 MB and more).
func TestMillionSeriesPageIsBoundedBySeries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeBigPage(w) }))
	defer srv.Close()
	var c collect
	s := &Scraper{Sink: c.sink, Now: time.Now, Fetch: httpGet}
	ep := Endpoint{Name: "big", URL: srv.URL + "/metrics", Format: experiment.FormatPrometheus, Interval: 5 * time.Minute}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := heapPeak()
	s.once(context.Background(), ep)
	peak := stop()
	runtime.GC()
	runtime.ReadMemStats(&after)
	const pageBytes = int64(pageSeries * pageLine)
	growth := int64(peak) - int64(before.HeapAlloc)
	t.Logf("page %d bytes; heap %d before, peak %d (+%d), %d after", pageBytes, before.HeapAlloc, peak, growth, after.HeapAlloc)
	if growth > pageBytes/2 {
		t.Errorf("the heap grew by %d bytes while scraping a page of %d bytes: want less than half the page", growth, pageBytes)
	}
	kept := map[string]bool{}
	var up, dropped float64 = -1, -1
	for _, p := range c.pts {
		switch p.Metric {
		case "m":
			kept[p.Labels] = true
		case Up:
			up = p.Value
		case SeriesDropped:
			dropped = p.Value
		}
	}
	if up != 1 || len(kept) != MaxSeries || dropped != pageSeries-MaxSeries {
		t.Fatalf("up %v, %d series kept, %v dropped; want up 1, %d kept, %d dropped", up, len(kept), dropped, MaxSeries, pageSeries-MaxSeries)
	}
	for i := range MaxSeries {
		if l := fmt.Sprintf(`i="%05x"`, i); !kept[l] {
			t.Errorf("series %s not kept: want the %d first in label order", l, MaxSeries)
		}
	}
	if d := s.Dropped()["big"]; d != pageSeries-MaxSeries {
		t.Errorf("Dropped says %d, want %d", d, pageSeries-MaxSeries)
	}
}

// TestMaxSeriesOfAnEndpoint: an endpoint's max_series bounds what it
// keeps, and the drops add up over scrapes.
func TestMaxSeriesOfAnEndpoint(t *testing.T) {
	exp, err := experiment.Parse([]byte(`name: m
client: {exec: [true]}
monitor:
  - {name: small, url: "http://127.0.0.1:1/metrics", max_series: 3}
`), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ep := Endpoints(exp)[0]
	var c collect
	s := &Scraper{Sink: c.sink, Now: time.Now, Fetch: func(context.Context, string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("b 2\na 1\nd 4\nc 3\ne 5\n")), nil
	}}
	s.once(context.Background(), ep)
	s.once(context.Background(), ep)
	var got []string
	for _, p := range c.pts[:3] {
		got = append(got, p.Metric)
	}
	if strings.Join(got, " ") != "a b c" || s.Dropped()["small"] != 4 {
		t.Errorf("kept %v, dropped %d; want a b c, and 2 dropped twice", got, s.Dropped()["small"])
	}
	for _, bad := range []string{"-1", "100001"} {
		_, err := experiment.Parse([]byte(strings.Replace(`name: m
client: {exec: [true]}
monitor:
  - {name: small, url: "http://127.0.0.1:1/metrics", max_series: N}
`, "N", bad, 1)), "m.yaml")
		if err == nil || !strings.Contains(err.Error(), "max_series") {
			t.Errorf("max_series %s: %v; want refused", bad, err)
		}
	}
}

// longSeries and longValue shape a page of long series: longSeries lines
// of a label value of longValue bytes, 15 MB in all.
const (
	longSeries = 250
	longValue  = 60 << 10
)

// writeLongPage writes the page of long series without holding it.
func writeLongPage(w http.ResponseWriter) {
	bw := bufio.NewWriterSize(w, 64<<10)
	value := strings.Repeat("x", longValue)
	for i := range longSeries {
		fmt.Fprintf(bw, "m{i=\"%03d\",v=\"%s\"} 1\n", i, value)
	}
	_ = bw.Flush()
}

// TestLongSeriesAreBoundedByBytes scrapes a page of 250 series of 60 KiB
// each (15 MB): the series kept are the first in label order that fit in
// MaxKeptBytes, the others are dropped and counted, and what the scrape
// leaves held (its points, kept by the test) is within MaxKeptBytes and
// 1 MiB (before, each series was kept whatever its length: the bound of
// 500 series let the whole 15 MB through).
func TestLongSeriesAreBoundedByBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeLongPage(w) }))
	defer srv.Close()
	var c collect
	s := &Scraper{Sink: c.sink, Now: time.Now, Fetch: httpGet}
	ep := Endpoint{Name: "long", URL: srv.URL, Format: experiment.FormatPrometheus, Interval: 5 * time.Minute}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.once(context.Background(), ep)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap %d before, %d after (+%d)", before.HeapAlloc, after.HeapAlloc, held)
	kept := 0
	for _, p := range c.pts {
		if p.Metric == "m" {
			if want := fmt.Sprintf(`i="%03d"`, kept); !strings.HasPrefix(p.Labels, want) {
				t.Errorf("kept series %d is %.20s, want %s", kept, p.Labels, want)
			}
			kept++
		}
	}
	fit := MaxKeptBytes / (len(`m`) + len(`i="000",v=""`) + longValue + seriesOverhead)
	if kept != fit || s.Dropped()["long"] != longSeries-fit {
		t.Errorf("%d series kept, %d dropped; want the %d that fit in %d bytes, %d dropped", kept, s.Dropped()["long"], fit, MaxKeptBytes, longSeries-fit)
	}
	if held > MaxKeptBytes+1<<20 {
		t.Errorf("the scrape left %d bytes held, want at most MaxKeptBytes (%d) and 1 MiB", held, MaxKeptBytes)
	}
	runtime.KeepAlive(c.pts)
}
